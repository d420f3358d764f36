#pragma once

#include "project/database.h"

#include <string>

namespace headroom::project {

enum class Migration { Allowed, Refused };
enum class Access { ReadWrite, ReadOnly };

// Opens an existing project file: checks that it exists, is an SQLite file that is not
// truncated, carries Headroom's application_id and a schema this build knows; then switches
// on WAL and foreign keys and, when allowed, migrates it to the current schema (Refused: a file
// at an older schema is an error). ReadOnly writes nothing: no WAL switch, no migration.
// Throws ProjectError naming the file and the problem.
Database openProjectDatabase(const std::string &path, Migration migration,
                             Access access = Access::ReadWrite);

// What can be told before SQLite reads the file: it exists, is a file, starts like an SQLite
// database and is not shorter than its header says. Throws ProjectError.
void checkProjectFile(const std::string &path);

// `PRAGMA quick_check`: throws ProjectError "is damaged (integrity check failed: ...)".
void requireIntact(Database &db);

// Creates a new project file at the current schema; refuses a path that exists.
Database createProjectDatabase(const std::string &path);

} // namespace headroom::project
