#pragma once

#include <headroom/project.h>

#include <cstdint>
#include <optional>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace headroom::project {

// A write the storage refused (disk full, read-only, no permission, an I/O error): unlike a
// constraint failure, worth trying again once the user has made room.
class StorageError : public ProjectError {
public:
    using ProjectError::ProjectError;
};

// A thin RAII layer over the SQLite C API. Every failure becomes a ProjectError whose message
// names the project file, what was being done and SQLite's own explanation.
class Database {
public:
    enum class Mode { OpenExisting, OpenReadOnly, CreateNew };

    Database(const std::string &path, Mode mode);
    Database(Database &&other) noexcept;
    Database &operator=(Database &&other) noexcept;
    Database(const Database &) = delete;
    Database &operator=(const Database &) = delete;
    ~Database();

    const std::string &path() const { return path_; }
    sqlite3 *handle() const { return db_; }

    void exec(const std::string &sql, const char *what);
    std::int64_t pragmaInteger(const std::string &name);
    std::int64_t lastInsertId() const;
    int changes() const;

    // Throws ProjectError: "project 'PATH': WHAT: SQLITE MESSAGE". A damaged file (SQLITE_CORRUPT,
    // SQLITE_NOTADB) is reported as such, whatever was being done; storage trouble (full,
    // read-only, I/O) as a StorageError that names the cause.
    [[noreturn]] void fail(int code, const char *what) const;

private:
    std::string path_;
    sqlite3 *db_ = nullptr;
};

// A prepared statement. Parameters are 1-based, columns 0-based, as in SQLite.
class Statement {
public:
    Statement(Database &db, const char *sql);
    Statement(Statement &&other) noexcept;
    Statement(const Statement &) = delete;
    Statement &operator=(const Statement &) = delete;
    Statement &operator=(Statement &&) = delete;
    ~Statement();

    Statement &bind(int index, std::int64_t value);
    Statement &bind(int index, const std::string &text);
    Statement &bindBlob(int index, const std::string &bytes);
    Statement &bindNull(int index);
    // NaN is stored as the text 'NaN' (SQLite would turn it into NULL, which means "no value").
    Statement &bindReal(int index, double value);
    Statement &bindOptionalReal(int index, const std::optional<double> &value);
    // 0 means "no reference" and is stored as NULL (the column is a foreign key).
    Statement &bindReference(int index, std::int64_t id);

    // Runs one step: true while a row is available. The first bind after stepping resets the
    // statement, so it can be reused with new parameters.
    bool step(const char *what);
    // For INSERT/UPDATE/DELETE: steps to completion and resets the statement.
    void run(const char *what);
    void reset();

    bool isNull(int column) const;
    std::int64_t integer(int column) const;
    std::string text(int column) const;
    std::string blob(int column) const;
    // Reads what bindReal wrote; a NULL reads as NaN.
    double real(int column) const;
    std::optional<double> optionalReal(int column) const;

private:
    void prepareForBinding();

    Database *db_;
    sqlite3_stmt *stmt_ = nullptr;
    bool stepped_ = false;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back when destroyed before commit().
class Transaction {
public:
    explicit Transaction(Database &db);
    Transaction(const Transaction &) = delete;
    Transaction &operator=(const Transaction &) = delete;
    ~Transaction();

    void commit();

private:
    Database &db_;
    bool open_ = true;
};

} // namespace headroom::project
