#include "project/database.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <sqlite3.h>
#include <sys/statvfs.h>
#include <utility>

namespace headroom::project {

namespace {

constexpr int kBusyTimeoutMs = 5000;
constexpr const char *kNaNText = "NaN";

bool isDamaged(int code) {
    const int primary = code & 0xff;
    return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB;
}

bool isWriteFailure(int code) {
    switch (code) {
    case SQLITE_IOERR_WRITE:
    case SQLITE_IOERR_SHORT_READ: // a file cut short by a failed append
    case SQLITE_IOERR_FSYNC:
    case SQLITE_IOERR_TRUNCATE:
    case SQLITE_IOERR_SHMSIZE:
        return true;
    default:
        return false;
    }
}

std::string diskTrouble(const std::string &path) {
    const std::string folder = std::filesystem::path(path).parent_path().string();
    struct statvfs disk {};
    if (statvfs(folder.empty() ? "." : folder.c_str(), &disk) == 0) {
        const std::uint64_t free_bytes = std::uint64_t{disk.f_bavail} * disk.f_frsize;
        if (free_bytes < (std::uint64_t{1} << 20)) {
            return "the disk is full (" + std::to_string(free_bytes) + " bytes free)";
        }
    }
    return "the disk refused the write (full, over a file size limit or quota, or failing)";
}

} // namespace

Database::Database(const std::string &path, Mode mode) : path_(path) {
    int flags = SQLITE_OPEN_READWRITE;
    if (mode == Mode::CreateNew) {
        flags |= SQLITE_OPEN_CREATE;
    } else if (mode == Mode::OpenReadOnly) {
        flags = SQLITE_OPEN_READONLY;
    }
    const int code = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
    if (code != SQLITE_OK) {
        const std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
        sqlite3_close(db_);
        db_ = nullptr;
        throw ProjectError("project '" + path + "': cannot open the file: " + message);
    }
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
}

Database::Database(Database &&other) noexcept
    : path_(std::move(other.path_)), db_(std::exchange(other.db_, nullptr)) {}

Database &Database::operator=(Database &&other) noexcept {
    if (this != &other) {
        sqlite3_close(db_);
        path_ = std::move(other.path_);
        db_ = std::exchange(other.db_, nullptr);
    }
    return *this;
}

Database::~Database() {
    // sqlite3_close (not _v2): every Statement is owned by code that outlives its use, so a
    // failure here would be a bug; there is nothing useful to do about it in a destructor.
    sqlite3_close(db_);
}

void Database::fail(int code, const char *what) const {
    std::string detail = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(code);
    const int primary = code & 0xff;
    const bool storage = primary == SQLITE_FULL || primary == SQLITE_IOERR ||
                         primary == SQLITE_READONLY || primary == SQLITE_PERM ||
                         primary == SQLITE_CANTOPEN;
    // SQLite's saved errno is unreliable after a failed commit, so the cause of a failed write
    // is told from the disk itself.
    if (primary == SQLITE_FULL || isWriteFailure(code)) {
        detail = diskTrouble(path_) + " (" + detail + ")";
    } else if (primary == SQLITE_READONLY) {
        detail = "the file or its folder is read-only (" + detail + ")";
    } else if (primary == SQLITE_PERM || primary == SQLITE_AUTH) {
        detail = "permission denied (" + detail + ")";
    } else if (primary == SQLITE_IOERR) {
        detail += " (SQLite code " + std::to_string(code) + ")";
    }
    if (isDamaged(code)) {
        throw ProjectError("project '" + path_ + "' is damaged or not a Headroom project (" + what +
                           ": " + detail + ")");
    }
    const std::string message = "project '" + path_ + "': " + what + ": " + detail;
    if (storage) {
        throw StorageError(message);
    }
    throw ProjectError(message);
}

void Database::exec(const std::string &sql, const char *what) {
    const int code = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
    if (code != SQLITE_OK) {
        fail(code, what);
    }
}

std::int64_t Database::pragmaInteger(const std::string &name) {
    const std::string sql = "PRAGMA " + name;
    Statement statement(*this, sql.c_str());
    if (!statement.step(sql.c_str())) {
        throw ProjectError("project '" + path_ + "': " + sql + " returned nothing");
    }
    return statement.integer(0);
}

std::int64_t Database::lastInsertId() const {
    return sqlite3_last_insert_rowid(db_);
}

int Database::changes() const {
    return sqlite3_changes(db_);
}

Statement::Statement(Database &db, const char *sql) : db_(&db) {
    const int code = sqlite3_prepare_v2(db.handle(), sql, -1, &stmt_, nullptr);
    if (code != SQLITE_OK) {
        db.fail(code, sql);
    }
}

Statement::Statement(Statement &&other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)), stepped_(other.stepped_) {}

Statement::~Statement() {
    sqlite3_finalize(stmt_);
}

void Statement::prepareForBinding() {
    if (stepped_) {
        reset();
    }
}

void Statement::reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    stepped_ = false;
}

Statement &Statement::bind(int index, std::int64_t value) {
    prepareForBinding();
    sqlite3_bind_int64(stmt_, index, value);
    return *this;
}

Statement &Statement::bind(int index, const std::string &text) {
    prepareForBinding();
    sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
}

Statement &Statement::bindBlob(int index, const std::string &bytes) {
    prepareForBinding();
    if (bytes.empty()) {
        sqlite3_bind_zeroblob(stmt_, index, 0); // an empty value, not NULL
    } else {
        sqlite3_bind_blob64(stmt_, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
    }
    return *this;
}

Statement &Statement::bindNull(int index) {
    prepareForBinding();
    sqlite3_bind_null(stmt_, index);
    return *this;
}

Statement &Statement::bindReal(int index, double value) {
    prepareForBinding();
    if (std::isnan(value)) {
        sqlite3_bind_text(stmt_, index, kNaNText, -1, SQLITE_STATIC);
    } else {
        sqlite3_bind_double(stmt_, index, value);
    }
    return *this;
}

Statement &Statement::bindOptionalReal(int index, const std::optional<double> &value) {
    return value ? bindReal(index, *value) : bindNull(index);
}

Statement &Statement::bindReference(int index, std::int64_t id) {
    return id == 0 ? bindNull(index) : bind(index, id);
}

bool Statement::step(const char *what) {
    stepped_ = true;
    const int code = sqlite3_step(stmt_);
    if (code == SQLITE_ROW) {
        return true;
    }
    if (code != SQLITE_DONE) {
        sqlite3_reset(stmt_);
        db_->fail(code, what);
    }
    return false;
}

void Statement::run(const char *what) {
    while (step(what)) {
    }
    reset();
}

bool Statement::isNull(int column) const {
    return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::int64_t Statement::integer(int column) const {
    return sqlite3_column_int64(stmt_, column);
}

std::string Statement::text(int column) const {
    const auto *data = reinterpret_cast<const char *>(sqlite3_column_text(stmt_, column));
    const int size = sqlite3_column_bytes(stmt_, column);
    return data ? std::string(data, static_cast<std::size_t>(size)) : std::string();
}

std::string Statement::blob(int column) const {
    const auto *data = static_cast<const char *>(sqlite3_column_blob(stmt_, column));
    const int size = sqlite3_column_bytes(stmt_, column);
    return data ? std::string(data, static_cast<std::size_t>(size)) : std::string();
}

double Statement::real(int column) const {
    switch (sqlite3_column_type(stmt_, column)) {
    case SQLITE_NULL:
    case SQLITE_TEXT: // 'NaN', see bindReal
        return std::numeric_limits<double>::quiet_NaN();
    default:
        return sqlite3_column_double(stmt_, column);
    }
}

std::optional<double> Statement::optionalReal(int column) const {
    if (isNull(column)) {
        return std::nullopt;
    }
    return real(column);
}

Transaction::Transaction(Database &db) : db_(db) {
    db_.exec("BEGIN IMMEDIATE", "begin a transaction");
}

Transaction::~Transaction() {
    if (open_) {
        sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    }
}

void Transaction::commit() {
    db_.exec("COMMIT", "commit");
    open_ = false;
}

} // namespace headroom::project
