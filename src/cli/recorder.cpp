// SPDX-License-Identifier: BSD-3-Clause
#include "cli/recorder.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "sys/thread_name.hpp"

namespace jp::cli {

Recorder::Recorder(trace::Writer writer, Sampler& sampler)
    : m_writer(std::move(writer)), m_sampler(sampler), m_thread([this] { loop(); }) {}

Recorder::~Recorder() {
    {
        const std::lock_guard lock{m_mutex};
        m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
    const std::lock_guard lock{m_mutex};
    flush_locked();
}

Result<void> Recorder::commit() {
    auto r = m_writer.commit();
    if (r) {
        m_uncommitted_markers.clear();
    }
    return r;
}

bool Recorder::write(const std::function<Result<void>()>& op) {
    if (m_failed) {
        return false;
    }
    auto r = op();
    if (r) {
        return true;
    }
    if (!m_writer.in_memory()) {
        const auto moved = m_writer.move_to_memory();
        if (moved) {
            JP_LOG_WARN("trace: {}: the file keeps what was written until now; the rest of the "
                        "measurement is kept in memory, summarised at the end and written to the "
                        "file then if the disk has room",
                        r.error().message());
            m_in_memory = true;
            const auto markers = m_uncommitted_markers; // dropped with the failed transaction
            auto again = [&]() -> Result<void> {
                for (const auto& m : markers) {
                    if (auto w = m_writer.add_marker(m); !w) {
                        return w;
                    }
                }
                return op();
            };
            r = again();
            if (r) {
                return true;
            }
        } else {
            r = std::unexpected(moved.error());
        }
    }
    m_failed = true;
    JP_LOG_ERROR("trace: {} (the job goes on; the trace stops here)", r.error().message());
    return false;
}

void Recorder::loop() {
    sys::name_this_thread("jp-trace");
    std::unique_lock lock{m_mutex};
    while (!m_stop) {
        m_wake.wait_for(lock, m_paced ? k_idle_period : k_commit_period, [this] { return m_stop; });
        if (!m_paced || due()) {
            flush_locked();
        }
    }
}

bool Recorder::due() const noexcept {
    return mono_ns() - m_flushed >= std::chrono::nanoseconds{k_commit_period}.count();
}

void Recorder::paced_by_caller() {
    const std::lock_guard lock{m_mutex};
    m_paced = true; // from the thread's next wait on
}

void Recorder::tick() {
    const std::lock_guard lock{m_mutex};
    if (due()) {
        flush_locked();
    }
}

void Recorder::flush_locked() {
    m_flushed = mono_ns();
    m_samples.clear();
    m_events.clear();
    m_sampler.drain(m_samples, m_events);
    // The writer keeps samples until they commit, so they are handed over once,
    // outside what write() runs again after a failure.
    if (!m_failed && m_run_id != 0 && !m_samples.empty()) {
        if (auto r = m_writer.append(m_samples, m_run_id); !r) {
            JP_LOG_ERROR("trace: {}", r.error().message());
        }
    }
    write([this]() -> Result<void> {
        for (const auto& e : m_events) {
            if (auto r = m_writer.add_event(e); !r) {
                return r;
            }
        }
        return commit();
    });
}

void Recorder::flush() {
    const std::lock_guard lock{m_mutex};
    flush_locked();
}

std::int64_t Recorder::begin_run(trace::RunInfo& run) {
    const std::lock_guard lock{m_mutex};
    flush_locked();
    std::int64_t id = 0;
    const bool ok = write([&]() -> Result<void> {
        auto inserted = m_writer.begin_run(run);
        if (!inserted) {
            return std::unexpected(inserted.error());
        }
        id = *inserted;
        return commit();
    });
    m_run_id = ok ? id : 0;
    run.id = m_run_id;
    return m_run_id;
}

void Recorder::end_run(const trace::RunInfo& run) {
    const std::lock_guard lock{m_mutex};
    flush_locked();
    // At the run's end (the sampler stopped), how long its reads took: a bound's term.
    // (Not for a run whose job never started: the sampler's figures are another run's.)
    const auto read_times = run.end_ns && m_sampler.run_id() == run.id
                                ? m_sampler.read_times()
                                : std::vector<std::int64_t>{};
    write([&]() -> Result<void> {
        if (auto r = m_writer.add_read_times(run.id, read_times); !r) {
            return r;
        }
        if (auto r = m_writer.end_run(run); !r) {
            return r;
        }
        return commit();
    });
}

void Recorder::add_summary(std::int64_t run_id, std::span<const trace::SummaryRow> rows) {
    const std::lock_guard lock{m_mutex};
    write([&]() -> Result<void> {
        if (auto r = m_writer.add_summary(run_id, rows); !r) {
            return r;
        }
        return commit();
    });
}

void Recorder::add_usage(std::int64_t run_id, const trace::Usage& usage) {
    const std::lock_guard lock{m_mutex};
    write([&]() -> Result<void> {
        if (auto r = m_writer.add_usage(run_id, usage); !r) {
            return r;
        }
        return commit();
    });
}

void Recorder::add_marker(std::int64_t t_ns, std::string_view kind, std::string_view name) {
    const std::lock_guard lock{m_mutex};
    if (m_failed || m_run_id == 0) {
        return;
    }
    trace::Marker marker{m_run_id, t_ns, std::string{kind}, std::string{name}};
    // Written now, committed with the next flush; kept until then in case
    // that commit fails and the trace moves to memory.
    if (write([&] { return m_writer.add_marker(marker); })) {
        m_uncommitted_markers.push_back(std::move(marker));
    }
}

Result<trace::Reader> Recorder::reader(const std::filesystem::path& file) {
    const std::lock_guard lock{m_mutex};
    flush_locked();
    if (!m_writer.in_memory()) {
        return trace::Reader::open(file);
    }
    auto copy = m_writer.snapshot();
    if (!copy) {
        return std::unexpected(copy.error());
    }
    return trace::Reader::from_database(std::move(*copy), file);
}

bool Recorder::save_to_file() {
    const std::lock_guard lock{m_mutex};
    flush_locked();
    if (auto r = m_writer.save_to_file(); !r) {
        JP_LOG_WARN("trace: {}: the file keeps the measurement only up to where the disk "
                    "filled; the summary covers all of it",
                    r.error().message());
        return false;
    }
    return true;
}

} // namespace jp::cli
