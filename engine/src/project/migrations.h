#pragma once

#include "project/database.h"

#include <cstdint>
#include <string>

namespace headroom::project {

// PRAGMA application_id of every Headroom project: the ASCII bytes of "HDRM".
constexpr std::int32_t kProjectApplicationId = 0x4844524D;
// PRAGMA user_version this build writes. Version 1 had no evaluations table and no
// runs.summary_json column; version 3 no memory_history table; version 5 no MoE step metrics.
constexpr int kSchemaVersion = 10;

// Where the copy of a version-N file is kept before it is migrated: PATH.bak-vN.
std::string backupPath(const std::string &path, int version);

// Brings the database from `version` (its user_version; 0 for a new, empty file) up to
// kSchemaVersion, one step per transaction (each step also writes the new user_version, so a
// failure leaves the file at the last completed version). A file that already holds a project
// is first copied to backupPath(path, version).
void migrateToCurrent(Database &db, int version);

} // namespace headroom::project
