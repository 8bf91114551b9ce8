// SPDX-License-Identifier: BSD-3-Clause
#include "report/export.hpp"

#include "report/format.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace jp::report {
namespace {

double seconds(std::int64_t ns) {
    return static_cast<double>(ns) * 1e-9;
}

// What the bound rests on beyond the sensors' limits (docs/uncertainty.md), as JSON's keys
// name it without `bound_assumes_`: `peak`, `profile`, `field`, `windows`, `;`-separated.
std::string assumption_keys(const Assumptions& a) {
    std::string out;
    const auto add = [&](bool on, const char* key) {
        if (on) {
            out += out.empty() ? key : std::string{";"} + key;
        }
    };
    add(a.peak, "peak");
    add(a.profile, "profile");
    add(a.field, "field");
    add(a.windows, "windows");
    return out;
}

// A number as CSV gives it: 15 significant digits, every digit a double holds for certain,
// so that a figure computed as 1.2 × 3 reads 3.6, not 3.5999999999999996 (the shortest text
// that reads back to the same bits). JSON keeps that shortest text.
std::string num(double v) {
    return fmt::format("{:.15g}", v);
}

std::string opt_text(const std::optional<double>& v) {
    return v ? num(*v) : std::string{};
}

void item_rows(std::ostream& out,
               const trace::RunInfo& run,
               const std::string& phase,
               const Figures& f) {
    const auto row = [&](const Item& it) {
        out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},", run.id, csv_field(run.label),
                           run.kind, run.repeat, csv_field(phase), csv_field(it.name),
                           num(it.energy_j), num(it.avg_w), opt_text(it.peak_w), num(f.runtime_s),
                           to_string(it.provenance), it.counted ? 1 : 0);
        // The sensors' bound (empty where the figure has none), then the job's share.
        const auto& b = it.bound;
        out << fmt::format("{},{},{},{},", b ? num(b->low) : "", b ? num(b->high) : "",
                           b ? b->dominant : "", b ? (it.not_measurable() ? "0" : "1") : "");
        const auto& s = it.share;
        const auto& jb = s ? s->job_bound : std::nullopt;
        out << fmt::format("{},{},{},{},", s ? num(s->job_j()) : "", jb ? num(jb->low) : "",
                           jb ? num(jb->high) : "", b ? assumption_keys(b->assumed) : "");
        // Where the sensors' bounds put the true peak (a counter's, and the node's), and
        // what that rests on.
        const auto& pk = it.peak_bound;
        out << fmt::format("{},{},{},", pk ? num(pk->low_w) : "", pk ? num(pk->high_w) : "",
                           pk ? assumption_keys(pk->assumed) : "");
        // What the table says beside the provenance: the sum of the parts only (the rest has
        // no meter), a counter that never moved, a channel lost (its last reading's second).
        out << fmt::format("{},{},{}\n", it.lower_bound ? 1 : 0, it.never_changed ? 1 : 0,
                           opt_text(it.lost_at_s));
    };
    row(f.node);
    for (const auto& p : f.parts) {
        row(p);
    }
    if (f.rest) {
        row(*f.rest);
    }
    for (const auto& o : f.others) {
        row(o);
    }
}

Result<nlohmann::json> run_samples_json(trace::Reader& reader, const trace::RunInfo& run) {
    nlohmann::json samples = nlohmann::json::object();
    for (std::size_t c = 0; c < reader.channels().size(); ++c) {
        auto s = reader.samples(run.id, c);
        if (!s) {
            return std::unexpected(s.error());
        }
        nlohmann::json t = nlohmann::json::array();
        nlohmann::json v = nlohmann::json::array();
        for (const auto& p : s->points) {
            t.push_back(seconds(p.t_ns));
            v.push_back(p.value);
        }
        samples[reader.channels()[c].name] = {{"t_s", t}, {"value", v}, {"flags", s->flags}};
    }
    return samples;
}

nlohmann::json channel_json(const Channel& c) {
    nlohmann::json j{{"name", c.name},
                     {"domain", to_string(c.domain)},
                     {"quantity", to_string(c.quantity)},
                     {"unit", unit_of(c.quantity)},
                     {"provenance", to_string(c.provenance)},
                     {"backend", c.backend},
                     {"source", c.source},
                     {"counted", c.counted},
                     {"parent", c.parent},
                     {"profile_of", c.profile_of}};
    j["limit_watts"] = c.limit_watts ? nlohmann::json(*c.limit_watts) : nlohmann::json(nullptr);
    return j;
}

} // namespace

std::string csv_field(std::string_view s) {
    const bool formula =
        !s.empty() && std::string_view{"=+-@\t\r"}.find(s.front()) != std::string_view::npos;
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
        return formula ? "'" + std::string{s} : std::string{s};
    }
    std::string out = formula ? "\"'" : "\"";
    for (char c : s) {
        out += c == '"' ? "\"\"" : std::string(1, c);
    }
    return out + "\"";
}

Result<void> write_samples_csv(trace::Reader& reader, std::ostream& out) {
    out << "run_id,label,channel,quantity,unit,t_s,value,flags\n";
    for (const auto& run : reader.runs()) {
        for (std::size_t c = 0; c < reader.channels().size(); ++c) {
            const auto& ch = reader.channels()[c];
            auto s = reader.samples(run.id, c);
            if (!s) {
                return std::unexpected(s.error());
            }
            const auto prefix =
                fmt::format("{},{},{},{},{}", run.id, csv_field(run.label), csv_field(ch.name),
                            to_string(ch.quantity), unit_of(ch.quantity));
            for (std::size_t i = 0; i < s->points.size(); ++i) {
                out << fmt::format("{},{:.9f},{},{}\n", prefix, seconds(s->points[i].t_ns),
                                   num(s->points[i].value), s->flags[i]);
            }
        }
    }
    return {};
}

Result<void> write_markers_csv(trace::Reader& reader, std::ostream& out) {
    out << "run_id,label,t_s,kind,name\n";
    for (const auto& run : reader.runs()) {
        auto markers = reader.markers(run.id);
        if (!markers) {
            return std::unexpected(markers.error());
        }
        for (const auto& m : *markers) {
            out << fmt::format("{},{},{:.9f},{},{}\n", run.id, csv_field(run.label),
                               seconds(m.t_ns), csv_field(m.kind), csv_field(m.name));
        }
    }
    return {};
}

Result<void> write_summary_csv(trace::Reader& reader, std::ostream& out) {
    out << "run_id,label,kind,repeat,phase,item,energy_j,avg_w,peak_w,runtime_s,provenance,"
           "counted,energy_low_j,energy_high_j,bound_dominant,measurable,job_j,job_low_j,"
           "job_high_j,bound_assumes,peak_low_w,peak_high_w,peak_assumes,lower_bound,"
           "never_changed,lost_at_s\n";
    for (const auto& run : reader.runs()) {
        auto s = summarize_run(reader, run);
        if (!s) {
            return std::unexpected(s.error());
        }
        item_rows(out, run, "", *s);
        for (const auto& p : s->phase_totals) {
            item_rows(out, run, p.name, p);
        }
    }
    return {};
}

Result<nlohmann::json> trace_json(trace::Reader& reader) {
    nlohmann::json j{{"format", "jouleprof-export"}, {"meta", reader.meta()}};
    j["channels"] = nlohmann::json::array();
    for (const auto& c : reader.channels()) {
        j["channels"].push_back(channel_json(c));
    }
    j["runs"] = nlohmann::json::array();
    for (const auto& run : reader.runs()) {
        auto samples = run_samples_json(reader, run);
        auto markers = reader.markers(run.id);
        auto summary = summarize_run(reader, run);
        if (!samples || !markers || !summary) {
            return std::unexpected(!samples   ? samples.error()
                                   : !markers ? markers.error()
                                              : summary.error());
        }
        nlohmann::json r{{"id", run.id},           {"label", run.label},
                         {"kind", run.kind},       {"repeat", run.repeat},
                         {"command", run.command}, {"start_s", seconds(run.start_ns)},
                         {"status", run.status},   {"start_utc", run.start_utc}};
        r["end_s"] = run.end_ns ? nlohmann::json(seconds(*run.end_ns)) : nlohmann::json(nullptr);
        r["exit_code"] = run.exit_code ? nlohmann::json(*run.exit_code) : nlohmann::json(nullptr);
        r["signal"] = run.signal ? nlohmann::json(*run.signal) : nlohmann::json(nullptr);
        r["markers"] = nlohmann::json::array();
        for (const auto& m : *markers) {
            r["markers"].push_back({{"t_s", seconds(m.t_ns)}, {"kind", m.kind}, {"name", m.name}});
        }
        r["samples"] = std::move(*samples);
        r["summary"] = run_to_json(*summary, true); // an export keeps every occurrence
        j["runs"].push_back(std::move(r));
    }
    return j;
}

} // namespace jp::report
