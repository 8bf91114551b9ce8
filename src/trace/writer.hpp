#pragma once
// Writes one measurement to an SQLite file: WAL, synchronous=NORMAL, a
// transaction held open between commit() calls (the sampler commits at least
// once a second), so the file is readable while written and survives a
// killed monitor up to its last commit.
#include "core/channel.hpp"
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

    Result<void> set_meta(std::string_view key, std::string_view value);
    Result<void> add_channels(std::span<const Channel> channels);
    // Inserts the run and returns its id.
    Result<std::int64_t> begin_run(const RunInfo& run);
    Result<void> end_run(const RunInfo& run);
    Result<void> append(std::span<const SampleRecord> samples, std::int64_t run_id);
    Result<void> add_event(const Event& event);
    Result<void> add_marker(const Marker& marker);
    Result<void> add_summary(std::int64_t run_id, std::span<const SummaryRow> rows);
    // Makes everything so far durable and visible to readers.
    Result<void> commit();

private:
    Writer(Database db, Statement sample, Statement event);
    Database m_db;
    Statement m_insert_sample;
    Statement m_insert_event;
};

} // namespace jp::trace
