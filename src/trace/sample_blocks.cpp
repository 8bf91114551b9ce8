// SPDX-License-Identifier: BSD-3-Clause
#include "trace/sample_blocks.hpp"

#include <fmt/format.h>

namespace jp::trace {

void SampleBlocks::close_all() {
    for (auto& b : m_open) {
        // A block committed whole needs no further write.
        if (!b.data.empty() && b.dirty) {
            m_closed.push_back(std::move(b));
        }
        b = Block{};
    }
}

Result<void> SampleBlocks::add(std::span<const SampleRecord> samples,
                               std::int64_t run_id,
                               std::string_view where) {
    for (const auto& s : samples) {
        if (s.channel < 0 || static_cast<std::size_t>(s.channel) >= m_channels) {
            return fail(ErrorKind::internal, std::string{where},
                        fmt::format("sample of channel {} in a trace of {} channels", s.channel,
                                    m_channels));
        }
    }
    if (run_id != m_run) {
        close_all();
        m_run = run_id;
    }
    m_open.resize(m_channels);
    for (const auto& s : samples) {
        auto& b = m_open[static_cast<std::size_t>(s.channel)];
        if (b.data.empty()) {
            b.id = m_next_id++;
            b.run_id = run_id;
            b.channel = s.channel;
        }
        b.data.add(s.t_ns, s.value, s.flags);
        b.dirty = true;
        if (b.data.full()) {
            m_closed.push_back(std::move(b));
            b = Block{};
        }
    }
    return {};
}

Result<void> SampleBlocks::write(Statement& upsert) const {
    auto put = [&](const Block& b) -> Result<void> {
        upsert.bind(1, b.id).bind(2, b.run_id).bind(3, std::int64_t{b.channel} + 1);
        upsert.bind(4, b.data.t_min()).bind(5, b.data.t_max()).bind(6, b.data.count());
        upsert.bind(7, b.data.v_min()).bind(8, b.data.v_max()).bind_blob(9, b.data.bytes());
        return upsert.run();
    };
    for (const auto& b : m_closed) {
        if (auto r = put(b); !r) {
            return r;
        }
    }
    for (const auto& b : m_open) {
        if (b.dirty && !b.data.empty()) {
            if (auto r = put(b); !r) {
                return r;
            }
        }
    }
    return {};
}

void SampleBlocks::committed() {
    m_closed.clear();
    for (auto& b : m_open) {
        b.dirty = false;
    }
}

} // namespace jp::trace
