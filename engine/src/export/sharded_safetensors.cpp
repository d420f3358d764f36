#include "export/sharded_safetensors.h"

#include "export/output_folder.h"

#include <headroom/config.h>
#include <headroom/units.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

namespace headroom::exporting {

namespace {

namespace fs = std::filesystem;

std::string shardName(std::size_t index, std::size_t count) {
    char name[64];
    std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", index + 1, count);
    return name;
}

} // namespace

std::uint64_t parseMaxShardSize(const std::string &text) {
    const std::optional<std::uint64_t> bytes = parseBytes(text);
    if (!bytes || *bytes == 0) {
        throw InputError("max shard size '" + text +
                         "' is not a size above zero: give bytes or a number with a unit (500MB, "
                         "5GB, 2GiB; GB = 10^9 bytes, GiB = 2^30 bytes)");
    }
    return *bytes;
}

WrittenWeights writeModelWeights(const std::string &folder, const std::vector<TensorView> &tensors,
                                 const std::map<std::string, std::string> &metadata,
                                 std::uint64_t max_shard_bytes) {
    if (max_shard_bytes == 0) {
        throw InputError("the max shard size must be above zero bytes");
    }
    std::set<std::string> names;
    for (const TensorView &view : tensors) {
        if (!names.insert(view.name).second) {
            throw std::invalid_argument("the weights for " + folder + " name tensor '" + view.name +
                                        "' twice");
        }
    }
    std::vector<std::vector<TensorView>> shards(1);
    std::uint64_t shard_bytes = 0;
    WrittenWeights written;
    for (const TensorView &view : tensors) {
        if (!shards.back().empty() && shard_bytes + view.bytes > max_shard_bytes) {
            shards.emplace_back();
            shard_bytes = 0;
        }
        shards.back().push_back(view);
        shard_bytes += view.bytes;
        written.total_bytes += view.bytes;
    }
    if (shards.size() == 1) {
        writeSafetensors((fs::path(folder) / "model.safetensors").string(), tensors, metadata);
        written.files = {"model.safetensors"};
        return written;
    }
    // transformers writes the weight_map sorted by tensor name.
    std::map<std::string, std::string> weight_map;
    for (std::size_t index = 0; index < shards.size(); ++index) {
        const std::string name = shardName(index, shards.size());
        writeSafetensors((fs::path(folder) / name).string(), shards[index], metadata);
        written.files.push_back(name);
        for (const TensorView &view : shards[index]) {
            weight_map[view.name] = name;
        }
    }
    const nlohmann::ordered_json index = {{"metadata", {{"total_size", written.total_bytes}}},
                                          {"weight_map", weight_map}};
    writeTextFile((fs::path(folder) / "model.safetensors.index.json").string(),
                  index.dump(2) + "\n");
    return written;
}

} // namespace headroom::exporting
