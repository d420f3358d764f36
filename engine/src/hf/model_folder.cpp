#include "hf/model_folder.h"

#include "hf/hf_error.h"
#include "hf/json_file.h"
#include "util/files.h"
#include "util/text.h"

#include <algorithm>
#include <filesystem>

namespace headroom::hf {

namespace {

using util::endsWith;

namespace fs = std::filesystem;

constexpr std::uint64_t kMaxIndexBytes = 64ULL << 20;
const char *const kIndexName = "model.safetensors.index.json";

// A shard name must stay inside the folder: a plain file name.
bool plainFileName(const std::string &name) {
    return !name.empty() && name != "." && name != ".." &&
           name.find_first_of(std::string("/\\:\0", 4)) == std::string::npos;
}

// The names of the folder's entries, sorted, so that messages do not depend on directory order.
std::vector<std::string> entryNames(const fs::path &folder) {
    std::vector<std::string> names;
    std::error_code error;
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
        names.push_back(it->path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::string pickleCheckpoint(const std::vector<std::string> &names) {
    for (const std::string &name : names) {
        if (name == "pytorch_model.bin" || name == "pytorch_model.bin.index.json" ||
            (name.rfind("pytorch_model-", 0) == 0 && endsWith(name, ".bin")) ||
            endsWith(name, ".pt") || endsWith(name, ".pth") || endsWith(name, ".ckpt")) {
            return name;
        }
    }
    return {};
}

[[noreturn]] void noWeights(const std::string &folder, const std::vector<std::string> &names) {
    const std::string pickle = pickleCheckpoint(names);
    if (!pickle.empty()) {
        throw ModelFolderError(
            folder + ": " + pickle +
            " is a pickle checkpoint, and pickle checkpoints are not read (loading one can run "
            "code). Convert the model to safetensors with transformers: python -c \"from "
            "transformers import AutoModelForCausalLM as M; M.from_pretrained('" +
            folder + "').save_pretrained('" + folder + "-safetensors', safe_serialization=True)\"");
    }
    std::string hint;
    if (std::find(names.begin(), names.end(), "adapter_config.json") != names.end()) {
        hint = " (adapter_config.json: this is a PEFT adapter, not a whole model)";
    } else {
        for (const std::string &name : names) {
            if (endsWith(name, ".safetensors")) {
                hint = " (" + name + " has another name than transformers gives its weights)";
                break;
            }
        }
    }
    throw ModelFolderError(folder + ": no model.safetensors or " + kIndexName + hint);
}

void readIndex(const fs::path &folder, ModelFolder &result) {
    const std::string path = (folder / kIndexName).string();
    const nlohmann::ordered_json index = parseOrderedJson(readTextFile(path, kMaxIndexBytes), path);
    const auto map = index.is_object() ? index.find("weight_map") : index.end();
    if (map == index.end() || !map->is_object()) {
        throw ModelFolderError(path + ": weight_map is missing, expected an object of tensor "
                                      "name -> shard file name");
    }
    for (const auto &[tensor, shard] : map->items()) {
        if (!shard.is_string() || !plainFileName(shard.get<std::string>())) {
            throw ModelFolderError(
                path + ": weight_map entry " + describeJson(nlohmann::json(tensor)) + " is " +
                describeJson(shard) + ", expected the file name of a shard in the same folder");
        }
        const std::string shard_path = (folder / shard.get<std::string>()).string();
        if (std::find(result.weight_files.begin(), result.weight_files.end(), shard_path) ==
            result.weight_files.end()) {
            if (!util::isRegularFile(shard_path)) {
                throw ModelFolderError(path + ": the shard " + shard.get<std::string>() +
                                       " (holding " + describeJson(nlohmann::json(tensor)) +
                                       ") is missing from the folder");
            }
            result.weight_files.push_back(shard_path);
        }
        result.index_weight_map[tensor] = shard_path;
    }
    if (result.weight_files.empty()) {
        throw ModelFolderError(path + ": weight_map is empty");
    }
}

} // namespace

ModelFolder locateModelFolder(const std::string &path) {
    std::error_code error;
    fs::path folder = fs::absolute(path, error).lexically_normal();
    if (error) {
        throw ModelFolderError(path + ": " + error.message());
    }
    if (folder.has_parent_path() && !folder.has_filename()) {
        folder = folder.parent_path(); // "/models/x/" -> "/models/x"
    }
    ModelFolder result;
    result.folder = folder.string();
    const fs::file_status status = fs::status(folder, error);
    if (error || !fs::is_directory(status)) {
        throw ModelFolderError(result.folder + ": " +
                               (fs::exists(status) ? "not a folder"
                                                   : "no such folder (a Hugging Face model "
                                                     "folder was expected)"));
    }
    result.config_path = (folder / "config.json").string();
    if (!util::isRegularFile(result.config_path)) {
        throw ModelFolderError(result.folder +
                               ": no config.json (a Hugging Face model folder has config.json "
                               "next to model.safetensors)");
    }
    // transformers prefers the single file when both are there.
    if (util::isRegularFile(folder / "model.safetensors")) {
        result.weight_files.push_back((folder / "model.safetensors").string());
    } else if (util::isRegularFile(folder / kIndexName)) {
        readIndex(folder, result);
    } else {
        noWeights(result.folder, entryNames(folder));
    }
    if (util::isRegularFile(folder / "generation_config.json")) {
        result.generation_config_path = (folder / "generation_config.json").string();
    }
    if (util::isRegularFile(folder / "tokenizer_config.json")) {
        result.tokenizer_config_path = (folder / "tokenizer_config.json").string();
    }
    result.has_tokenizer = util::isRegularFile(folder / "tokenizer.json") ||
                           (util::isRegularFile(folder / "vocab.json") &&
                            util::isRegularFile(folder / "merges.txt")) ||
                           util::isRegularFile(folder / "vocab.txt") ||
                           util::isRegularFile(folder / "tokenizer.model");
    return result;
}

} // namespace headroom::hf
