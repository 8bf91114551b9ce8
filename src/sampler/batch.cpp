// SPDX-License-Identifier: BSD-3-Clause
// A source that samples on its own (the eBPF kernel sampler): its readings, each with the
// kernel's time, go into the run as a timer's would; readings it could not keep are a gap.
#include "sampler/sampler.hpp"
#include "sampler/sampler_state.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace jp {

void Sampler::drain_slot(Slot& slot, bool keep) {
    slot.batch.clear();
    slot.records.clear();
    slot.sensor->drain(slot.batch, slot.lost);
    if (!keep) {
        return;
    }
    const std::int64_t t_now = now();
    const std::size_t n = slot.buf.size();
    for (const auto& s : slot.batch) {
        if (s.channel >= n || s.value.t_mono_ns == 0) {
            continue; // not this sensor's channel, or no time: nothing to place it by
        }
        const std::size_t index = slot.first + s.channel;
        const auto& v = s.value;
        if (v.status == sensors::ReadStatus::ok) {
            note_call(index, v.call_ns);
        }
        if (auto rec = record(index, v, std::min(v.t_mono_ns - m_epoch, t_now), 0)) {
            slot.records.push_back(*rec);
        }
    }
    m_queue.push(slot.records);
    slot.records.clear();
    for (std::size_t i = 0; i < slot.lost.size() && i < n; ++i) {
        if (slot.lost[i] != 0) {
            add_event(static_cast<std::int32_t>(slot.first + i), t_now, "lost",
                      fmt::format("{}: {} readings taken in the kernel were lost (its ring "
                                  "buffer was full when they were taken: drained too late); "
                                  "energy stays exact, the profile has a gap",
                                  m_table[slot.first + i].name, slot.lost[i]));
        }
    }
}

} // namespace jp
