// SPDX-License-Identifier: BSD-3-Clause
#include "sampler/sampler.hpp"

#include "config/config.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "sampler/sampler_state.hpp"
#include "sys/thread_name.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <sys/prctl.h>
#include <system_error>
#include <utility>

namespace jp {

using sensors::ReadStatus;
using trace::SampleRecord;

namespace {
std::int64_t interval_for(const sensors::Sensor& s, const SamplerConfig& c) {
    Nanos interval = c.default_interval;
    if (auto it = c.backend_intervals.find(s.backend()); it != c.backend_intervals.end()) {
        interval = it->second;
    }
    return std::max(interval, s.min_interval()).count();
}

std::size_t queue_capacity(const std::vector<std::unique_ptr<sensors::Sensor>>& sensors,
                           const SamplerConfig& config) {
    if (config.queue_capacity != 0) {
        return config.queue_capacity;
    }
    constexpr std::size_t k_min = 1024;
    std::size_t n = 0;
    for (const auto& s : sensors) {
        const auto per_headroom = static_cast<std::size_t>(
            k_queue_headroom.count() / std::max<std::int64_t>(1, interval_for(*s, config)));
        n += s->channels().size() * (per_headroom + 2); // + the two edge reads
    }
    return std::max(n, k_min);
}
} // namespace

SamplerConfig sampler_config(Nanos interval, const Config& config) {
    SamplerConfig out{interval, config.intervals};
    if (config.kernel_drain) {
        out.drain_interval = *config.kernel_drain;
    }
    return out;
}

Sampler::Sampler(std::vector<std::unique_ptr<sensors::Sensor>> sensors,
                 std::vector<Channel> table,
                 const SamplerConfig& config,
                 std::int64_t epoch_mono_ns)
    : m_sensors(std::move(sensors)), m_table(std::move(table)), m_epoch(epoch_mono_ns),
      m_queue(queue_capacity(m_sensors, config)) {
    std::size_t first = 0;
    for (const auto& s : m_sensors) {
        auto slot = std::make_unique<Slot>();
        slot->sensor = s.get();
        slot->first = first;
        slot->interval = interval_for(*s, config);
        slot->buf.resize(s->channels().size());
        slot->records.reserve(s->channels().size()); // a timer tick's: no allocation
        s->prepare(Nanos{slot->interval});           // decides whether it samples on its own
        slot->batched = s->batched();
        slot->own_thread = slot->batched || s->slow();
        if (slot->batched) {
            slot->interval = std::max<std::int64_t>(1, config.drain_interval.count());
        }
        first += s->channels().size();
        m_slots.push_back(std::move(slot));
    }
    for (std::size_t i = 0; i < m_table.size(); ++i) {
        const auto& c = m_table[i];
        const bool node = c.domain == Domain::node;
        m_states.push_back(std::make_unique<ChannelState>(
            CounterTracker{c.wrap_joules, plausible_max_watts(c), c.update_ns}));
        if (node && c.counted && c.quantity != Quantity::utilization && !m_node_channel) {
            m_node_channel = i;
        }
    }
}

Sampler::~Sampler() {
    stop_threads();
}

std::int64_t Sampler::now() const noexcept {
    return mono_ns() - m_epoch;
}

std::int64_t Sampler::begin(std::int64_t run_id) {
    stop_threads();
    m_run_id = run_id;
    m_lateness.clear();
    for (auto& st : m_states) {
        st->have_last = false;
        st->needs_reset = true;
        st->reported = false;
        st->live_joules = 0;
        st->live_watts = 0;
        st->longest_call = 0;
    }
    for (auto& slot : m_slots) {
        const std::lock_guard lock{slot->mutex};
        slot->discard_backlog = true; // what it took before the run is not the run's
        slot->ended = false;
        slot->end_pending = false;
    }
    read_edges(nullptr);
    const std::int64_t edge = now(); // the job starts right after these reads
    m_alarm.rearm();
    try { // a thread that cannot start stops those that did: running() only after a begin()
        for (auto& slot : m_slots) {
            slot->next = edge + slot->interval;
            if (slot->own_thread) {
                if (!slot->sensor->read_at_edges()) {
                    slot->next = edge; // first reading at once
                }
                m_threads.emplace_back([this, s = slot.get()] { slow_loop(*s); });
            }
        }
        m_threads.emplace_back([this] { fast_loop(); });
    } catch (...) {
        stop_threads();
        throw;
    }
    return edge;
}

std::int64_t Sampler::sample_now(std::vector<SampleRecord>& out) {
    read_edges(&out);
    return now();
}

std::int64_t Sampler::end() {
    const std::int64_t edge = now();
    for (auto& slot : m_slots) {
        const std::lock_guard lock{slot->mutex};
        slot->end_pending = true;
    }
    read_edges(nullptr);
    stop_threads();
    return edge;
}

void Sampler::read_edges(std::vector<SampleRecord>* out) {
    const auto read_slot = [this](Slot& slot, std::vector<SampleRecord>* to) {
        const std::lock_guard lock{slot.mutex};
        if (slot.batched) { // its readings before the edge (none before the run), then the edge's
            drain_slot(slot, !std::exchange(slot.discard_backlog, false));
        }
        sample_slot(slot, trace::k_flag_edge, to);
        slot.ended = std::exchange(slot.end_pending, false); // nothing after the end edge
    };
    std::vector<Slot*> slow;
    for (auto& slot : m_slots) {
        if (slot->sensor->read_at_edges() && slot->sensor->slow()) {
            slow.push_back(slot.get());
        }
    }
    // Slow reads beyond the first go to threads of their own; the first, and every fast
    // sensor, are read here meanwhile. A thread that cannot be made reads here instead.
    // Handed back (sample_now) fast sensors' records first, then the slow ones'.
    std::vector<std::vector<SampleRecord>> slow_out(slow.size());
    std::vector<std::jthread> threads;
    threads.reserve(slow.size()); // so that emplace_back throws nothing but a thread's failure
    for (std::size_t k = 1; k < slow.size(); ++k) {
        try {
            threads.emplace_back(read_slot, std::ref(*slow[k]),
                                 out != nullptr ? &slow_out[k] : nullptr);
        } catch (const std::system_error&) {
            read_slot(*slow[k], out != nullptr ? &slow_out[k] : nullptr);
        }
    }
    if (!slow.empty()) {
        read_slot(*slow.front(), out != nullptr ? &slow_out.front() : nullptr);
    }
    for (auto& slot : m_slots) {
        if (slot->sensor->read_at_edges() && !slot->sensor->slow()) {
            read_slot(*slot, out);
        }
    }
    threads.clear(); // joined
    if (out != nullptr) {
        for (auto& records : slow_out) {
            out->insert(out->end(), records.begin(), records.end());
        }
    }
}

void Sampler::stop_threads() {
    m_alarm.stop();
    for (auto& t : m_threads) {
        t.join();
    }
    m_threads.clear();
}

void Sampler::fast_loop() {
    sys::name_this_thread("jp-sample");
    // The kernel may wake a sleeping thread up to its timer slack late (50 µs
    // by default), which at 1 kHz is a twentieth of the interval: ask for none.
    (void)::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    while (true) {
        std::int64_t next = INT64_MAX;
        for (const auto& s : m_slots) {
            if (!s->own_thread) {
                next = std::min(next, s->next);
            }
        }
        if (m_alarm.sleep_until(next == INT64_MAX ? INT64_MAX : next + m_epoch)) {
            break;
        }
        const std::int64_t t = now();
        m_lateness.add(t - next);
        for (auto& s : m_slots) {
            if (s->own_thread || s->next > t) {
                continue;
            }
            {
                const std::lock_guard slot_lock{s->mutex};
                if (!s->ended) {
                    sample_slot(*s, 0, nullptr);
                }
            }
            s->next += s->interval;
            if (s->next <= t) { // fell behind: keep the phase, skip what was missed
                const auto behind = (t - s->next) / s->interval + 1;
                m_missed.fetch_add(static_cast<std::uint64_t>(behind));
                s->next += behind * s->interval;
            }
        }
    }
}

void Sampler::slow_loop(Slot& slot) {
    sys::name_this_thread(std::string{"jp-"}.append(slot.sensor->backend()));
    while (!m_alarm.sleep_until(slot.next + m_epoch)) {
        bool running = false;
        {
            const std::lock_guard slot_lock{slot.mutex};
            running = !slot.ended;
            if (slot.ended) {
                // the end edge was read: nothing more this run
            } else if (slot.batched) {
                drain_slot(slot, true);
            } else {
                sample_slot(slot, 0, nullptr);
            }
        }
        if (running && &slot == m_companion_slot && !slot.companion_failed) {
            try {
                m_companion(now());
            } catch (const std::exception& e) { // nothing may escape a thread: the run goes on
                JP_LOG_WARN("sampler: the drain's companion failed ({}); it runs no more",
                            e.what());
                slot.companion_failed = true;
            }
        }
        slot.next = std::max(slot.next + slot.interval, now());
    }
}

bool Sampler::set_drain_companion(std::function<void(std::int64_t)> fn) {
    const auto it = std::ranges::find_if(m_slots, [](const auto& s) { return s->batched; });
    if (it == m_slots.end() || !fn) {
        return false;
    }
    m_companion_slot = it->get();
    m_companion = std::move(fn);
    return true;
}

void Sampler::sample_slot(Slot& slot, std::uint8_t flags, std::vector<SampleRecord>* out) {
    const bool edge = (flags & trace::k_flag_edge) != 0;
    slot.records.clear(); // none left from a call that threw after queueing them
    const std::int64_t before = now();
    if (edge) {
        slot.sensor->read_edge(slot.buf);
    } else {
        slot.sensor->read(slot.buf);
    }
    const std::int64_t after = now();
    const std::int64_t t_read = before + (after - before) / 2;
    for (std::size_t i = 0; i < slot.buf.size(); ++i) {
        const auto& v = slot.buf[i];
        // A source's own time may lie anywhere in the call (a daemon's edge read that
        // waited for its floor is taken at the call's end), never after it.
        const std::int64_t t = v.t_mono_ns != 0 ? std::min(v.t_mono_ns - m_epoch, after) : t_read;
        if (v.status == ReadStatus::ok) {
            note_call(slot.first + i, v.t_mono_ns == 0 ? after - before : v.call_ns);
        }
        // Stale: taken before the edge was asked for. A value taken during a
        // slow call (a daemon on a busy machine) is exact and keeps its own time.
        if (edge && v.status == ReadStatus::ok && before - t > k_stale_edge_ns) {
            add_event(static_cast<std::int32_t>(slot.first + i), t_read, "stale_edge",
                      fmt::format("{}: the edge value was read {} before the edge (the source "
                                  "had no fresher one)",
                                  m_table[slot.first + i].name,
                                  format_duration(Nanos{before - t})));
        }
        if (auto rec = record(slot.first + i, v, t, flags)) {
            slot.records.push_back(*rec);
        }
    }
    m_queue.push(slot.records);
    if (out != nullptr) {
        out->insert(out->end(), slot.records.begin(), slot.records.end());
    }
    slot.records.clear();
}

void Sampler::note_call(std::size_t index, std::int64_t call_ns) {
    auto& longest = m_states[index]->longest_call;
    if (call_ns > longest.load(std::memory_order_relaxed)) {
        longest.store(call_ns, std::memory_order_relaxed); // writers hold the slot's mutex
    }
}

std::vector<std::int64_t> Sampler::read_times() const {
    std::vector<std::int64_t> out;
    out.reserve(m_states.size());
    for (const auto& st : m_states) {
        out.push_back(st->longest_call.load(std::memory_order_relaxed));
    }
    return out;
}

void Sampler::drain(std::vector<SampleRecord>& samples, std::vector<trace::Event>& events) {
    m_queue.drain(samples);
    // Energy stays exact (counters are cumulative); the profile loses detail.
    if (const auto dropped = m_queue.dropped(); dropped > m_dropped_reported) {
        add_event(-1, now(), "dropped",
                  fmt::format("{} readings dropped: the trace writer fell behind by more than "
                              "the sampler's queue holds ({} readings); energy totals stay "
                              "exact, the power profile has gaps",
                              dropped - m_dropped_reported, m_queue.capacity()));
        m_dropped_reported = dropped;
    }
    const std::lock_guard lock{m_event_mutex};
    for (auto& e : m_events) {
        events.push_back(std::move(e));
    }
    m_events.clear();
}

LiveFigures Sampler::live() const noexcept {
    if (m_node_channel) {
        const auto& st = *m_states[*m_node_channel];
        return {st.live_watts.load(), st.live_joules.load()};
    }
    LiveFigures f;
    for (std::size_t i = 0; i < m_table.size(); ++i) {
        const auto& c = m_table[i];
        if (c.counted && c.quantity != Quantity::utilization) {
            f.watts += m_states[i]->live_watts.load();
            f.joules += m_states[i]->live_joules.load();
        }
    }
    return f;
}

} // namespace jp
