// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Thin RAII wrappers over the SQLite C API: a connection and prepared statements.
#include "core/error.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace jp::trace {

class Statement;

class Database {
public:
    enum class Mode { create, read_only };
    static Result<Database> open(const std::filesystem::path& path, Mode mode);
    // An empty database in this process's memory; `name` is what errors call it.
    static Result<Database> open_memory(std::string name);
    // A read-only copy of a database file's bytes, held in memory (as hardened as read_only).
    static Result<Database> open_bytes(std::string_view bytes, const std::string& name);
    Database(Database&& other) noexcept;
    Database& operator=(Database&& other) noexcept;
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;
    ~Database();
    [[nodiscard]] bool is_open() const noexcept { return m_db != nullptr; }
    // How long a statement waits for another connection's lock.
    void set_busy_timeout(int ms) noexcept;

    Result<void> exec(std::string_view sql);
    Result<Statement> prepare(std::string_view sql);
    // Whether a table of that name exists (an optional table, or one a newer version adds).
    [[nodiscard]] bool has_table(const std::string& name);
    // Replaces everything in `to` with this database's committed content (SQLite's backup API).
    Result<void> copy_to(Database& to);
    [[nodiscard]] std::int64_t last_insert_id() const noexcept;
    [[nodiscard]] std::string last_error() const;
    [[nodiscard]] const std::string& path() const noexcept { return m_path; }

private:
    Database(sqlite3* db, std::string path) : m_db(db), m_path(std::move(path)) {}
    sqlite3* m_db = nullptr;
    std::string m_path;
};

class Statement {
public:
    Statement() = default; // none: a statement to assign later
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&& other) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement();

    // Binding indexes start at 1, as in SQLite.
    Statement& bind(int index, std::int64_t value);
    Statement& bind(int index, double value);
    Statement& bind(int index, std::string_view value);
    Statement& bind(int index, std::optional<double> value);
    Statement& bind(int index, std::optional<std::int64_t> value);
    Statement& bind_null(int index);
    // Bytes that must stay alive until run() or step() returns.
    Statement& bind_blob(int index, std::string_view bytes);

    // Runs a statement that returns no rows and resets it.
    Result<void> run();
    // Steps once: true when a row is available.
    Result<bool> step();
    void reset() noexcept;

    [[nodiscard]] std::int64_t column_int(int col) const noexcept;
    [[nodiscard]] double column_double(int col) const noexcept;
    [[nodiscard]] std::string column_text(int col) const;
    // Valid until the next step, reset or column call on this statement.
    [[nodiscard]] std::string_view column_blob(int col) const noexcept;
    [[nodiscard]] bool column_is_null(int col) const noexcept;
    [[nodiscard]] int column_count() const noexcept;

private:
    friend class Database;
    Statement(sqlite3_stmt* stmt, sqlite3* db) : m_stmt(stmt), m_db(db) {}
    sqlite3_stmt* m_stmt = nullptr;
    sqlite3* m_db = nullptr;
};

} // namespace jp::trace
