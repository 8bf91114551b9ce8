// SPDX-License-Identifier: BSD-3-Clause
#include "trace/schema.hpp"

#include "trace/damage.hpp"
#include "trace/types.hpp"

#include <fmt/format.h>

namespace jp::trace {
namespace {

// Keep in step with docs/trace-format.md.
constexpr std::string_view k_schema = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE channel (
    id INTEGER PRIMARY KEY,          -- index in the channel table + 1
    name TEXT NOT NULL UNIQUE,
    domain TEXT NOT NULL,            -- node cpu_package cpu_core cpu_uncore dram gpu psys other
    quantity TEXT NOT NULL,          -- energy | power | utilization
    unit TEXT NOT NULL,              -- J (cumulative since run start) | W | %
    provenance TEXT NOT NULL,        -- measured | derived | estimated
    backend TEXT NOT NULL,
    source TEXT NOT NULL,
    device TEXT NOT NULL,
    wrap_joules REAL,
    limit_watts REAL,
    counted INTEGER NOT NULL,        -- 1 if it adds to the node's parts
    parent TEXT NOT NULL,
    update_ns INTEGER,               -- how often the source changes the value, when known
    averaging_ns INTEGER,            -- the window each power reading averages (a BMC's), when known
    profile_of TEXT                  -- the energy counter this power channel profiles between anchors
);
CREATE TABLE run (
    id INTEGER PRIMARY KEY,
    label TEXT NOT NULL,
    kind TEXT NOT NULL,              -- measure | warmup | baseline
    repeat INTEGER NOT NULL,
    command TEXT NOT NULL,
    start_ns INTEGER NOT NULL,       -- since the trace epoch (meta epoch_*)
    end_ns INTEGER,                  -- NULL while running or if the monitor died
    start_utc TEXT NOT NULL,
    exit_code INTEGER,
    signal INTEGER,
    monitor_cpu_s REAL NOT NULL DEFAULT 0,
    status TEXT NOT NULL             -- running | complete | failed
);
CREATE TABLE block (                 -- one channel's samples of one run, packed
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES run(id),
    channel_id INTEGER NOT NULL REFERENCES channel(id),
    t_min_ns INTEGER NOT NULL,       -- earliest and latest sample time in the block
    t_max_ns INTEGER NOT NULL,
    count INTEGER NOT NULL,          -- samples in data
    v_min REAL,                      -- smallest and largest value (NULL: all NaN)
    v_max REAL,
    data BLOB NOT NULL               -- see docs/trace-format.md, "Sample blocks"
);
CREATE INDEX block_by_channel ON block(run_id, channel_id, t_min_ns);
CREATE TABLE marker (
    run_id INTEGER NOT NULL REFERENCES run(id),
    t_ns INTEGER NOT NULL,
    kind TEXT NOT NULL,              -- begin | end | point
    name TEXT NOT NULL
);
CREATE TABLE event (
    run_id INTEGER NOT NULL,
    channel_id INTEGER,
    t_ns INTEGER NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE TABLE summary (
    run_id INTEGER NOT NULL REFERENCES run(id),
    item TEXT NOT NULL,              -- node | rest | a channel name
    energy_j REAL,
    avg_w REAL,
    peak_w REAL,
    provenance TEXT NOT NULL
);
)sql";

// Made with a run's first usage (Writer::add_usage), so traces without any stay small.
constexpr std::string_view k_usage_schema = R"sql(
CREATE TABLE IF NOT EXISTS usage (                 -- CPU time for attribution (docs/attribution.md)
    run_id INTEGER NOT NULL REFERENCES run(id),
    t_ns INTEGER NOT NULL,
    package INTEGER NOT NULL,        -- CPU package
    job_s REAL NOT NULL,             -- the job's CPU seconds on it since the run began
    busy_s REAL NOT NULL             -- every process's busy CPU seconds on it, likewise
);
CREATE TABLE IF NOT EXISTS gpu_use (               -- who had each GPU the job holds
    run_id INTEGER NOT NULL REFERENCES run(id),
    t_ns INTEGER NOT NULL,
    gpu INTEGER NOT NULL,            -- the GPU's index (channel gpuN)
    job INTEGER NOT NULL,            -- compute processes on it in the job
    other INTEGER NOT NULL,          -- outside it
    unknown INTEGER NOT NULL         -- PIDs /proc does not show (another namespace, gone)
);
CREATE TABLE IF NOT EXISTS allocation (            -- what the job was given, how its use was read
    run_id INTEGER PRIMARY KEY REFERENCES run(id),
    facts TEXT NOT NULL              -- JSON (docs/attribution.md)
);
)sql";

// Made at a run's end by a monitor that records how long its reads took.
constexpr std::string_view k_read_time_schema = R"sql(
CREATE TABLE IF NOT EXISTS read_time (              -- the run's longest read call per channel
    run_id INTEGER NOT NULL REFERENCES run(id),
    channel_id INTEGER NOT NULL REFERENCES channel(id),
    longest_ns INTEGER NOT NULL,     -- its values are stamped at their call's middle
    PRIMARY KEY (run_id, channel_id)
) WITHOUT ROWID;
)sql";

} // namespace

Result<void> create_read_time_table(Database& db) {
    return db.exec(k_read_time_schema);
}

Result<void> create_usage_tables(Database& db) {
    return db.exec(k_usage_schema);
}

Result<void> create_schema(Database& db) {
    if (auto r = db.exec(k_schema); !r) {
        return r;
    }
    return db.exec(fmt::format("PRAGMA user_version = {};", k_schema_version));
}

Result<int> check_schema(Database& db) {
    // Said from the file's header where it shows the damage (empty, not SQLite, cut short).
    const auto refuse = [&](const std::string& otherwise) {
        return fail(ErrorKind::parse, db.path(), file_damage(db.path()).value_or(otherwise));
    };
    auto stmt = db.prepare("PRAGMA user_version;");
    if (!stmt) {
        return refuse("a damaged trace: SQLite cannot read it (" + stmt.error().detail + ")");
    }
    auto row = stmt->step();
    if (!row || !*row) {
        return refuse("a damaged trace: SQLite cannot read it" +
                      (row ? std::string{} : " (" + row.error().detail + ")"));
    }
    const auto version = static_cast<int>(stmt->column_int(0));
    auto has_meta = db.prepare("SELECT value FROM meta WHERE key = 'format'");
    if (!has_meta || !has_meta->step().value_or(false) ||
        has_meta->column_text(0) != "jouleprof-trace") {
        return refuse("an SQLite file, but not a jouleprof trace (no meta table naming the "
                      "format)");
    }
    if (version > k_schema_version || version < 1) {
        return fail(ErrorKind::unsupported, db.path(),
                    fmt::format("trace schema version {} (this build reads 1..{})", version,
                                k_schema_version));
    }
    return version;
}

} // namespace jp::trace
