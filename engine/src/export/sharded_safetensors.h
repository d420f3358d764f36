// A model's weights as transformers' save_pretrained writes them: one model.safetensors while
// they fit a maximum shard size, else model-0000K-of-0000N.safetensors shards and
// model.safetensors.index.json ({"metadata": {"total_size": BYTES}, "weight_map": {tensor:
// shard}}).
#pragma once

#include "export/safetensors.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace headroom::exporting {

// "5GB", "500MB", "2GiB", "1.5 GB" or a number of bytes, as transformers' max_shard_size
// reads it (GB decimal, GiB binary). Throws InputError naming the text and the accepted forms
// for anything else, zero included.
std::uint64_t parseMaxShardSize(const std::string &text);

struct WrittenWeights {
    std::vector<std::string> files; // file names inside the folder, in writing order
    std::uint64_t total_bytes = 0;  // the tensors' bytes (the index's total_size)
    bool sharded() const { return files.size() > 1; }
};

// Writes the tensors into `folder` (which exists). Tensors are assigned to shards in the order
// given, as transformers splits a state dict: a tensor that would take the current shard past
// max_shard_bytes starts the next one, and a tensor larger than max_shard_bytes gets a shard of
// its own. Every file carries `metadata`. A name given twice is a std::invalid_argument. The index
// is written last, so a folder with an index has all its shards. Throws InputError for
// max_shard_bytes 0, std::runtime_error naming the file on I/O failure.
WrittenWeights writeModelWeights(const std::string &folder, const std::vector<TensorView> &tensors,
                                 const std::map<std::string, std::string> &metadata,
                                 std::uint64_t max_shard_bytes);

} // namespace headroom::exporting
