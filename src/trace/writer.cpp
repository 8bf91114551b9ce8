// SPDX-License-Identifier: BSD-3-Clause
#include "trace/writer.hpp"

#include "trace/schema.hpp"
#include "trace/time_range.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

namespace jp::trace {

namespace {
constexpr std::string_view k_upsert_block =
    "INSERT OR REPLACE INTO block(id, run_id, channel_id, t_min_ns, t_max_ns, count, v_min, "
    "v_max, data) VALUES (?,?,?,?,?,?,?,?,?)";

constexpr std::string_view k_insert_event =
    "INSERT INTO event(run_id, channel_id, t_ns, kind, detail) VALUES (?,?,?,?,?)";
} // namespace

Writer::Writer(Database db, Statement block, Statement event)
    : m_db(std::move(db)), m_upsert_block(std::move(block)), m_insert_event(std::move(event)),
      m_file(m_db.path()) {}

Writer::~Writer() {
    if (m_db.is_open() && !m_in_memory) {
        m_insert_event.reset();
        (void)m_blocks.write(m_upsert_block);
        m_upsert_block.reset();
        (void)m_db.exec("COMMIT;");
        // A reader holding the trace open keeps it in WAL mode: not worth
        // making the end of a run wait for.
        m_db.set_busy_timeout(100);
        (void)m_db.exec("PRAGMA journal_mode=DELETE;");
    }
}

Result<Writer> Writer::create(const std::filesystem::path& path,
                              const std::map<std::string, std::string>& meta) {
    std::error_code ec;
    // Made here, empty, before SQLite opens it: O_EXCL | O_NOFOLLOW, so a name that exists
    // in any form (a file, a link planted in a shared directory, dangling or not) is
    // refused, and SQLite only ever opens the file this process made.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (errno == EEXIST || errno == ELOOP) {
            return fail(ErrorKind::config, path.string(),
                        "already exists (choose another -o path)");
        }
        return std::unexpected(errno_error(errno, path.string()));
    }
    ::close(fd);
    // A lambda, for the private constructor.
    auto created = [&]() -> Result<Writer> {
        auto db = Database::open(path, Database::Mode::create);
        if (!db) {
            return std::unexpected(db.error());
        }
        // Small pages keep an empty trace small (about 10 KiB); a full sample block and its row
        // fit one page. The writer appends and reads back only the b-tree's right edge: 256 KiB
        // of page cache (a second of 1 kHz samples is ~60 KiB), not SQLite's default 2 MiB,
        // which a long run at 1 ms filled with pages it never reads again.
        static constexpr std::array k_pragmas{
            "PRAGMA page_size=1024;", "PRAGMA cache_size=-256;", "PRAGMA journal_mode=WAL;",
            "PRAGMA synchronous=NORMAL;", "PRAGMA foreign_keys=ON;"};
        for (const char* pragma : k_pragmas) {
            if (auto r = db->exec(pragma); !r) {
                return std::unexpected(r.error());
            }
        }
        if (auto r = create_schema(*db); !r) {
            return std::unexpected(r.error());
        }
        auto block = db->prepare(k_upsert_block);
        auto event = db->prepare(k_insert_event);
        if (!block || !event) {
            return std::unexpected(!block ? block.error() : event.error());
        }
        Writer w{std::move(*db), std::move(*block), std::move(*event)};
        if (auto r = w.m_db.exec("BEGIN;"); !r) {
            return std::unexpected(r.error());
        }
        if (auto r = w.set_meta("format", "jouleprof-trace"); !r) {
            return std::unexpected(r.error());
        }
        for (const auto& [key, value] : meta) {
            if (auto r = w.set_meta(key, value); !r) {
                return std::unexpected(r.error());
            }
        }
        if (auto r = w.commit(); !r) {
            return std::unexpected(r.error());
        }
        return w;
    }();
    if (!created) { // nothing is left behind to block the next try with this name
        for (const char* companion : {"", "-wal", "-shm", "-journal"}) {
            std::filesystem::remove(path.string() + companion, ec);
        }
    }
    return created;
}

Result<void> Writer::set_meta(std::string_view key, std::string_view value) {
    auto stmt = m_db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)");
    if (!stmt) {
        return std::unexpected(stmt.error());
    }
    return stmt->bind(1, key).bind(2, value).run();
}

Result<void> Writer::add_channels(std::span<const Channel> channels) {
    auto stmt = m_db.prepare(
        "INSERT INTO channel(id, name, domain, quantity, unit, provenance, backend, source, "
        "device, wrap_joules, limit_watts, counted, parent, update_ns, averaging_ns, "
        "profile_of) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    if (!stmt) {
        return std::unexpected(stmt.error());
    }
    m_blocks.set_channel_count(channels.size());
    std::int64_t id = 1;
    for (const auto& c : channels) {
        stmt->bind(1, id++).bind(2, c.name).bind(3, to_string(c.domain));
        stmt->bind(4, to_string(c.quantity)).bind(5, unit_of(c.quantity));
        stmt->bind(6, to_string(c.provenance)).bind(7, c.backend).bind(8, c.source);
        stmt->bind(9, c.device).bind(10, c.wrap_joules).bind(11, c.limit_watts);
        stmt->bind(12, std::int64_t{c.counted ? 1 : 0}).bind(13, c.parent);
        stmt->bind(14, c.update_ns).bind(15, c.averaging_ns).bind(16, c.profile_of);
        if (auto r = stmt->run(); !r) {
            return r;
        }
    }
    return {};
}

Result<std::int64_t> Writer::begin_run(const RunInfo& run) {
    auto stmt = m_db.prepare("INSERT INTO run(label, kind, repeat, command, start_ns, start_utc, "
                             "status) VALUES (?,?,?,?,?,?,'running')");
    if (!stmt) {
        return std::unexpected(stmt.error());
    }
    stmt->bind(1, run.label).bind(2, run.kind).bind(3, std::int64_t{run.repeat});
    stmt->bind(4, run.command).bind(5, run.start_ns).bind(6, run.start_utc);
    if (auto r = stmt->run(); !r) {
        return std::unexpected(r.error());
    }
    return m_db.last_insert_id();
}

Result<void> Writer::end_run(const RunInfo& run) {
    auto stmt = m_db.prepare("UPDATE run SET end_ns=?, exit_code=?, signal=?, monitor_cpu_s=?, "
                             "status=?, start_ns=? WHERE id=?");
    if (!stmt) {
        return std::unexpected(stmt.error());
    }
    if (run.end_ns) {
        stmt->bind(1, *run.end_ns);
    } else {
        stmt->bind_null(1);
    }
    if (run.exit_code) {
        stmt->bind(2, std::int64_t{*run.exit_code});
    } else {
        stmt->bind_null(2);
    }
    if (run.signal) {
        stmt->bind(3, std::int64_t{*run.signal});
    } else {
        stmt->bind_null(3);
    }
    stmt->bind(4, run.monitor_cpu_s).bind(5, run.status).bind(6, run.start_ns).bind(7, run.id);
    return stmt->run();
}

Result<void> Writer::append(std::span<const SampleRecord> samples, std::int64_t run_id) {
    return m_blocks.add(samples, run_id, m_file.string());
}

Result<void> Writer::add_event(const Event& e) {
    m_insert_event.bind(1, e.run_id);
    if (e.channel >= 0) {
        m_insert_event.bind(2, std::int64_t{e.channel} + 1);
    } else {
        m_insert_event.bind_null(2);
    }
    m_insert_event.bind(3, e.t_ns).bind(4, e.kind).bind(5, e.detail);
    return m_insert_event.run();
}

Result<void> Writer::add_marker(const Marker& m) {
    auto stmt = m_db.prepare("INSERT INTO marker(run_id, t_ns, kind, name) VALUES (?,?,?,?)");
    if (!stmt) {
        return std::unexpected(stmt.error());
    }
    return stmt->bind(1, m.run_id).bind(2, m.t_ns).bind(3, m.kind).bind(4, m.name).run();
}

Result<void> Writer::add_summary(std::int64_t run_id, std::span<const SummaryRow> rows) {
    auto stmt = m_db.prepare("INSERT INTO summary(run_id, item, energy_j, avg_w, peak_w, "
                             "provenance) VALUES (?,?,?,?,?,?)");
    if (!stmt) {
        return std::unexpected(stmt.error());
    }
    for (const auto& row : rows) {
        stmt->bind(1, run_id).bind(2, row.item).bind(3, row.energy_j).bind(4, row.avg_w);
        stmt->bind(5, row.peak_w).bind(6, to_string(row.provenance));
        if (auto r = stmt->run(); !r) {
            return r;
        }
    }
    return {};
}

Result<void> Writer::add_read_times(std::int64_t run_id, std::span<const std::int64_t> longest_ns) {
    if (std::ranges::all_of(longest_ns, [](std::int64_t ns) { return ns <= 0; })) {
        return {}; // nothing recorded: traces without read times stay as they were
    }
    if (auto r = create_read_time_table(m_db); !r) {
        return r;
    }
    auto stmt = m_db.prepare(
        "INSERT OR REPLACE INTO read_time(run_id, channel_id, longest_ns) VALUES (?,?,?)");
    if (!stmt) {
        return std::unexpected(stmt.error());
    }
    for (std::size_t i = 0; i < longest_ns.size(); ++i) {
        if (longest_ns[i] <= 0) {
            continue;
        }
        stmt->bind(1, run_id)
            .bind(2, static_cast<std::int64_t>(i + 1))
            .bind(3, std::min(longest_ns[i], k_max_read_ns)); // a stalled call: a minute
        if (auto r = stmt->run(); !r) {
            return r;
        }
    }
    return {};
}

Result<void> Writer::add_usage(std::int64_t run_id, const Usage& usage) {
    if (auto r = create_usage_tables(m_db); !r) {
        return r;
    }
    auto facts = m_db.prepare("INSERT OR REPLACE INTO allocation(run_id, facts) VALUES (?,?)");
    if (!facts) {
        return std::unexpected(facts.error());
    }
    facts->bind(1, run_id).bind(2, usage.facts);
    if (auto r = facts->run(); !r) {
        return r;
    }
    auto stmt =
        m_db.prepare("INSERT INTO usage(run_id, t_ns, package, job_s, busy_s) VALUES (?,?,?,?,?)");
    if (!stmt) {
        return std::unexpected(stmt.error());
    }
    for (const auto& u : usage.records) {
        stmt->bind(1, run_id).bind(2, u.t_ns).bind(3, std::int64_t{u.package});
        stmt->bind(4, u.job_s).bind(5, u.busy_s);
        if (auto r = stmt->run(); !r) {
            return r;
        }
    }
    if (usage.gpus.empty()) {
        return {};
    }
    auto gpu = m_db.prepare(
        "INSERT INTO gpu_use(run_id, t_ns, gpu, job, other, unknown) VALUES (?,?,?,?,?,?)");
    if (!gpu) {
        return std::unexpected(gpu.error());
    }
    for (const auto& g : usage.gpus) {
        gpu->bind(1, run_id).bind(2, g.t_ns).bind(3, std::int64_t{g.gpu});
        gpu->bind(4, std::int64_t{g.job}).bind(5, std::int64_t{g.other});
        gpu->bind(6, std::int64_t{g.unknown});
        if (auto r = gpu->run(); !r) {
            return r;
        }
    }
    return {};
}

Result<void> Writer::commit() {
    if (auto r = m_blocks.write(m_upsert_block); !r) {
        return r;
    }
    if (auto r = m_db.exec("COMMIT;"); !r) {
        return r;
    }
    m_blocks.committed();
    return m_db.exec("BEGIN;");
}

Result<void> Writer::prepare_inserts() {
    auto block = m_db.prepare(k_upsert_block);
    auto event = m_db.prepare(k_insert_event);
    if (!block || !event) {
        return std::unexpected(!block ? block.error() : event.error());
    }
    m_upsert_block = std::move(*block);
    m_insert_event = std::move(*event);
    return {};
}

Result<void> Writer::move_to_memory() {
    if (m_in_memory) {
        return {};
    }
    m_upsert_block.reset();
    m_insert_event.reset();
    (void)m_db.exec("ROLLBACK;"); // SQLite may have rolled back already
    auto memory = Database::open_memory(m_file.string());
    if (!memory) {
        return std::unexpected(memory.error());
    }
    if (auto r = m_db.copy_to(*memory); !r) {
        (void)m_db.exec("BEGIN;");
        return r;
    }
    // The file's statements go before its connection does.
    m_upsert_block = Statement{};
    m_insert_event = Statement{};
    m_db = std::move(*memory);
    m_in_memory = true;
    for (const char* sql : {"PRAGMA foreign_keys=ON;", "BEGIN;"}) {
        if (auto r = m_db.exec(sql); !r) {
            return r;
        }
    }
    return prepare_inserts();
}

Result<void> Writer::save_to_file() {
    if (auto r = commit(); !r) {
        return r;
    }
    auto file = Database::open(m_file, Database::Mode::create);
    if (!file) {
        return std::unexpected(file.error());
    }
    if (auto r = m_db.copy_to(*file); !r) {
        return r;
    }
    // One file, as a writer that never left the disk leaves it.
    return file->exec("PRAGMA journal_mode=DELETE;");
}

Result<Database> Writer::snapshot() {
    if (auto r = commit(); !r) {
        return std::unexpected(r.error());
    }
    auto copy = Database::open_memory(m_file.string());
    if (!copy) {
        return std::unexpected(copy.error());
    }
    if (auto r = m_db.copy_to(*copy); !r) {
        return std::unexpected(r.error());
    }
    return copy;
}

} // namespace jp::trace
