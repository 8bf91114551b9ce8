// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Writes one measurement to an SQLite file: WAL, synchronous=NORMAL, a
// transaction held open between commit() calls (the sampler commits at least
// once a second), so the file is readable while written and survives a
// killed monitor up to its last commit.
#include "core/channel.hpp"
#include "trace/sample_blocks.hpp"
#include "trace/sqlite.hpp"
#include "trace/types.hpp"

#include <map>
#include <span>
#include <vector>

namespace jp::trace {

struct SummaryRow {
    std::string item; // node | rest | channel name
    std::optional<double> energy_j;
    std::optional<double> avg_w;
    std::optional<double> peak_w;
    Provenance provenance = Provenance::measured;
};

class Writer {
public:
    // Creates the file (it must not exist) with the schema and meta rows.
    static Result<Writer> create(const std::filesystem::path& path,
                                 const std::map<std::string, std::string>& meta);
    Writer(Writer&&) noexcept = default;
    Writer& operator=(Writer&&) noexcept = default;
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;
    // Commits what is left and leaves the trace as one file (journal_mode
    // DELETE): readers open it read-only and need no -wal or -shm beside it.
    ~Writer();

    Result<void> set_meta(std::string_view key, std::string_view value);
    Result<void> add_channels(std::span<const Channel> channels);
    // Inserts the run and returns its id.
    Result<std::int64_t> begin_run(const RunInfo& run);
    Result<void> end_run(const RunInfo& run);
    // Keeps samples in the run's open blocks; commit() writes them. Samples
    // not yet committed stay with the writer, so a commit that fails (and
    // move_to_memory) loses none and writes none twice.
    Result<void> append(std::span<const SampleRecord> samples, std::int64_t run_id);
    Result<void> add_event(const Event& event);
    Result<void> add_marker(const Marker& marker);
    Result<void> add_summary(std::int64_t run_id, std::span<const SummaryRow> rows);
    // A run's usage for attribution (its rows by time); a trace without it has node figures only.
    Result<void> add_usage(std::int64_t run_id, const Usage& usage);
    // Each channel's longest read call in the run (by channel index; 0: none recorded).
    // Written again for the same run, it replaces what was there.
    Result<void> add_read_times(std::int64_t run_id, std::span<const std::int64_t> longest_ns);
    // Makes everything so far durable and visible to readers.
    Result<void> commit();

    // When the file cannot be written (a full disk): drops the transaction
    // that failed and goes on in memory from what the file committed; the
    // caller writes the dropped events, markers and runs again (samples the
    // writer keeps itself until they commit). The file keeps what it holds.
    Result<void> move_to_memory();
    [[nodiscard]] bool in_memory() const noexcept { return m_in_memory; }
    // Writes the whole trace kept in memory over the file (when the disk has
    // room again); the writer stays in memory.
    Result<void> save_to_file();
    // A copy of everything written so far, for a Reader (Reader::from_database).
    Result<Database> snapshot();

private:
    Writer(Database db, Statement block, Statement event);
    Result<void> prepare_inserts();
    Database m_db;
    SampleBlocks m_blocks;
    Statement m_upsert_block;
    Statement m_insert_event;
    std::filesystem::path m_file;
    bool m_in_memory = false;
};

} // namespace jp::trace
