#include "project/project_file.h"

#include "project/migrations.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sqlite3.h>
#include <system_error>
#include <vector>

namespace headroom::project {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kSqliteHeaderSize = 100;
constexpr char kSqliteMagic[] = "SQLite format 3"; // followed by a NUL byte

std::uint32_t bigEndian(const std::array<unsigned char, kSqliteHeaderSize> &header,
                        std::size_t offset, std::size_t width) {
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < width; ++i) {
        value = (value << 8) | header[offset + i];
    }
    return value;
}

[[noreturn]] void fail(const std::string &path, const std::string &problem) {
    throw ProjectError("project '" + path + "' " + problem);
}

std::uintmax_t fileSizeOrZero(const fs::path &path) {
    std::error_code error;
    const std::uintmax_t size = fs::file_size(path, error);
    return error ? 0 : size;
}

// Reads the first bytes of the file through SQLite's own VFS. Closing a plain descriptor of
// the file (std::ifstream) would release every POSIX lock this process holds on it, SQLite's
// included: another process closing its connection could then delete the WAL under a run
// that is still writing (its later commits vanished from every reader). SQLite's unix VFS
// defers such a close until the process's locks are gone. A short file reads as zeros.
bool readHeaderThroughSqlite(const std::string &path,
                             std::array<unsigned char, kSqliteHeaderSize> &header) {
    sqlite3_vfs *vfs = sqlite3_vfs_find(nullptr);
    if (vfs == nullptr) {
        return false;
    }
    std::vector<char> full_path(static_cast<std::size_t>(vfs->mxPathname) + 1);
    if (vfs->xFullPathname(vfs, path.c_str(), vfs->mxPathname, full_path.data()) != SQLITE_OK) {
        return false;
    }
    std::unique_ptr<void, void (*)(void *)> storage(sqlite3_malloc(vfs->szOsFile), sqlite3_free);
    if (!storage) {
        return false;
    }
    std::memset(storage.get(), 0, static_cast<std::size_t>(vfs->szOsFile));
    auto *file = static_cast<sqlite3_file *>(storage.get());
    int flags = 0;
    if (vfs->xOpen(vfs, full_path.data(), file, SQLITE_OPEN_READONLY | SQLITE_OPEN_MAIN_DB,
                   &flags) != SQLITE_OK) {
        if (file->pMethods != nullptr) {
            file->pMethods->xClose(file);
        }
        return false;
    }
    const int code = file->pMethods->xRead(file, header.data(), static_cast<int>(header.size()), 0);
    file->pMethods->xClose(file);
    return code == SQLITE_OK || code == SQLITE_IOERR_SHORT_READ;
}

} // namespace

// SQLite treats an empty or missing file as a new database, and reports a cut-off file only
// when it reaches the gap: these are told from the file itself.
void checkProjectFile(const std::string &path) {
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (!fs::exists(status)) {
        fail(path, "does not exist");
    }
    if (fs::is_directory(status)) {
        fail(path, "is a folder, not a project file");
    }
    const std::uintmax_t size = fs::file_size(path, error);
    if (error) {
        fail(path, "cannot be read: " + error.message());
    }
    if (size == 0) {
        fail(path, "is empty, not a Headroom project");
    }

    std::array<unsigned char, kSqliteHeaderSize> header{};
    if (!readHeaderThroughSqlite(path, header)) {
        fail(path, "cannot be read");
    }
    const auto read = static_cast<std::size_t>(std::min<std::uintmax_t>(size, header.size()));
    if (read < sizeof kSqliteMagic ||
        !std::equal(std::begin(kSqliteMagic), std::end(kSqliteMagic), header.begin())) {
        fail(path, "is not a Headroom project (not an SQLite database)");
    }
    if (read < kSqliteHeaderSize) {
        fail(path, "is truncated: " + std::to_string(size) + " bytes, shorter than its header");
    }

    std::uint32_t page_size = bigEndian(header, 16, 2);
    if (page_size == 1) {
        page_size = 65536;
    }
    if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0) {
        fail(path, "is damaged: invalid page size " + std::to_string(page_size));
    }
    // The page count in the header is valid when the change counter matches "version valid for".
    const bool page_count_valid = bigEndian(header, 24, 4) == bigEndian(header, 92, 4);
    const std::uintmax_t expected = std::uintmax_t{bigEndian(header, 28, 4)} * page_size;
    // Pages that still sit in a write-ahead log are not in the main file yet.
    const bool has_wal = fileSizeOrZero(path + "-wal") > 0;
    if (page_count_valid && !has_wal && size < expected) {
        fail(path, "is truncated: " + std::to_string(size) + " bytes, its header says " +
                       std::to_string(expected));
    }
}

namespace {

// The newest PATH.bak-vN left by a migration, or "".
std::string newestBackup(const std::string &path) {
    for (int version = kSchemaVersion - 1; version >= 1; --version) {
        std::error_code error;
        if (fs::is_regular_file(backupPath(path, version), error)) {
            return backupPath(path, version);
        }
    }
    return {};
}

std::string hex32(std::int64_t value) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%08x", static_cast<unsigned>(value & 0xffffffff));
    return text;
}

void configureConnection(Database &db) {
    db.exec("PRAGMA foreign_keys = ON", "switch on foreign keys");
    db.exec("PRAGMA journal_mode = WAL", "switch to write-ahead logging");
    db.exec("PRAGMA synchronous = NORMAL", "set the sync mode");
}

} // namespace

void requireIntact(Database &db) {
    Statement check(db, "PRAGMA quick_check(1)");
    if (check.step("check the file") && check.text(0) != "ok") {
        const std::string backup = newestBackup(db.path());
        fail(db.path(),
             "is damaged (integrity check failed: " + check.text(0) + ")" +
                 (backup.empty() ? std::string()
                                 : "; a copy from before its last migration is '" + backup + "'"));
    }
}

Database openProjectDatabase(const std::string &path, Migration migration, Access access) {
    checkProjectFile(path);
    Database db(path, access == Access::ReadOnly ? Database::Mode::OpenReadOnly
                                                 : Database::Mode::OpenExisting);

    const std::int64_t application_id = db.pragmaInteger("application_id");
    if (application_id != kProjectApplicationId) {
        fail(path, "is not a Headroom project (an SQLite database with application_id " +
                       hex32(application_id) + ")");
    }
    const auto version = static_cast<int>(db.pragmaInteger("user_version"));
    if (version > kSchemaVersion) {
        fail(path, "was written by a newer Headroom: schema " + std::to_string(version) +
                       ", this build knows up to " + std::to_string(kSchemaVersion));
    }
    if (version < 1) {
        fail(path, "is damaged: it has no schema (version " + std::to_string(version) + ")");
    }
    if (version < kSchemaVersion && access == Access::ReadOnly) {
        fail(path, "has schema " + std::to_string(version) + ", this build needs " +
                       std::to_string(kSchemaVersion) +
                       ": it cannot be migrated while opened read-only; open it for writing once "
                       "(a backup is made first)");
    }
    if (version < kSchemaVersion && migration == Migration::Refused) {
        fail(path, "has schema " + std::to_string(version) + ", this build needs " +
                       std::to_string(kSchemaVersion) + ": open it as a project to migrate it");
    }

    // Reading the table list parses page 1 and the schema: a damaged file stops here.
    Statement(db, "SELECT count(*) FROM sqlite_schema").step("read the list of tables");

    if (access == Access::ReadOnly) {
        return db;
    }
    configureConnection(db);
    if (version < kSchemaVersion) {
        requireIntact(db); // never migrate (and back up) a damaged file
        migrateToCurrent(db, version);
    }
    return db;
}

Database createProjectDatabase(const std::string &path) {
    std::error_code error;
    if (fs::exists(fs::symlink_status(path, error))) {
        fail(path, "already exists; choose another name or open it");
    }
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty() && !fs::is_directory(parent, error)) {
        fail(path, "cannot be created: the folder '" + parent.string() + "' does not exist");
    }
    Database db(path, Database::Mode::CreateNew);
    configureConnection(db);
    migrateToCurrent(db, 0);
    return db;
}

} // namespace headroom::project
