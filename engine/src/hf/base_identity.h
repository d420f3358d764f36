// How a project remembers the pretrained folder it starts from without copying it: the path,
// and a digest of config.json and the weight files, with their sizes and modification times so
// an unchanged folder is recognised without hashing gigabytes again.
#pragma once

#include "hf/model_folder.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::hf {

struct BaseFile {
    std::string name; // relative to the folder
    std::uint64_t size = 0;
    std::int64_t modified_ns = 0;
};

struct BaseIdentity {
    std::string folder;
    std::string digest; // sha256 over the files' names and contents
    std::vector<BaseFile> files;

    std::string toJson() const;
    static BaseIdentity fromJson(const std::string &json); // throws ModelFolderError
};

// Hashes config.json and every weight file of the folder, and keeps the digest in
// folder.digest.
BaseIdentity identifyBase(ModelFolder &folder);

// Throws ModelFolderError when the folder's files differ from the recorded ones (sizes and
// times equal: trusted without hashing; otherwise the digest decides), and otherwise sets
// folder.digest to the recorded digest. The message names the folder and how to point the
// project elsewhere (`--set model.base=DIR`).
void requireSameBase(const BaseIdentity &recorded, ModelFolder &folder);

// model.base as a project that recorded its base reads it: locates folder_path and requires it
// to be the recorded base. A missing folder is refused with the same hint before it is located.
ModelFolder locateRecordedBase(const BaseIdentity &recorded, const std::string &folder_path);

} // namespace headroom::hf
