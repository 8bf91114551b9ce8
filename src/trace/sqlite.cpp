// SPDX-License-Identifier: BSD-3-Clause
#include "trace/sqlite.hpp"

#include "core/text.hpp"

#include <algorithm>
#include <sqlite3.h>
#include <utility>

namespace jp::trace {

namespace {

// A trace may come from anyone: no schema-defined SQL functions or triggers
// run, the file is never written, corruption is caught per cell, and no
// single value or statement can claim unbounded memory.
void harden(sqlite3* db) {
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, nullptr);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 24);
    sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1 << 16);
    sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
    sqlite3_exec(db, "PRAGMA cell_size_check=ON; PRAGMA query_only=ON;", nullptr, nullptr, nullptr);
}

} // namespace

Result<Database> Database::open(const std::filesystem::path& path, Mode mode) {
    sqlite3* db = nullptr;
    int flags = SQLITE_OPEN_NOMUTEX;
    switch (mode) {
    case Mode::create:
        flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW;
        break;
    case Mode::read_only:
        flags |= SQLITE_OPEN_READONLY;
        break;
    }
    const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
    if (rc != SQLITE_OK) {
        std::string why = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
        sqlite3_close(db);
        return fail(ErrorKind::io, path.string(), "cannot open trace: " + why);
    }
    sqlite3_busy_timeout(db, 5000);
    if (mode == Mode::read_only) {
        harden(db);
    }
    return Database{db, path.string()};
}

Result<Database> Database::open_memory(std::string name) {
    sqlite3* db = nullptr;
    const int rc =
        sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        sqlite3_close(db);
        return fail(ErrorKind::io, name,
                    "cannot keep the trace in memory: " + std::string{sqlite3_errstr(rc)});
    }
    return Database{db, std::move(name)};
}

Result<Database> Database::open_bytes(std::string_view bytes, const std::string& name) {
    auto db = open_memory(name);
    if (!db) {
        return db;
    }
    const auto size = static_cast<sqlite3_int64>(bytes.size());
    auto* copy = static_cast<unsigned char*>(sqlite3_malloc64(bytes.empty() ? 1 : bytes.size()));
    if (copy == nullptr) {
        return fail(ErrorKind::io, name, "out of memory");
    }
    std::ranges::copy(bytes, copy);
    const int rc =
        sqlite3_deserialize(db->m_db, "main", copy, size, size,
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
    if (rc != SQLITE_OK) {
        return fail(ErrorKind::io, name, "cannot open trace: " + db->last_error());
    }
    harden(db->m_db);
    return db;
}

Result<void> Database::copy_to(Database& to) {
    sqlite3_backup* b = sqlite3_backup_init(to.m_db, "main", m_db, "main");
    if (b == nullptr) {
        return fail(ErrorKind::io, to.m_path, to.last_error());
    }
    const int step = sqlite3_backup_step(b, -1);
    const int finish = sqlite3_backup_finish(b);
    if (step != SQLITE_DONE || finish != SQLITE_OK) {
        return fail(ErrorKind::io, to.m_path, sqlite3_errstr(step != SQLITE_DONE ? step : finish));
    }
    return {};
}

Database::Database(Database&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)), m_path(std::move(other.m_path)) {}

Database& Database::operator=(Database&& other) noexcept {
    if (this != &other) {
        sqlite3_close(m_db);
        m_db = std::exchange(other.m_db, nullptr);
        m_path = std::move(other.m_path);
    }
    return *this;
}

void Database::set_busy_timeout(int ms) noexcept {
    sqlite3_busy_timeout(m_db, ms);
}

Database::~Database() {
    sqlite3_close(m_db);
}

Result<void> Database::exec(std::string_view sql) {
    char* err = nullptr;
    const std::string text{sql};
    if (sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string why = err != nullptr ? err : "unknown error";
        sqlite3_free(err);
        return fail(ErrorKind::io, m_path, why);
    }
    return {};
}

bool Database::has_table(const std::string& name) {
    auto has = prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    return has && has->bind(1, name).step().value_or(false);
}

Result<Statement> Database::prepare(std::string_view sql) {
    sqlite3_stmt* stmt = nullptr;
    const int rc =
        sqlite3_prepare_v2(m_db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
    if (rc != SQLITE_OK) {
        // The file's (parse): damaged, or a table of another shape than the query's (SQLite's
        // plain SQLITE_ERROR: no such table or column); anything else (busy, locked, out of
        // memory, an I/O error) is the reading's, as Statement::step() says.
        const int primary = rc & 0xff;
        const bool files =
            primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB || primary == SQLITE_ERROR;
        return fail(files ? ErrorKind::parse : ErrorKind::io, m_path, last_error());
    }
    return Statement{stmt, m_db};
}

std::int64_t Database::last_insert_id() const noexcept {
    return sqlite3_last_insert_rowid(m_db);
}
std::string Database::last_error() const {
    return sqlite3_errmsg(m_db);
}

Statement::Statement(Statement&& other) noexcept
    : m_stmt(std::exchange(other.m_stmt, nullptr)), m_db(other.m_db) {}

Statement& Statement::operator=(Statement&& other) noexcept {
    if (this != &other) {
        sqlite3_finalize(m_stmt);
        m_stmt = std::exchange(other.m_stmt, nullptr);
        m_db = other.m_db;
    }
    return *this;
}

Statement::~Statement() {
    sqlite3_finalize(m_stmt);
}

Statement& Statement::bind(int index, std::int64_t value) {
    sqlite3_bind_int64(m_stmt, index, value);
    return *this;
}
Statement& Statement::bind(int index, double value) {
    sqlite3_bind_double(m_stmt, index, value);
    return *this;
}
Statement& Statement::bind(int index, std::string_view value) {
    sqlite3_bind_text(m_stmt, index, value.data(), static_cast<int>(value.size()),
                      SQLITE_TRANSIENT);
    return *this;
}
Statement& Statement::bind_blob(int index, std::string_view bytes) {
    // SQLITE_STATIC: the caller keeps the bytes alive until the statement runs.
    sqlite3_bind_blob(m_stmt, index, bytes.data(), static_cast<int>(bytes.size()), SQLITE_STATIC);
    return *this;
}
Statement& Statement::bind(int index, std::optional<double> value) {
    return value ? bind(index, *value) : bind_null(index);
}
Statement& Statement::bind(int index, std::optional<std::int64_t> value) {
    return value ? bind(index, *value) : bind_null(index);
}
Statement& Statement::bind_null(int index) {
    sqlite3_bind_null(m_stmt, index);
    return *this;
}

Result<void> Statement::run() {
    const int rc = sqlite3_step(m_stmt);
    sqlite3_reset(m_stmt);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
        return fail(ErrorKind::io, "sqlite", sqlite3_errmsg(m_db));
    }
    return {};
}

Result<bool> Statement::step() {
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW) {
        return true;
    }
    if (rc == SQLITE_DONE) {
        return false;
    }
    // A damaged file is the file's (parse); anything else (busy, locked, out of memory, an
    // I/O error) is the reading's.
    const int primary = rc & 0xff;
    return fail(primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB ? ErrorKind::parse
                                                                      : ErrorKind::io,
                "sqlite", sqlite3_errmsg(m_db));
}

void Statement::reset() noexcept {
    sqlite3_reset(m_stmt);
}

std::int64_t Statement::column_int(int col) const noexcept {
    return sqlite3_column_int64(m_stmt, col);
}
double Statement::column_double(int col) const noexcept {
    return sqlite3_column_double(m_stmt, col);
}
std::string Statement::column_text(int col) const {
    // A trace may come from anyone: what it holds is shown and put into JSON,
    // so it is valid UTF-8 when it leaves here.
    const auto* text = sqlite3_column_text(m_stmt, col);
    if (text == nullptr) {
        return {};
    }
    return valid_utf8({reinterpret_cast<const char*>(text),
                       static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, col))});
}
std::string_view Statement::column_blob(int col) const noexcept {
    const auto* data = sqlite3_column_blob(m_stmt, col);
    if (data == nullptr) {
        return {};
    }
    return {static_cast<const char*>(data),
            static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, col))};
}
bool Statement::column_is_null(int col) const noexcept {
    return sqlite3_column_type(m_stmt, col) == SQLITE_NULL;
}
int Statement::column_count() const noexcept {
    return sqlite3_column_count(m_stmt);
}

} // namespace jp::trace
