// SPDX-License-Identifier: BSD-3-Clause
// In-process runs of a MeasurementSession, where the caller itself is the job
// (the Python layer, `jouleprof record`): begin, markers, end, and reading the
// trace written so far.
#include "cli/measurement_state.hpp"
#include "core/clock.hpp"

#include <condition_variable>
#include <fmt/format.h>
#include <unistd.h>

namespace jp::cli {

using detail::monitor_cpu_since_last_run;
using detail::new_run;

namespace {

constexpr auto k_block_usage_period = std::chrono::milliseconds{100};

// Reads the block's CPU use every period until stopped.
void sample_usage(const std::stop_token& stop,
                  std::mutex& mutex,
                  std::optional<attrib::Tracker>& usage,
                  std::int64_t epoch) {
    std::condition_variable_any wake;
    std::unique_lock lock{mutex};
    for (;;) {
        (void)wake.wait_for(lock, stop, k_block_usage_period, [] { return false; });
        if (stop.stop_requested()) {
            return;
        }
        if (usage) {
            usage->sample(mono_ns() - epoch);
        }
    }
}

} // namespace

std::int64_t MeasurementSession::begin_block(const std::string& label,
                                             const std::string& command,
                                             const BlockJob& job) {
    if (m->block) {
        return 0;
    }
    Series series;
    series.label = label;
    auto run = new_run(*m, series, "measure", ++m->runs);
    run.command = command;
    m->recorder.begin_run(run);
    if (m->attribution && job.kind != BlockJob::Kind::none) {
        auto options = m->usage;
        if (job.env) {
            options.env = job.env;
        }
        if (job.kind == BlockJob::Kind::self) {
            options.job_cpu = "process-tree"; // never move the caller's own process
            options.monitor_is_job = false;   // its threads are in the process already
        } else {
            options.job_running = true;
        }
        m->block_usage = attrib::Tracker::prepare(
            job.kind == BlockJob::Kind::self ? ::getpid() : job.pid, std::move(options));
    }
    run.start_ns = m->begin_sampling(run.id);
    if (m->block_usage) {
        m->block_usage->begin(run.start_ns);
        m->block_usage_thread = std::jthread{[this](const std::stop_token& stop) {
            sample_usage(stop, m->block_usage_mutex, m->block_usage, m->epoch);
        }};
    }
    m->recorder.end_run(run); // the exact start, committed for readers now
    m->block_env = m->markers.prepare(run.id).env;
    m->markers.started(m->epoch + run.start_ns);
    m->block = run;
    return run.id;
}

std::int64_t MeasurementSession::mark_block(std::string_view kind, std::string_view name) {
    std::vector<trace::SampleRecord> edge;
    const std::int64_t after = m->sampler.sample_now(edge);
    const std::int64_t t = edge.empty() ? after : edge.front().t_ns;
    m->recorder.add_marker(t, kind, name);
    return t;
}

trace::RunInfo MeasurementSession::end_block(std::string_view status) {
    if (!m->block) {
        return {};
    }
    auto run = std::move(*m->block);
    m->block.reset();
    // The usage thread stops before the end is read: a sample of its taken after the end
    // would lie outside the run, out of order with the final reading (a damaged record).
    if (m->block_usage_thread.joinable()) {
        m->block_usage_thread.request_stop();
        m->block_usage_thread.join();
    }
    run.end_ns = m->end_sampling();
    if (m->block_usage) {
        m->recorder.add_usage(run.id, m->block_usage->finish(*run.end_ns));
        m->block_usage.reset();
    }
    m->markers.ended(m->epoch + *run.end_ns);
    m->block_env.clear();
    run.monitor_cpu_s = monitor_cpu_since_last_run(*m);
    run.status = std::string{status};
    run.exit_code = status == "complete" ? std::optional<int>{0} : std::optional<int>{1};
    m->recorder.end_run(run);
    m->recorder.flush();
    return run;
}

const std::vector<std::pair<std::string, std::string>>& MeasurementSession::block_env() const {
    return m->block_env;
}

Result<trace::Reader> MeasurementSession::reader() {
    return m->recorder.reader(m->path);
}

Result<report::RunSummary> MeasurementSession::summarize(std::int64_t run_id) {
    auto reader = m->recorder.reader(m->path);
    if (!reader) {
        return std::unexpected(reader.error());
    }
    for (const auto& run : reader->runs()) {
        if (run.id == run_id) {
            return report::summarize_run(*reader, run);
        }
    }
    return std::unexpected(
        Error{ErrorKind::not_found, m->path.string(), fmt::format("no run {}", run_id), {}});
}

} // namespace jp::cli
