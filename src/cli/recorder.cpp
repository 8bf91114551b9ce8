#include "cli/recorder.hpp"

#include "core/log.hpp"

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

void Recorder::check(const Result<void>& r) {
    if (!r && !m_failed.exchange(true)) {
        JP_LOG_ERROR("trace: {} (the job goes on; the trace stops here)", r.error().message());
    }
}

void Recorder::loop() {
    std::unique_lock lock{m_mutex};
    while (!m_stop) {
        m_wake.wait_for(lock, k_commit_period, [this] { return m_stop; });
        flush_locked();
    }
}

void Recorder::flush_locked() {
    m_samples.clear();
    m_events.clear();
    m_sampler.drain(m_samples, m_events);
    if (m_failed) {
        return;
    }
    if (!m_samples.empty()) {
        check(m_writer.append(m_samples, m_run_id));
    }
    for (auto& e : m_events) {
        check(m_writer.add_event(e));
    }
    check(m_writer.commit());
}

void Recorder::flush() {
    const std::lock_guard lock{m_mutex};
    flush_locked();
}

std::int64_t Recorder::begin_run(trace::RunInfo& run) {
    const std::lock_guard lock{m_mutex};
    flush_locked();
    auto id = m_writer.begin_run(run);
    if (!id) {
        check(std::unexpected(id.error()));
        m_run_id = 0;
        return 0;
    }
    m_run_id = *id;
    run.id = *id;
    check(m_writer.commit());
    return *id;
}

void Recorder::end_run(const trace::RunInfo& run) {
    const std::lock_guard lock{m_mutex};
    flush_locked();
    if (!m_failed) {
        check(m_writer.end_run(run));
        check(m_writer.commit());
    }
}

void Recorder::add_summary(std::int64_t run_id, std::span<const trace::SummaryRow> rows) {
    const std::lock_guard lock{m_mutex};
    if (!m_failed) {
        check(m_writer.add_summary(run_id, rows));
        check(m_writer.commit());
    }
}

void Recorder::add_marker(std::int64_t t_ns, std::string_view kind, std::string_view name) {
    const std::lock_guard lock{m_mutex};
    if (!m_failed && m_run_id != 0) {
        check(m_writer.add_marker({m_run_id, t_ns, std::string{kind}, std::string{name}}));
    }
}

} // namespace jp::cli
