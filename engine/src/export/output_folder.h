#pragma once

#include <string>

namespace headroom::exporting {

// Creates `folder` for an export: it must be new or empty. Throws InputError naming it.
void prepareOutputFolder(const std::string &folder);

// Writes a whole text file. Throws InputError naming it (disk full, no permission).
void writeTextFile(const std::string &path, const std::string &text);

} // namespace headroom::exporting
