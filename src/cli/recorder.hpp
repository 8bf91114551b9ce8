#pragma once
// Owns the trace writer and a thread that moves samples from the sampler to
// the file and commits at least every second. Every method is safe to call
// while the thread runs; a failing disk is reported once and never stops the job.
#include "sampler/sampler.hpp"
#include "trace/writer.hpp"

#include <atomic>
#include <mutex>
#include <thread>

namespace jp::cli {

class Recorder {
public:
    Recorder(trace::Writer writer, Sampler& sampler);
    Recorder(const Recorder&) = delete;
    Recorder& operator=(const Recorder&) = delete;
    Recorder(Recorder&&) = delete;
    Recorder& operator=(Recorder&&) = delete;
    ~Recorder();

    std::int64_t begin_run(trace::RunInfo& run);
    void end_run(const trace::RunInfo& run);
    void add_summary(std::int64_t run_id, std::span<const trace::SummaryRow> rows);
    // A marker of the current run (t_ns since the trace epoch); committed with
    // the next periodic commit. Ignored before the first run.
    void add_marker(std::int64_t t_ns, std::string_view kind, std::string_view name);
    // Drains the sampler and commits now.
    void flush();
    [[nodiscard]] bool healthy() const noexcept { return !m_failed.load(); }

    static constexpr std::chrono::milliseconds k_commit_period{500};

private:
    void loop();
    void flush_locked();
    void check(const Result<void>& r);

    trace::Writer m_writer;
    Sampler& m_sampler;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    std::atomic<bool> m_failed{false};
    std::int64_t m_run_id = 0;
    std::vector<trace::SampleRecord> m_samples;
    std::vector<trace::Event> m_events;
    std::thread m_thread;
};

} // namespace jp::cli
