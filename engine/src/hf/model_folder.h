// Where the parts of a Hugging Face model folder are: config.json, the safetensors weights
// (one file, or shards listed by model.safetensors.index.json) and the optional generation and
// tokenizer files. Torch-free; reads only the shard index.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace headroom::hf {

struct ModelFolder {
    std::string folder;      // absolute, normalised, no trailing separator
    std::string config_path; // folder/config.json
    // Absolute paths: model.safetensors, or the shards of model.safetensors.index.json in the
    // order they first appear in its weight_map.
    std::vector<std::string> weight_files;
    // The index's weight_map: stored tensor name -> absolute shard path; empty for one file.
    std::map<std::string, std::string> index_weight_map;
    std::optional<std::string> generation_config_path; // folder/generation_config.json
    std::optional<std::string> tokenizer_config_path;  // folder/tokenizer_config.json
    bool has_tokenizer =
        false; // tokenizer.json, vocab.json + merges.txt, vocab.txt or tokenizer.model
    // sha256 over config.json and the weight files (hf/base_identity.h): unset until
    // identifyBase computes it or requireSameBase matches the folder to a project's record.
    std::optional<std::string> digest;
};

// Throws ModelFolderError: not a folder, no config.json, no safetensors weights (naming the
// pickle checkpoint found instead, which is never read: loading one can run code), a malformed
// index, or a shard it lists that is missing. Called where a path comes in (a config value, a
// command-line argument, a public API); everything after that takes the ModelFolder.
ModelFolder locateModelFolder(const std::string &path);

} // namespace headroom::hf
