// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Reads a trace, also one whose monitor was killed (runs left 'running').
#include "core/channel.hpp"
#include "core/integrate.hpp"
#include "trace/sqlite.hpp"
#include "trace/types.hpp"

#include <map>
#include <vector>

namespace jp::trace {

struct ChannelSamples {
    std::vector<TimedValue> points;
    std::vector<std::uint8_t> flags;
};

class Reader {
public:
    static Result<Reader> open(const std::filesystem::path& path);
    // A trace held in a database already open (Writer::snapshot), shown as `path`.
    static Result<Reader> from_database(Database db, const std::filesystem::path& path);
    // A trace file's bytes (as read from anywhere), shown as `name`.
    static Result<Reader> from_bytes(std::string_view bytes, const std::filesystem::path& name);

    [[nodiscard]] const std::map<std::string, std::string>& meta() const { return m_meta; }
    [[nodiscard]] const std::vector<Channel>& channels() const { return m_channels; }
    [[nodiscard]] const std::vector<RunInfo>& runs() const { return m_runs; }
    [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
    // The trace's schema version (1: a row per sample; 2: sample blocks).
    [[nodiscard]] int version() const { return m_version; }

    // Samples of one channel (index into channels()) in one run, by time.
    Result<ChannelSamples> samples(std::int64_t run_id, std::size_t channel);
    Result<std::vector<Marker>> markers(std::int64_t run_id);
    Result<std::vector<Event>> events(std::int64_t run_id);
    // The run's usage for attribution; nullopt when the trace has none (older
    // traces, a monitor that died before the run's end, a run through jouleprofd).
    Result<std::optional<Usage>> usage(std::int64_t run_id);
    // Each channel's longest read call in the run (by channel index), where its values are
    // stamped at their call's middle; 0 where none was recorded (older traces, own times) or
    // the row is damaged (not a positive time of at most a minute).
    Result<std::vector<std::int64_t>> read_times(std::int64_t run_id);
    // Time of the last sample of a run (for runs whose end was never written).
    Result<std::optional<std::int64_t>> last_sample_time(std::int64_t run_id);

private:
    explicit Reader(Database db) : m_db(std::move(db)) {}
    Result<void> load();
    Result<ChannelSamples> samples_v1(std::int64_t run_id, std::size_t channel);
    // The gpu_use rows into u.gpus; none, and u.gpus_damaged, where one is out of range or
    // the table is damaged or of another shape. Errors: it could not be read (not damage).
    Result<void> read_gpu_use(std::int64_t run_id, Usage& u);
    Database m_db;
    int m_version = 0;
    std::filesystem::path m_path;
    std::map<std::string, std::string> m_meta;
    std::vector<Channel> m_channels;
    std::vector<RunInfo> m_runs;
};

} // namespace jp::trace
