// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The writer's side of sample blocks: one open block per channel of the
// current run, filled in memory and written (INSERT OR REPLACE by its id) at
// each commit until it is full, so a reader sees every committed sample and
// a row is rewritten at most until its block closes. Nothing is forgotten
// before the transaction that holds it has committed: after a failed commit
// the next write() writes the same blocks again.
#include "trace/block_codec.hpp"
#include "trace/sqlite.hpp"

#include <span>
#include <vector>

namespace jp::trace {

class SampleBlocks {
public:
    void set_channel_count(std::size_t n) { m_channels = n; }
    // Continue numbering blocks after the ones a file already holds.
    void set_next_id(std::int64_t id) { m_next_id = id; }
    // Adds samples of a run (a new run id closes the previous run's blocks).
    // A sample of a channel the trace does not have is an error naming `where`.
    Result<void>
    add(std::span<const SampleRecord> samples, std::int64_t run_id, std::string_view where);
    // Writes every block changed since the last committed() with `upsert`
    // (INSERT OR REPLACE INTO block(id, run_id, channel_id, t_min_ns, t_max_ns,
    // count, v_min, v_max, data)).
    Result<void> write(Statement& upsert) const;
    // The transaction holding the last write() committed.
    void committed();

private:
    struct Block {
        std::int64_t id = 0;
        std::int64_t run_id = 0;
        std::int32_t channel = 0;
        bool dirty = false;
        BlockEncoder data;
    };
    void close_all();
    std::size_t m_channels = 0;
    std::vector<Block> m_open; // by channel; empty data: no block open
    std::vector<Block> m_closed;
    std::int64_t m_run = 0;
    std::int64_t m_next_id = 1;
};

} // namespace jp::trace
