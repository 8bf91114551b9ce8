// SPDX-License-Identifier: BSD-3-Clause
#include "cli/measurement.hpp"

#include "cli/commands.hpp"
#include "cli/measurement_state.hpp"
#include "cli/status_line.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "process/runner.hpp"
#include "report/format.hpp"

#include <csignal>
#include <cstdio>
#include <fmt/format.h>
#include <unistd.h>

namespace jp::cli {

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
constexpr int k_status_tick_ms = 500;
constexpr int k_idle_tick_ms = 10'000;
constexpr std::int64_t k_usage_tick_ns = std::int64_t{k_usage_tick_ms} * 1'000'000;

// Ends a run's sampling, should anything throw before the run ends it: the drain's companion
// must not outlive what it touches (State::end_sampling_quietly).
class EndOnUnwind {
public:
    explicit EndOnUnwind(State& s) : m_s(&s) {}
    EndOnUnwind(const EndOnUnwind&) = delete;
    EndOnUnwind& operator=(const EndOnUnwind&) = delete;
    EndOnUnwind(EndOnUnwind&&) = delete;
    EndOnUnwind& operator=(EndOnUnwind&&) = delete;
    ~EndOnUnwind() { m_s->end_sampling_quietly(); }

private:
    State* m_s;
};

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
    run.start_ns = s.begin_sampling(run.id);
    const EndOnUnwind unwind{s}; // the drain's companion may hold usage
    if (usage) {
        usage->begin(run.start_ns);
    }
    s.markers.started(s.epoch + run.start_ns);
    if (auto released = child->release(); !released) {
        failure = fmt::format("cannot run '{}': {}", series.command[0], released.error().detail);
        auto st = child->wait(100, {});
        run.end_ns = s.end_sampling();
        s.markers.ended(s.epoch + *run.end_ns);
        usage.reset(); // nothing ran
        run.status = "failed";
        run.exit_code = st.shell_code();
        s.recorder.end_run(run);
        return st.shell_code();
    }
    s.recorder.end_run(run); // the exact start, committed for readers now
    const bool warm = kind == "warmup";
    const bool shows_status = s.live && ::isatty(STDERR_FILENO) == 1;
    StatusLine status{shows_status,
                      fmt::format("{}{}{} {}/{}", series.context,
                                  series.context.empty() ? "" : "  ", warm ? "warm-up" : "run",
                                  repeat, warm ? series.warmup : series.repeat),
                      2e-9 * static_cast<double>(s.interval.count())};
    // Where the sampler's drain thread wakes anyway, it reads the job's CPU use (State::on_drain)
    // and this thread wakes only for the status line, if one is shown (else every 10 s: a
    // wait that cannot last for ever, should a signal go astray).
    const bool on_drain = s.drain_companion;
    if (on_drain && usage) {
        s.usage_on_drain.store(&*usage);
    }
    const int tick_ms = !on_drain      ? k_usage_tick_ms
                        : shows_status ? k_status_tick_ms
                                       : k_idle_tick_ms;
    int ticks = 0;
    const auto st = child->wait(tick_ms, [&] {
        if (usage && !on_drain) {
            usage->sample(mono_ns() - s.epoch);
        }
        // Every 500 ms from the first 500 ms on.
        if ((on_drain && shows_status) || ++ticks % (k_status_tick_ms / k_usage_tick_ms) == 0) {
            status.update(static_cast<double>(mono_ns() - s.epoch - run.start_ns) * 1e-9,
                          s.sampler.live(), s.estimated);
        }
    });
    run.end_ns = s.end_sampling();
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

void MeasurementSession::State::on_drain(std::int64_t t_ns) {
    if (auto* u = usage_on_drain.load();
        u != nullptr && t_ns - usage_sampled_ns >= k_usage_tick_ns * 9 / 10) {
        usage_sampled_ns = t_ns;
        u->sample(t_ns);
    }
    recorder.tick();
}

MeasurementSession::MeasurementSession(std::unique_ptr<State> state) : m(std::move(state)) {}

MeasurementSession::~MeasurementSession() = default;

const std::filesystem::path& MeasurementSession::path() const {
    return m->path;
}

std::optional<int> MeasurementSession::baseline(Nanos duration) {
    auto run = new_run(*m, Series{}, "baseline", 1);
    run.command = "(idle baseline)";
    m->recorder.begin_run(run);
    run.start_ns = m->begin_sampling(run.id);
    m->recorder.end_run(run);
    const auto sig = process::sleep_unless_signalled(m->epoch + run.start_ns + duration.count());
    run.end_ns = m->end_sampling();
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
