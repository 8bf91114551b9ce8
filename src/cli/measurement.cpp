#include "cli/measurement.hpp"

#include "cli/commands.hpp"
#include "cli/job_markers.hpp"
#include "cli/recorder.hpp"
#include "cli/status_line.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "jp_version.hpp"
#include "process/runner.hpp"
#include "report/format.hpp"
#include "sensors/registry.hpp"

#include <cstdio>
#include <fmt/format.h>
#include <unistd.h>

namespace jp::cli {
namespace {

std::string join_command(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& a : argv) {
        if (!out.empty()) {
            out += ' ';
        }
        const bool plain = !a.empty() && a.find_first_of(" \t'\"$\\") == std::string::npos;
        out += plain ? a : "'" + a + "'";
    }
    return out;
}

std::filesystem::path default_trace_path() {
    char buf[32];
    const auto utc = std::string{format_utc(wall_ns(), buf)};
    std::string stamp;
    for (char c : utc.substr(0, 19)) {
        if (c != '-' && c != ':') {
            stamp += c == 'T' ? '-' : c;
        }
    }
    return fmt::format("jouleprof-{}-{}.jptrace", stamp, ::getpid());
}

std::map<std::string, std::string> trace_meta(const RunOptions& o,
                                              const sensors::Host& host,
                                              const Config& config,
                                              const ClockAnchor& epoch) {
    char host_name[256] = {};
    ::gethostname(host_name, sizeof host_name - 1);
    char buf[32];
    std::map<std::string, std::string> meta{
        {"jouleprof_version", JP_VERSION},
        {"host", host_name},
        {"command", join_command(o.command)},
        {"label", o.label},
        {"interval_ns", std::to_string(o.interval.count())},
        {"epoch_mono_ns", std::to_string(epoch.mono)},
        {"epoch_wall_ns", std::to_string(epoch.wall)},
        {"epoch_utc", std::string{format_utc(epoch.wall, buf)}},
        {"sysfs_root", host.sysfs_root.string()},
    };
    if (config.node.rest_watts) {
        meta["node.rest_watts"] = fmt::format("{}", *config.node.rest_watts);
    }
    if (config.node.rated_watts) {
        meta["node.rated_watts"] = fmt::format("{}", *config.node.rated_watts);
    }
    return meta;
}

struct Session {
    const RunOptions& options;
    Sampler& sampler;
    Recorder& recorder;
    JobMarkers& markers;
    std::int64_t epoch;
    bool estimated;
};

trace::RunInfo new_run(const Session& s, std::string kind, int repeat) {
    trace::RunInfo run;
    run.label = s.options.label;
    run.kind = std::move(kind);
    run.repeat = repeat;
    run.command = join_command(s.options.command);
    char buf[32];
    run.start_utc = std::string{format_utc(wall_ns(), buf)};
    run.start_ns = mono_ns() - s.epoch;
    return run;
}

// Returns the signal that interrupted the baseline, if any.
std::optional<int> idle_baseline(Session& s) {
    auto run = new_run(s, "baseline", 1);
    run.command = "(idle baseline)";
    s.recorder.begin_run(run);
    const double cpu0 = process_cpu_seconds();
    run.start_ns = s.sampler.begin(run.id);
    s.recorder.end_run(run);
    const auto sig =
        process::sleep_unless_signalled(s.epoch + run.start_ns + s.options.baseline.count());
    run.end_ns = s.sampler.end();
    run.monitor_cpu_s = process_cpu_seconds() - cpu0;
    run.status = sig ? "failed" : "complete";
    run.exit_code = 0;
    s.recorder.end_run(run);
    return sig;
}

// Runs the command once under measurement; returns its shell exit code.
int measured_run(Session& s, const std::string& kind, int repeat, std::string& failure) {
    auto run = new_run(s, kind, repeat);
    if (auto program = process::resolve_program(s.options.command[0]); !program) {
        failure = program.error().message();
        return program.error().kind == ErrorKind::not_found ? 127 : 126;
    }
    s.recorder.begin_run(run); // the run id goes into the job's environment
    auto job = s.markers.prepare(run.id);
    auto child = process::Child::spawn(s.options.command, job.env, job.stdio);
    if (!child) {
        failure = child.error().message();
        s.markers.ended(mono_ns());
        run.end_ns = run.start_ns;
        run.status = "failed";
        s.recorder.end_run(run);
        return child.error().kind == ErrorKind::not_found ? 127 : 126;
    }
    s.markers.spawned();
    const double cpu0 = process_cpu_seconds();
    run.start_ns = s.sampler.begin(run.id);
    s.markers.started(s.epoch + run.start_ns);
    if (auto released = child->release(); !released) {
        failure = fmt::format("cannot run '{}': {}", s.options.command[0], released.error().detail);
        auto st = child->wait(100, {});
        run.end_ns = s.sampler.end();
        s.markers.ended(s.epoch + *run.end_ns);
        run.status = "failed";
        run.exit_code = st.shell_code();
        s.recorder.end_run(run);
        return st.shell_code();
    }
    s.recorder.end_run(run); // the exact start, committed for readers now
    StatusLine status{s.options.live && ::isatty(STDERR_FILENO) == 1};
    const auto st = child->wait(500, [&] {
        status.update(static_cast<double>(mono_ns() - s.epoch - run.start_ns) * 1e-9,
                      s.sampler.live(), s.estimated);
    });
    run.end_ns = s.sampler.end();
    s.markers.ended(s.epoch + *run.end_ns);
    status.clear();
    run.monitor_cpu_s = process_cpu_seconds() - cpu0;
    run.status = "complete";
    run.exit_code = st.signal ? std::optional<int>{} : std::optional<int>{st.code};
    run.signal = st.signal;
    s.recorder.end_run(run);
    return st.shell_code();
}

void write_summaries(const std::filesystem::path& path, Recorder& recorder) {
    auto reader = trace::Reader::open(path);
    if (!reader) {
        return;
    }
    for (const auto& run : reader->runs()) {
        auto s = report::summarize_run(*reader, run);
        if (!s) {
            continue;
        }
        std::vector<trace::SummaryRow> rows{
            {"node", s->node.energy_j, s->node.avg_w, s->node.peak_w, s->node.provenance}};
        for (const auto& p : s->parts) {
            rows.push_back({p.name, p.energy_j, p.avg_w, p.peak_w, p.provenance});
        }
        if (s->rest) {
            rows.push_back(
                {"rest", s->rest->energy_j, s->rest->avg_w, std::nullopt, s->rest->provenance});
        }
        recorder.add_summary(run.id, rows);
    }
}

} // namespace

int run_measurement(const RunOptions& o, const sensors::Host& host, const Config& config) {
    auto rules = parse_mark_regexes(o.mark_regex);
    if (!rules) {
        JP_LOG_ERROR("--mark-regex {}", rules.error());
        return 2;
    }
    auto found = sensors::discover_all(host);
    for (const auto& note : found.notes) {
        JP_LOG_INFO("{}", note);
    }
    for (const auto& f : found.unreadable) {
        JP_LOG_WARN("{}: {} cannot be read: {}", f.backend, f.what, f.reason);
    }
    auto table = sensors::channel_table(found.sensors);
    bool estimated = false;
    for (const auto& c : table) {
        estimated = estimated || c.provenance == Provenance::estimated;
    }
    if (table.empty()) {
        JP_LOG_WARN("no sensor can be read on this node: the command runs unmeasured "
                    "(see `jouleprof sensors`)");
    }
    auto path = o.output.empty() ? default_trace_path() : o.output;
    const auto epoch = ClockAnchor::now();
    auto writer = trace::Writer::create(path, trace_meta(o, host, config, epoch));
    if (!writer && o.output.empty()) {
        // The current directory may be read-only (a job's input folder): use the temp dir.
        const auto fallback = std::filesystem::temp_directory_path() / path.filename();
        JP_LOG_WARN("{}; writing the trace to {} instead", writer.error().message(),
                    fallback.string());
        path = fallback;
        writer = trace::Writer::create(path, trace_meta(o, host, config, epoch));
    }
    if (!writer) {
        JP_LOG_ERROR("{}", writer.error().message());
        return 2;
    }
    if (auto r = writer->add_channels(table); !r || !writer->commit()) {
        JP_LOG_ERROR("{}", r ? "cannot write the trace" : r.error().message());
        return 2;
    }
    SamplerConfig sc{o.interval, config.intervals};
    Sampler sampler{std::move(found.sensors), table, sc, epoch.mono};
    int exit_code = 0;
    {
        Recorder recorder{std::move(*writer), sampler};
        JobMarkers markers{std::move(*rules), recorder, epoch.mono, path};
        Session session{o, sampler, recorder, markers, epoch.mono, estimated};
        std::optional<int> interrupted;
        if (o.baseline.count() > 0) {
            interrupted = idle_baseline(session);
        }
        const int total = interrupted ? 0 : o.warmup + o.repeat;
        for (int i = 0; i < total; ++i) {
            if (i > 0 && o.cooldown.count() > 0) {
                interrupted = process::sleep_unless_signalled(mono_ns() + o.cooldown.count());
                if (interrupted) {
                    break;
                }
            }
            const bool warm = i < o.warmup;
            std::string failure;
            exit_code = measured_run(session, warm ? "warmup" : "measure",
                                     warm ? i + 1 : i - o.warmup + 1, failure);
            if (!failure.empty()) {
                JP_LOG_ERROR("{}", failure);
                return exit_code;
            }
            if (exit_code != 0 && i + 1 < total) {
                JP_LOG_WARN("the command exited with status {}: remaining repeats skipped",
                            exit_code);
                break;
            }
        }
        recorder.flush();
        write_summaries(path, recorder);
        if (interrupted) {
            JP_LOG_WARN("interrupted by signal {}: runs so far are kept in {}", *interrupted,
                        path.string());
            exit_code = 128 + *interrupted;
        }
    }
    if (o.print_summary && print_trace_summary(path, o.json, stderr) != 0) {
        JP_LOG_ERROR("the summary could not be computed; the trace is at {}", path.string());
    }
    return exit_code;
}

} // namespace jp::cli
