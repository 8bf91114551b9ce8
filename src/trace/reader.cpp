// SPDX-License-Identifier: BSD-3-Clause
#include "trace/reader.hpp"

#include "core/update_period.hpp"
#include "trace/block_codec.hpp"
#include "trace/damage.hpp"
#include "trace/schema.hpp"
#include "trace/sort.hpp"
#include "trace/time_range.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <span>
#include <string_view>

namespace jp::trace {
namespace {

std::optional<double> opt_double(const Statement& s, int col) {
    return s.column_is_null(col) ? std::nullopt : std::optional<double>{s.column_double(col)};
}
std::optional<int> opt_int(const Statement& s, int col) {
    return s.column_is_null(col) ? std::nullopt
                                 : std::optional<int>{static_cast<int>(s.column_int(col))};
}

Channel channel_from_row(const Statement& s) {
    Channel c;
    c.name = s.column_text(0);
    c.domain = domain_from_string(s.column_text(1)).value_or(Domain::other);
    c.quantity = quantity_from_string(s.column_text(2)).value_or(Quantity::power);
    c.provenance = provenance_from_string(s.column_text(3)).value_or(Provenance::measured);
    c.backend = s.column_text(4);
    c.source = s.column_text(5);
    c.device = s.column_text(6);
    c.wrap_joules = opt_double(s, 7);
    c.limit_watts = opt_double(s, 8);
    c.counted = s.column_int(9) != 0;
    c.parent = s.column_text(10);
    // Traces before these columns: what the backend's name tells.
    c.update_ns = s.column_count() > 11 && !s.column_is_null(11) ? std::optional{s.column_int(11)}
                                                                 : known_update_ns(c.backend);
    if (s.column_count() > 12 && !s.column_is_null(12)) {
        c.averaging_ns = s.column_int(12);
    }
    if (s.column_count() > 13 && !s.column_is_null(13)) {
        c.profile_of = s.column_text(13);
    }
    c.mean_since_previous = is_mean_since_previous(c); // not stored
    return c;
}

RunInfo run_from_row(const Statement& s) {
    RunInfo r;
    r.id = s.column_int(0);
    r.label = s.column_text(1);
    r.kind = s.column_text(2);
    r.repeat = static_cast<int>(s.column_int(3));
    r.command = s.column_text(4);
    r.start_ns = s.column_int(5);
    if (!s.column_is_null(6)) {
        r.end_ns = s.column_int(6);
    }
    r.start_utc = s.column_text(7);
    r.exit_code = opt_int(s, 8);
    r.signal = opt_int(s, 9);
    r.monitor_cpu_s = s.column_double(10);
    r.status = s.column_text(11);
    return r;
}

// A time (or duration) beyond k_max_time_ns: the file is corrupt.
Error time_out_of_range(const std::filesystem::path& path, std::string_view what, std::int64_t t) {
    return Error{ErrorKind::parse,
                 path.string(),
                 fmt::format("{} of {} ns is out of range (the file is corrupt)", what, t),
                 {}};
}

// The first time of `points` out of range, as an error.
Result<void> check_times(const std::filesystem::path& path, std::span<const TimedValue> points) {
    for (const auto& p : points) {
        if (!time_in_range(p.t_ns)) {
            return std::unexpected(time_out_of_range(path, "a sample time", p.t_ns));
        }
    }
    return {};
}

} // namespace

Result<Reader> Reader::open(const std::filesystem::path& path) {
    std::error_code ec;
    const auto st = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(st)) {
        return fail(ErrorKind::not_found, path.string(), "no such trace file");
    }
    if (!std::filesystem::is_regular_file(st)) {
        return fail(ErrorKind::parse, path.string(),
                    std::filesystem::is_directory(st)
                        ? "a directory, not a trace file"
                        : "not a regular file (a device, pipe or socket), so not a trace");
    }
    // Read-only, always: a reader never writes into a trace, not even to
    // recover the WAL of a killed writer (SQLite reads the WAL as it is).
    auto db = Database::open(path, Database::Mode::read_only);
    if (!db) {
        return std::unexpected(db.error());
    }
    return from_database(std::move(*db), path);
}

Result<Reader> Reader::from_bytes(std::string_view bytes, const std::filesystem::path& name) {
    auto db = Database::open_bytes(bytes, name.string());
    if (!db) {
        return std::unexpected(db.error());
    }
    return from_database(std::move(*db), name);
}

namespace {

// Each row of a statement through fn (Result<void>: an error stops it); an error of
// SQLite's on the way (a damaged page) refuses the trace, never reads as its last row.
template <class Fn>
Result<void> each_row(Statement& s, const std::filesystem::path& path, Fn&& fn) {
    for (;;) {
        auto row = s.step();
        if (!row) {
            return row_error(path, row.error());
        }
        if (!*row) {
            return {};
        }
        if (Result<void> r = fn(); !r) {
            return r;
        }
    }
}

} // namespace

Result<Reader> Reader::from_database(Database db, const std::filesystem::path& path) {
    Reader reader{std::move(db)};
    reader.m_path = path;
    auto version = check_schema(reader.m_db);
    if (!version) {
        return std::unexpected(version.error());
    }
    reader.m_version = *version;
    if (auto r = reader.load(); !r) {
        return std::unexpected(r.error());
    }
    return reader;
}

Result<void> Reader::load() {
    auto meta = m_db.prepare("SELECT key, value FROM meta");
    if (!meta) {
        return std::unexpected(meta.error());
    }
    if (auto r = each_row(*meta, m_path,
                          [&]() -> Result<void> {
                              m_meta[meta->column_text(0)] = meta->column_text(1);
                              return {};
                          });
        !r) {
        return r;
    }
    auto has_timing = m_db.prepare(
        "SELECT count(*) FROM pragma_table_info('channel') WHERE name = 'averaging_ns'");
    if (!has_timing) {
        return std::unexpected(has_timing.error());
    }
    const bool timing = has_timing->step().value_or(false) && has_timing->column_int(0) > 0;
    auto has_profile =
        m_db.prepare("SELECT count(*) FROM pragma_table_info('channel') WHERE name = 'profile_of'");
    if (!has_profile) {
        return std::unexpected(has_profile.error());
    }
    const bool profile = has_profile->step().value_or(false) && has_profile->column_int(0) > 0;
    auto ch = m_db.prepare(fmt::format(
        "SELECT name, domain, quantity, provenance, backend, source, device, wrap_joules, "
        "limit_watts, counted, parent{}{} FROM channel ORDER BY id",
        timing ? ", update_ns, averaging_ns" : "", timing && profile ? ", profile_of" : ""));
    if (!ch) {
        return std::unexpected(ch.error());
    }
    if (auto r =
            each_row(*ch, m_path,
                     [&]() -> Result<void> {
                         m_channels.push_back(channel_from_row(*ch));
                         for (const auto& [what, d] :
                              {std::pair{"an update period", m_channels.back().update_ns},
                               std::pair{"an averaging window", m_channels.back().averaging_ns}}) {
                             if (d && (*d < 0 || *d > k_max_time_ns)) {
                                 return std::unexpected(time_out_of_range(m_path, what, *d));
                             }
                         }
                         return {};
                     });
        !r) {
        return r;
    }
    auto runs = m_db.prepare("SELECT id, label, kind, repeat, command, start_ns, end_ns, "
                             "start_utc, exit_code, signal, monitor_cpu_s, status FROM run "
                             "ORDER BY id");
    if (!runs) {
        return std::unexpected(runs.error());
    }
    return each_row(*runs, m_path, [&]() -> Result<void> {
        m_runs.push_back(run_from_row(*runs));
        for (const auto t : {std::optional{m_runs.back().start_ns}, m_runs.back().end_ns}) {
            if (t && !time_in_range(*t)) {
                return std::unexpected(time_out_of_range(m_path, "a run's start or end", *t));
            }
        }
        return {};
    });
}

Result<ChannelSamples> Reader::samples(std::int64_t run_id, std::size_t channel) {
    if (m_version == 1) {
        return samples_v1(run_id, channel);
    }
    auto stmt = m_db.prepare("SELECT count, data FROM block WHERE run_id = ? AND channel_id = ? "
                             "ORDER BY t_min_ns, id");
    if (!stmt) {
        return std::unexpected(stmt.error());
    }
    stmt->bind(1, run_id).bind(2, static_cast<std::int64_t>(channel) + 1);
    ChannelSamples out;
    for (;;) {
        auto row = stmt->step();
        if (!row) {
            return row_error(m_path, row.error());
        }
        if (!*row) {
            break;
        }
        if (auto r = decode_block(stmt->column_blob(1), stmt->column_int(0), out.points, out.flags,
                                  m_path.string());
            !r) {
            return std::unexpected(r.error());
        }
    }
    if (auto r = check_times(m_path, out.points); !r) {
        return std::unexpected(r.error());
    }
    sort_by_time(out);
    return out;
}

Result<ChannelSamples> Reader::samples_v1(std::int64_t run_id, std::size_t channel) {
    auto stmt = m_db.prepare("SELECT t_ns, value, flags FROM sample WHERE run_id = ? AND "
                             "channel_id = ? ORDER BY t_ns");
    if (!stmt) {
        return std::unexpected(stmt.error());
    }
    stmt->bind(1, run_id).bind(2, static_cast<std::int64_t>(channel) + 1);
    ChannelSamples out;
    for (;;) {
        auto row = stmt->step();
        if (!row) {
            return row_error(m_path, row.error());
        }
        if (!*row) {
            break;
        }
        out.points.push_back({stmt->column_int(0), stmt->column_double(1)});
        out.flags.push_back(static_cast<std::uint8_t>(stmt->column_int(2)));
    }
    if (auto r = check_times(m_path, out.points); !r) {
        return std::unexpected(r.error());
    }
    return out;
}

Result<std::vector<Marker>> Reader::markers(std::int64_t run_id) {
    auto stmt =
        m_db.prepare("SELECT t_ns, kind, name FROM marker WHERE run_id = ? ORDER BY t_ns, rowid");
    if (!stmt) {
        return std::unexpected(stmt.error());
    }
    stmt->bind(1, run_id);
    std::vector<Marker> out;
    if (auto r = each_row(*stmt, m_path,
                          [&]() -> Result<void> {
                              out.push_back({run_id, stmt->column_int(0), stmt->column_text(1),
                                             stmt->column_text(2)});
                              if (!time_in_range(out.back().t_ns)) {
                                  return std::unexpected(time_out_of_range(
                                      m_path, "a marker's time", out.back().t_ns));
                              }
                              return {};
                          });
        !r) {
        return std::unexpected(r.error());
    }
    return out;
}

Result<std::vector<Event>> Reader::events(std::int64_t run_id) {
    auto stmt = m_db.prepare("SELECT channel_id, t_ns, kind, detail FROM event WHERE run_id = ? "
                             "ORDER BY t_ns");
    if (!stmt) {
        return std::unexpected(stmt.error());
    }
    stmt->bind(1, run_id);
    std::vector<Event> out;
    if (auto r = each_row(*stmt, m_path,
                          [&]() -> Result<void> {
                              const auto ch = stmt->column_is_null(0)
                                                  ? -1
                                                  : static_cast<int>(stmt->column_int(0)) - 1;
                              out.push_back({run_id, ch, stmt->column_int(1), stmt->column_text(2),
                                             stmt->column_text(3)});
                              if (!time_in_range(out.back().t_ns)) {
                                  return std::unexpected(time_out_of_range(
                                      m_path, "an event's time", out.back().t_ns));
                              }
                              return {};
                          });
        !r) {
        return std::unexpected(r.error());
    }
    return out;
}

Result<std::optional<std::int64_t>> Reader::last_sample_time(std::int64_t run_id) {
    auto stmt = m_db.prepare(m_version == 1 ? "SELECT max(t_ns) FROM sample WHERE run_id = ?"
                                            : "SELECT max(t_max_ns) FROM block WHERE run_id = ?");
    if (!stmt) {
        return std::unexpected(stmt.error());
    }
    stmt->bind(1, run_id);
    const auto row = stmt->step();
    if (!row) {
        return row_error(m_path, row.error());
    }
    if (!*row || stmt->column_is_null(0)) {
        return std::optional<std::int64_t>{};
    }
    const auto last = stmt->column_int(0);
    if (!time_in_range(last)) {
        return std::unexpected(time_out_of_range(m_path, "a sample time", last));
    }
    return std::optional<std::int64_t>{last};
}

} // namespace jp::trace
