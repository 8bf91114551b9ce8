// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Owns the trace writer and a thread that moves samples from the sampler to
// the file and commits at least every second. Every method is safe to call
// while the thread runs. A failing disk never stops the job: the first write
// that fails moves the trace to memory (the file keeps what it committed),
// so the whole measurement is still summarised, and written back to the file
// at the end if the disk has room again.
#include "sampler/sampler.hpp"
#include "trace/reader.hpp"
#include "trace/writer.hpp"

#include <atomic>
#include <condition_variable>
#include <functional>
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
    void add_usage(std::int64_t run_id, const trace::Usage& usage);
    // A marker of the current run (t_ns since the trace epoch); committed with
    // the next periodic commit. Ignored before the first run.
    void add_marker(std::int64_t t_ns, std::string_view kind, std::string_view name);
    // Drains the sampler and commits now.
    void flush();
    // Hands the periodic commits to the caller, who calls tick() at least every
    // k_commit_period (the sampler's drain thread, which wakes anyway): the recorder's own
    // thread then wakes only every k_idle_period, in case nothing calls.
    void paced_by_caller();
    // Drains the sampler and commits if the last commit is k_commit_period old.
    void tick();

    // The trace as written so far: the file, or the copy in memory.
    Result<trace::Reader> reader(const std::filesystem::path& file);
    // True once the file could not be written and the trace went on in memory.
    [[nodiscard]] bool in_memory() const noexcept { return m_in_memory.load(); }
    // Writes the trace kept in memory over the file; false (and why, logged) if it cannot.
    bool save_to_file();

    static constexpr std::chrono::milliseconds k_commit_period{1000};
    static constexpr std::chrono::milliseconds k_idle_period{10'000};

private:
    void loop();
    void flush_locked();
    [[nodiscard]] bool due() const noexcept; // under m_mutex
    // Runs `op` (which ends with a commit); if it fails, moves the trace to
    // memory, writes again what the failed transaction held, and runs `op`
    // again there. False if the trace could not be kept at all.
    bool write(const std::function<Result<void>()>& op);
    Result<void> commit();

    trace::Writer m_writer;
    Sampler& m_sampler;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    bool m_paced = false;       // paced_by_caller()
    std::int64_t m_flushed = 0; // when flush_locked() last ran (CLOCK_MONOTONIC ns)
    bool m_failed = false;      // not even in memory: nothing more is written
    std::atomic<bool> m_in_memory{false};
    std::int64_t m_run_id = 0;
    std::vector<trace::SampleRecord> m_samples;
    std::vector<trace::Event> m_events;
    std::vector<trace::Marker> m_uncommitted_markers;
    std::thread m_thread;
};

} // namespace jp::cli
