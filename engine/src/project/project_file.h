#pragma once

#include "project/database.h"

#include <string>

namespace headroom::project {

enum class Migration { Allowed, Refused };

// Opens an existing project file: checks that it exists, is an SQLite file that is not
// truncated, carries Headroom's application_id and a schema this build knows; then switches
// on WAL and foreign keys and, when allowed, migrates it to the current schema (Refused: a file
// at an older schema is an error). Throws ProjectError naming the file and the problem.
Database openProjectDatabase(const std::string &path, Migration migration);

// Creates a new project file at the current schema; refuses a path that exists.
Database createProjectDatabase(const std::string &path);

} // namespace headroom::project
