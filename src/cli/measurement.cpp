// SPDX-License-Identifier: BSD-3-Clause
#include "cli/measurement.hpp"

#include "cli/commands.hpp"
#include "cli/measurement_state.hpp"
#include "cli/status_line.hpp"
#include "cli/trace_location.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "jp_version.hpp"
#include "process/runner.hpp"
#include "report/format.hpp"
#include "report/timing.hpp"
#include "sensors/nvml/processes.hpp"
#include "sensors/registry.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <set>
#include <unistd.h>

namespace jp::cli {
namespace {

using detail::Discovered;

std::map<std::string, std::string> trace_meta(const SessionOptions& o,
                                              const sensors::Host& host,
                                              const Config& config,
                                              const ClockAnchor& epoch) {
    char host_name[256] = {};
    ::gethostname(host_name, sizeof host_name - 1);
    char buf[32];
    std::map<std::string, std::string> meta{
        {"jouleprof_version", JP_VERSION},
        {"host", host_name},
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
    for (const auto& [key, value] : o.meta) {
        meta[key] = value;
    }
    return meta;
}

Discovered discover(const sensors::Host& host) {
    auto found = sensors::discover_all(host);
    for (const auto& note : found.notes) {
        JP_LOG_INFO("{}", note);
    }
    for (const auto& f : found.unreadable) {
        if (f.served_by.empty()) {
            JP_LOG_WARN("{}: {} cannot be read: {}{}{}", f.backend, f.what, f.reason,
                        f.hint.empty() ? "" : ". ", f.hint);
        } else {
            JP_LOG_INFO("{}: {} cannot be read ({}): {} serves it", f.backend, f.what, f.reason,
                        f.served_by);
        }
    }
    Discovered d;
    d.table = sensors::channel_table(found.sensors);
    d.sensors = std::move(found.sensors);
    d.idle = std::move(found.idle);
    d.ledger = std::move(found.ledger);
    for (const auto& c : d.table) {
        d.estimated = d.estimated || c.provenance == Provenance::estimated;
    }
    if (d.table.empty()) {
        JP_LOG_WARN("no sensor can be read on this node: the command runs unmeasured "
                    "(see `jouleprof sensors`)");
    }
    return d;
}

// The trace file where trace_location.hpp says.
Result<std::pair<trace::Writer, std::filesystem::path>>
create_trace(const std::filesystem::path& output, const std::map<std::string, std::string>& meta) {
    auto path = trace_path_for(output, [](const char* name) -> std::optional<std::string> {
        const char* v = std::getenv(name);
        return v != nullptr ? std::optional<std::string>{v} : std::nullopt;
    });
    if (!path) {
        return std::unexpected(path.error());
    }
    auto writer = trace::Writer::create(*path, meta);
    if (!writer) {
        return std::unexpected(writer.error());
    }
    return std::pair{std::move(*writer), std::move(*path)};
}

// Sampling a source faster than it updates gives no finer power: say so before the job runs,
// and say when a source is read less often than asked, and why.
void warn_oversampling(const Discovered& found, Nanos interval, const Config& config) {
    std::set<std::string> said;
    for (const auto& s : found.sensors) {
        if (s->min_interval_reason().empty() || s->min_interval() <= interval ||
            !said.insert(std::string{s->backend()}).second) {
            continue;
        }
        JP_LOG_WARN("{}: read every {}, not every {}: {}", s->backend(),
                    format_duration(s->min_interval()), format_duration(interval),
                    s->min_interval_reason());
    }
    said.clear();
    for (const auto& c : found.table) {
        const auto it = config.intervals.find(c.backend);
        const auto s = (it != config.intervals.end() ? it->second : interval).count();
        if (!c.update_ns || *c.update_ns <= s || !said.insert(c.backend).second) {
            continue;
        }
        JP_LOG_WARN("{} updates every {}: reading it every {} gives no finer power (its power "
                    "figures use spans of {} or more)",
                    c.backend, format_duration(Nanos{*c.update_ns}), format_duration(Nanos{s}),
                    format_duration(Nanos{report::resolution_for(c.quantity, s, *c.update_ns)}));
    }
}

} // namespace

namespace detail {

trace::RunInfo
new_run(const MeasurementSession::State& s, const Series& series, std::string kind, int repeat) {
    trace::RunInfo run;
    run.label = series.label;
    run.kind = std::move(kind);
    run.repeat = repeat;
    run.command = join_command(series.command);
    char buf[32];
    run.start_utc = std::string{format_utc(wall_ns(), buf)};
    run.start_ns = mono_ns() - s.epoch;
    return run;
}

double monitor_cpu_since_last_run(MeasurementSession::State& s) {
    const double now = process_cpu_seconds();
    const double spent = now - s.cpu_reported;
    s.cpu_reported = now;
    return spent;
}

} // namespace detail

namespace {

using State = MeasurementSession::State;
using detail::monitor_cpu_since_last_run;
using detail::new_run;

// How often a job's CPU use is read for attribution (and the wait wakes up).
constexpr int k_usage_tick_ms = 100;

// Who else has the GPUs a job holds (attrib/gpu_use.hpp), where NVML measures GPUs here.
void attach_gpu_processes(MeasurementSession::State& s, const sensors::Host& host) {
    const bool gpus = std::ranges::any_of(s.sampler.channels(),
                                          [](const Channel& c) { return c.domain == Domain::gpu; });
    if (!s.attribution || !gpus || !host.replay_trace.empty() ||
        (host.config != nullptr && host.config->disabled.contains("nvml"))) {
        return;
    }
    std::string why;
    if (auto p = sensors::nvml::Processes::open(host, why)) {
        auto shared = std::make_shared<const sensors::nvml::Processes>(std::move(*p));
        s.usage.gpu_processes = {[shared](int index) { return shared->pids(index); },
                                 shared->gpus()};
    }
}

// Runs the command once under measurement; returns its shell exit code.
int measured_run(
    State& s, const Series& series, const std::string& kind, int repeat, std::string& failure) {
    auto run = new_run(s, series, kind, repeat);
    if (auto program = process::resolve_program(series.command[0]); !program) {
        failure = program.error().message();
        return program.error().kind == ErrorKind::not_found ? 127 : 126;
    }
    s.recorder.begin_run(run); // the run id goes into the job's environment
    auto job = s.markers.prepare(run.id);
    auto child = process::Child::spawn(series.command, job.env, job.stdio);
    if (!child) {
        failure = child.error().message();
        s.markers.ended(mono_ns());
        run.end_ns = run.start_ns;
        run.status = "failed";
        s.recorder.end_run(run);
        return child.error().kind == ErrorKind::not_found ? 127 : 126;
    }
    s.markers.spawned();
    auto usage = s.attribution ? attrib::Tracker::prepare(child->pid(), s.usage) : std::nullopt;
    run.start_ns = s.sampler.begin(run.id);
    if (usage) {
        usage->begin(run.start_ns);
    }
    s.markers.started(s.epoch + run.start_ns);
    if (auto released = child->release(); !released) {
        failure = fmt::format("cannot run '{}': {}", series.command[0], released.error().detail);
        auto st = child->wait(100, {});
        run.end_ns = s.sampler.end();
        s.markers.ended(s.epoch + *run.end_ns);
        usage.reset(); // nothing ran
        run.status = "failed";
        run.exit_code = st.shell_code();
        s.recorder.end_run(run);
        return st.shell_code();
    }
    s.recorder.end_run(run); // the exact start, committed for readers now
    const bool warm = kind == "warmup";
    StatusLine status{s.live && ::isatty(STDERR_FILENO) == 1,
                      fmt::format("{}{}{} {}/{}", series.context,
                                  series.context.empty() ? "" : "  ", warm ? "warm-up" : "run",
                                  repeat, warm ? series.warmup : series.repeat),
                      2e-9 * static_cast<double>(s.interval.count())};
    int ticks = 0;
    const auto st = child->wait(k_usage_tick_ms, [&] {
        if (usage) {
            usage->sample(mono_ns() - s.epoch);
        }
        // Every 500 ms from the first 500 ms on.
        if (++ticks % (500 / k_usage_tick_ms) == 0) {
            status.update(static_cast<double>(mono_ns() - s.epoch - run.start_ns) * 1e-9,
                          s.sampler.live(), s.estimated);
        }
    });
    run.end_ns = s.sampler.end();
    s.markers.ended(s.epoch + *run.end_ns);
    if (usage) {
        s.recorder.add_usage(run.id, usage->finish(*run.end_ns));
    }
    status.clear();
    run.monitor_cpu_s = monitor_cpu_since_last_run(s);
    run.status = is_interrupt_status(st.shell_code()) ? "interrupted" : "complete";
    run.exit_code = st.signal ? std::optional<int>{} : std::optional<int>{st.code};
    run.signal = st.signal;
    s.recorder.end_run(run);
    return st.shell_code();
}

// Summarises every run once: the rows stored in the trace and what `run` prints.
Result<std::vector<report::RunSummary>> write_summaries(const std::filesystem::path& path,
                                                        Recorder& recorder) {
    auto reader = recorder.reader(path);
    if (!reader) {
        return std::unexpected(reader.error());
    }
    std::vector<report::RunSummary> all;
    std::optional<Error> failed;
    for (const auto& run : reader->runs()) {
        auto s = report::summarize_run(*reader, run);
        if (!s) {
            failed = s.error();
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
        all.push_back(std::move(*s));
    }
    if (failed) {
        return std::unexpected(*failed);
    }
    return all;
}

} // namespace

MeasurementSession::MeasurementSession(std::unique_ptr<State> state) : m(std::move(state)) {}

MeasurementSession::~MeasurementSession() = default;

Result<std::unique_ptr<MeasurementSession>>
MeasurementSession::open(SessionOptions o, const sensors::Host& host, const Config& config) {
    auto found = discover(host);
    warn_oversampling(found, o.interval, config);
    const auto epoch = ClockAnchor::now();
    auto trace = create_trace(o.output, trace_meta(o, host, config, epoch));
    if (!trace) {
        return std::unexpected(trace.error());
    }
    auto& [writer, path] = *trace;
    if (auto r = writer.add_channels(found.table); !r || !writer.commit()) {
        return std::unexpected(r ? Error{ErrorKind::io, path.string(), "cannot write the trace", {}}
                                 : r.error());
    }
    auto state = std::make_unique<State>(std::move(o), std::move(found), std::move(writer), path,
                                         epoch.mono, config);
    state->usage.sysfs_root = host.sysfs_root; // the CPU topology of the node measured
    state->usage.env = [](const char* name) -> std::optional<std::string> {
        const char* v = std::getenv(name); // the job gets the monitor's environment
        return v != nullptr ? std::optional<std::string>{v} : std::nullopt;
    };
    attach_gpu_processes(*state, host);
    return std::unique_ptr<MeasurementSession>{new MeasurementSession{std::move(state)}};
}

const std::filesystem::path& MeasurementSession::path() const {
    return m->path;
}

std::optional<int> MeasurementSession::baseline(Nanos duration) {
    auto run = new_run(*m, Series{}, "baseline", 1);
    run.command = "(idle baseline)";
    m->recorder.begin_run(run);
    run.start_ns = m->sampler.begin(run.id);
    m->recorder.end_run(run);
    const auto sig = process::sleep_unless_signalled(m->epoch + run.start_ns + duration.count());
    run.end_ns = m->sampler.end();
    run.monitor_cpu_s = monitor_cpu_since_last_run(*m);
    run.status = sig ? "interrupted" : "complete";
    run.exit_code = 0;
    m->recorder.end_run(run);
    return sig;
}

SeriesResult MeasurementSession::run_series(const Series& series) {
    SeriesResult result;
    const int total = series.warmup + series.repeat;
    for (int i = 0; i < total; ++i) {
        if (m->runs > 0 && series.cooldown.count() > 0) {
            result.interrupted =
                process::sleep_unless_signalled(mono_ns() + series.cooldown.count());
            if (result.interrupted) {
                break;
            }
        }
        const bool warm = i < series.warmup;
        const int number = warm ? i + 1 : i - series.warmup + 1;
        if (series.before_run) {
            series.before_run(warm ? "warmup" : "measure", number,
                              warm ? series.warmup : series.repeat);
        }
        ++m->runs;
        result.exit_code =
            measured_run(*m, series, warm ? "warmup" : "measure", number, result.failure);
        if (!result.failure.empty()) {
            break;
        }
        if (result.exit_code != 0 && i + 1 < total) {
            JP_LOG_WARN("the command exited with status {}: remaining repeats skipped",
                        result.exit_code);
            break;
        }
    }
    return result;
}

bool MeasurementSession::finish() {
    m->recorder.flush();
    m->summaries = write_summaries(m->path, m->recorder);
    if (!m->recorder.in_memory()) {
        return true;
    }
    if (!m->recorder.save_to_file()) {
        return false;
    }
    JP_LOG_WARN("trace: the disk had room again: {} holds the whole measurement", m->path.string());
    return true;
}

const Result<std::vector<report::RunSummary>>& MeasurementSession::summaries() const {
    return m->summaries;
}

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

bool is_interrupt_status(int exit_code) {
    return exit_code > 128 && process::is_interrupting(exit_code - 128);
}

} // namespace jp::cli
