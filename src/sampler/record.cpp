// SPDX-License-Identifier: BSD-3-Clause
// One reading into the run: the counter unwrapped, live figures, events; the record to queue.
#include "core/duration.hpp"
#include "core/log.hpp"
#include "sampler/sampler.hpp"
#include "sampler/sampler_state.hpp"

#include <string>

namespace jp {

using sensors::ReadStatus;
using trace::SampleRecord;

std::optional<SampleRecord>
Sampler::record(std::size_t index, const sensors::Value& v, std::int64_t t, std::uint8_t flags) {
    auto& st = *m_states[index];
    const auto& channel = m_table[index];
    const auto ch = static_cast<std::int32_t>(index);
    if (v.status != ReadStatus::ok) {
        if (v.status != ReadStatus::retry && !st.reported) {
            st.reported = true;
            add_event(ch, t, v.status == ReadStatus::gone ? "gone" : "read_error",
                      channel.name + (v.status == ReadStatus::gone ? " disappeared"
                                                                   : " can no longer be read"));
        }
        return std::nullopt;
    }
    if (st.have_last && t <= st.last_t) {
        return std::nullopt; // a source's own timestamp no newer than what we have
    }
    double value = v.value;
    if (channel.quantity == Quantity::energy) {
        if (st.needs_reset || !st.tracker.started()) {
            st.tracker.reset(v.value, t);
            st.needs_reset = false;
            value = 0;
        } else {
            const auto step = st.tracker.update(v.value, t);
            const double dt = static_cast<double>(t - st.last_t) * 1e-9;
            if (dt > 0) { // a return below the estimates is a negative step: not a power
                st.live_watts.store(std::max(0.0, step.delta_joules / dt),
                                    std::memory_order_relaxed);
            }
            // A provisional total (a jump not yet resolved) is flagged like the jump.
            const bool estimated = step.jump || step.provisional;
            flags = static_cast<std::uint8_t>(flags | (estimated ? trace::k_flag_jump : 0) |
                                              (step.wrapped ? trace::k_flag_wrapped : 0));
            if (step.jump) {
                add_event(ch, t, "jump",
                          channel.name + ": impossible counter change, held at " +
                              std::to_string(st.live_watts.load(std::memory_order_relaxed)) + " W");
            }
            if (step.returned) {
                add_event(ch, t, "returned",
                          channel.name + ": the counter is back on its series after a jump; the "
                                         "energy in between is counted once");
            }
            if (step.settled) {
                add_event(ch, t, "reset",
                          channel.name + ": the counter did not return to its series within " +
                              format_duration(Nanos{CounterTracker::k_hold_ns}) +
                              " of its last good reading: taken as a reset; the energy from "
                              "that reading to the jump is estimated at the power before it");
            }
            if (step.stuck) {
                add_event(ch, t, "stuck", channel.name + ": counter unchanged for 5 s or more");
            }
            value = st.tracker.total();
        }
        st.live_joules.store(value, std::memory_order_relaxed);
    } else if (channel.quantity == Quantity::power) {
        if (st.have_last && !st.needs_reset) {
            const double dt = static_cast<double>(t - st.last_t) * 1e-9;
            st.live_joules.store(st.live_joules.load(std::memory_order_relaxed) +
                                     0.5 * (st.last_watts + value) * dt,
                                 std::memory_order_relaxed);
        }
        st.needs_reset = false;
        st.live_watts.store(value, std::memory_order_relaxed);
        st.last_watts = value;
    }
    st.last_t = t;
    st.have_last = true;
    return SampleRecord{ch, flags, t, value};
}

void Sampler::add_event(std::int32_t channel,
                        std::int64_t t,
                        std::string kind,
                        std::string detail) {
    JP_LOG_INFO("{}", detail);
    const std::lock_guard lock{m_event_mutex};
    m_events.push_back(trace::Event{m_run_id, channel, t, std::move(kind), std::move(detail)});
}

} // namespace jp
