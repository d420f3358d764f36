#include "hf/base_identity.h"

#include "hf/hf_error.h"
#include "hf/model_folder.h"
#include "util/hashing.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

namespace headroom::hf {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> identityFiles(const ModelFolder &folder) {
    std::vector<std::string> files = {folder.config_path};
    files.insert(files.end(), folder.weight_files.begin(), folder.weight_files.end());
    return files;
}

BaseFile statFile(const std::string &folder, const std::string &path) {
    BaseFile file;
    file.name = fs::path(path).lexically_relative(folder).generic_string();
    std::error_code error;
    file.size = fs::file_size(path, error);
    const auto time = fs::last_write_time(path, error);
    file.modified_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
    return file;
}

std::string hexOf(const std::string &text) {
    return util::sha256Hex(text.data(), text.size());
}

const char *const kMovedHint = "; if the model moved, point the project at it with --set "
                               "model.base=DIR (or Project > Locate Base Model… in the app)";

// `shown`: the folder as the message names it (the project's model.base, resolved, when the
// folder was located from it).
void requireSame(const BaseIdentity &recorded, ModelFolder &folder, const std::string &shown) {
    const std::vector<std::string> paths = identityFiles(folder);
    bool unchanged = paths.size() == recorded.files.size();
    for (std::size_t index = 0; unchanged && index < paths.size(); ++index) {
        const BaseFile now = statFile(folder.folder, paths[index]);
        const BaseFile &then = recorded.files[index];
        unchanged =
            now.name == then.name && now.size == then.size && now.modified_ns == then.modified_ns;
    }
    if (!unchanged) {
        const BaseIdentity now = identifyBase(folder);
        if (now.digest != recorded.digest) {
            throw ModelFolderError("the base model in " + shown +
                                   " is not the one this project was created from: its files "
                                   "changed (digest " +
                                   now.digest.substr(0, 12) + ", recorded " +
                                   recorded.digest.substr(0, 12) + ")" + kMovedHint);
        }
    }
    folder.digest = recorded.digest;
}

} // namespace

std::string BaseIdentity::toJson() const {
    nlohmann::json document = {{"folder", folder}, {"digest", digest}};
    nlohmann::json list = nlohmann::json::array();
    for (const BaseFile &file : files) {
        list.push_back(
            {{"name", file.name}, {"size", file.size}, {"modified_ns", file.modified_ns}});
    }
    document["files"] = list;
    return document.dump();
}

BaseIdentity BaseIdentity::fromJson(const std::string &json) {
    try {
        const nlohmann::json document = nlohmann::json::parse(json);
        BaseIdentity identity;
        identity.folder = document.at("folder").get<std::string>();
        identity.digest = document.at("digest").get<std::string>();
        for (const nlohmann::json &file : document.at("files")) {
            identity.files.push_back({file.at("name").get<std::string>(),
                                      file.at("size").get<std::uint64_t>(),
                                      file.at("modified_ns").get<std::int64_t>()});
        }
        return identity;
    } catch (const nlohmann::json::exception &error) {
        throw ModelFolderError(std::string("the project's record of its base model is damaged: ") +
                               error.what());
    }
}

BaseIdentity identifyBase(ModelFolder &folder) {
    BaseIdentity identity;
    identity.folder = folder.folder;
    std::string combined;
    for (const std::string &path : identityFiles(folder)) {
        BaseFile file = statFile(folder.folder, path);
        std::string digest;
        try {
            digest = util::sha256File(path);
        } catch (const std::runtime_error &error) {
            throw ModelFolderError(error.what());
        }
        combined += file.name + '\n' + digest + '\n';
        identity.files.push_back(std::move(file));
    }
    identity.digest = hexOf(combined);
    folder.digest = identity.digest;
    return identity;
}

void requireSameBase(const BaseIdentity &recorded, ModelFolder &folder) {
    requireSame(recorded, folder, folder.folder);
}

ModelFolder locateRecordedBase(const BaseIdentity &recorded, const std::string &folder_path) {
    std::error_code error;
    if (!fs::is_directory(folder_path, error)) {
        throw ModelFolderError("the base model folder " + folder_path +
                               " is missing (the project starts from it)" + kMovedHint);
    }
    ModelFolder folder = locateModelFolder(folder_path);
    requireSame(recorded, folder, folder_path);
    return folder;
}

} // namespace headroom::hf
