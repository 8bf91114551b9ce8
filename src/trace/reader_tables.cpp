// SPDX-License-Identifier: BSD-3-Clause
// The optional tables of a run a trace may hold, each read as absent when a trace from
// before it has none: the sampler's read times, and the job's CPU and GPU use.
#include "trace/damage.hpp"
#include "trace/reader.hpp"
#include "trace/time_range.hpp"

#include <algorithm>

namespace jp::trace {

Result<std::vector<std::int64_t>> Reader::read_times(std::int64_t run_id) {
    std::vector<std::int64_t> out(m_channels.size(), 0);
    if (!m_db.has_table("read_time")) {
        return out;
    }
    // A table that cannot be read as made (a damaged or foreign one) is as if none: a
    // bound without its read-time term, never a report refused for it.
    auto stmt = m_db.prepare("SELECT channel_id, MAX(longest_ns) FROM read_time "
                             "WHERE run_id = ? GROUP BY channel_id");
    if (!stmt) {
        return out;
    }
    stmt->bind(1, run_id);
    while (true) {
        auto row = stmt->step();
        if (!row) {
            std::ranges::fill(out, 0);
            return out;
        }
        if (!*row) {
            return out;
        }
        const auto id = stmt->column_int(0);
        const auto ns = stmt->column_int(1);
        // A call over a minute is no read time but a damaged row: left out, as if not recorded.
        if (id >= 1 && static_cast<std::size_t>(id) <= out.size() && ns > 0 &&
            ns <= k_max_read_ns) {
            out[static_cast<std::size_t>(id - 1)] = ns;
        }
    }
}

Result<std::optional<Usage>> Reader::usage(std::int64_t run_id) {
    if (!m_db.has_table("usage")) {
        return std::optional<Usage>{}; // no run recorded usage (or a trace from before it)
    }
    Usage u;
    if (m_db.has_table("allocation")) {
        if (auto facts = m_db.prepare("SELECT facts FROM allocation WHERE run_id = ?")) {
            facts->bind(1, run_id);
            const auto row = facts->step();
            if (!row && row.error().kind != ErrorKind::parse) { // not damage: the read's
                return row_error(m_path, row.error());
            }
            if (row.value_or(false)) {
                u.facts = facts->column_text(0);
            }
        }
    }
    auto stmt = m_db.prepare("SELECT t_ns, package, job_s, busy_s FROM usage WHERE run_id = ? "
                             "ORDER BY t_ns, package");
    if (!stmt) {
        return std::unexpected(stmt.error());
    }
    stmt->bind(1, run_id);
    constexpr std::size_t k_max_rows = 10'000'000; // 10 Hz for days, times a few packages
    for (;;) {
        const auto row = stmt->step();
        if (!row && row.error().kind != ErrorKind::parse) {
            return row_error(m_path, row.error());
        }
        if (!row) { // a damaged page: said by the report, as a damaged row is
            u.damaged = true;
            u.records.clear();
            break;
        }
        if (!*row) {
            break;
        }
        const auto package = stmt->column_int(1);
        const UsageRecord r{stmt->column_int(0), static_cast<std::int32_t>(package),
                            stmt->column_double(2), stmt->column_double(3)};
        if (!time_in_range(r.t_ns) || package < 0 || package > 4096 ||
            u.records.size() >= k_max_rows) {
            u.damaged = true; // said by the report; the node's figures stay
            u.records.clear();
            break;
        }
        u.records.push_back(r);
    }
    if (!u.damaged && m_db.has_table("gpu_use")) {
        if (auto r = read_gpu_use(run_id, u); !r) {
            return std::unexpected(r.error());
        }
    }
    if (u.facts.empty() && u.records.empty()) {
        return std::optional<Usage>{}; // this run recorded none
    }
    u.damaged = u.damaged || u.facts.empty();
    return std::optional{std::move(u)};
}

Result<void> Reader::read_gpu_use(std::int64_t run_id, Usage& u) {
    auto stmt = m_db.prepare("SELECT t_ns, gpu, job, other, unknown FROM gpu_use WHERE run_id = ? "
                             "ORDER BY t_ns, gpu");
    if (!stmt && stmt.error().kind != ErrorKind::parse) {
        return row_error(m_path, stmt.error()); // not the file's: the read's (busy, I/O)
    }
    if (!stmt) {
        u.gpus_damaged = true; // a table of another shape: said, the CPU's split stays
        return {};
    }
    stmt->bind(1, run_id);
    constexpr std::size_t k_max_rows = 10'000'000;
    constexpr std::int64_t k_max_count = 1 << 20; // processes on one GPU
    const auto count = [](std::int64_t v) { return v >= 0 && v <= k_max_count; };
    for (;;) {
        const auto row = stmt->step();
        if (!row && row.error().kind != ErrorKind::parse) {
            return row_error(m_path, row.error());
        }
        if (!row) {
            u.gpus_damaged = true;
            u.gpus.clear();
            break;
        }
        if (!*row) {
            break;
        }
        const auto gpu = stmt->column_int(1);
        const auto job = stmt->column_int(2);
        const auto other = stmt->column_int(3);
        const auto unknown = stmt->column_int(4);
        if (!time_in_range(stmt->column_int(0)) || gpu < 0 || gpu > 4096 || !count(job) ||
            !count(other) || !count(unknown) || u.gpus.size() >= k_max_rows) {
            u.gpus_damaged = true;
            u.gpus.clear();
            break;
        }
        u.gpus.push_back({stmt->column_int(0), static_cast<std::int32_t>(gpu),
                          static_cast<std::int32_t>(job), static_cast<std::int32_t>(other),
                          static_cast<std::int32_t>(unknown)});
    }
    return {};
}

} // namespace jp::trace
