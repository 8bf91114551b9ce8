// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/engine.hpp"

#include "core/clock.hpp"
#include "core/counter.hpp"
#include "core/log.hpp"
#include "sensors/registry.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fmt/format.h>

namespace jp::daemon {
namespace {

// Drained every tick, so it holds a few ticks' readings even at 1 ms (more where a source
// sampled in the kernel hands over a drain's worth at once: plan_intervals).
constexpr std::size_t k_queue_capacity = 1U << 15U;

// The longest interval at which a counter cannot wrap twice between reads at
// the highest power the channel can draw (twice its limit, or the plausible maximum).
std::optional<Nanos> wrap_safe_interval(const Channel& c) {
    if (c.quantity != Quantity::energy || !c.wrap_joules || *c.wrap_joules <= 0) {
        return std::nullopt;
    }
    const double max_w = plausible_max_watts(c);
    return Nanos{static_cast<std::int64_t>(*c.wrap_joules / max_w / 2 * 1e9)};
}

struct Plan {
    SamplerConfig sampling;
    std::vector<Nanos> per_channel;
    // How late each channel's readings may arrive beyond its interval: a source sampled in
    // the kernel hands them over a drain late.
    std::vector<Nanos> lag;
    std::vector<std::string> notes;
};

Plan plan_intervals(const std::vector<std::unique_ptr<sensors::Sensor>>& sensors,
                    const DaemonConfig& config) {
    Plan p;
    p.sampling.default_interval = config.daemon.interval;
    p.sampling.queue_capacity = k_queue_capacity;
    if (config.sensors.kernel_drain) {
        p.sampling.drain_interval = *config.sensors.kernel_drain;
    }
    std::map<std::string, Nanos, std::less<>> wanted;
    std::size_t burst = 0; // readings the kernel-sampled sources hand over in one drain
    for (const auto& s : sensors) {
        const std::string backend{s->backend()};
        auto it = config.sensors.intervals.find(backend);
        Nanos w = it != config.sensors.intervals.end() ? it->second : config.daemon.interval;
        for (const auto& c : s->channels()) {
            if (auto cap = wrap_safe_interval(c); cap && *cap < w) {
                p.notes.push_back(fmt::format("{}: read every {} (not {}) so that {} cannot wrap "
                                              "unseen",
                                              backend, format_duration(*cap), format_duration(w),
                                              c.name));
                w = *cap;
            }
        }
        auto [pos, fresh] = wanted.try_emplace(backend, w);
        pos->second = fresh ? w : std::min(pos->second, w);
    }
    for (const auto& s : sensors) {
        const auto w = std::max(wanted.at(std::string{s->backend()}), s->min_interval());
        p.sampling.backend_intervals[std::string{s->backend()}] = w;
        p.per_channel.insert(p.per_channel.end(), s->channels().size(), w);
        // A source sampled in the kernel hands its readings over at most a drain late (the
        // sampler drains it every drain_interval, whatever its interval), a drain's worth at once.
        const auto drain = s->batched() ? p.sampling.drain_interval : Nanos{0};
        p.lag.insert(p.lag.end(), s->channels().size(), drain);
        if (s->batched()) {
            burst += s->channels().size() * (static_cast<std::size_t>(drain / w) + 1);
        }
    }
    p.sampling.queue_capacity = std::max(k_queue_capacity, 2 * burst);
    return p;
}

} // namespace

Engine::Engine(std::vector<std::unique_ptr<sensors::Sensor>> sensors,
               std::vector<Channel> table,
               const SamplerConfig& sampling,
               const DaemonConfig& config)
    : m_channels(table), m_base_interval(config.daemon.interval), m_idle(table, config.daemon.idle),
      m_rules(config.access), m_random(std::random_device{}()) {
    const auto n = m_channels.size();
    const auto per_floor = static_cast<std::size_t>(config.daemon.history / config.access.floor);
    for (std::size_t i = 0; i < n; ++i) {
        const auto per_read = static_cast<std::size_t>(config.daemon.history / m_base_interval);
        m_history.emplace_back(std::clamp<std::size_t>(per_read, 64, 1U << 22U));
        m_published.emplace_back(std::clamp<std::size_t>(per_floor, 16, 1U << 16U));
    }
    m_published_upto.assign(n, 0);
    m_published_t.assign(n, 0);
    m_health.assign(n, ChannelHealth{});
    set_rules(config.access);
    m_sampler = std::make_unique<Sampler>(std::move(sensors), std::move(table), sampling, 0);
    m_started_ns = mono_ns();
    m_sampler->begin(0);
    // Every counter is 0 at the start, an instant anyone can learn (status' uptime): like
    // an exact read, no window is published within the floor of it.
    m_floored_reads.push_back({m_started_ns, mono_ns()});
}

Engine::~Engine() {
    if (m_sampler) {
        m_sampler->end();
    }
    try { // what was learned since the last save survives a stop or restart
        save_idle();
    } catch (const std::exception& e) {
        JP_LOG_WARN("idle history not saved: {}", e.what());
    }
}

Result<std::unique_ptr<Engine>> Engine::start(const sensors::Host& host_in,
                                              const DaemonConfig& config) {
    auto host = host_in;
    host.use_daemon = false;
    Config sensor_config = config.sensors;
    sensor_config.disabled.emplace("estimate"); // users model that themselves
    host.config = &sensor_config;
    auto found = sensors::discover_all(host);
    std::vector<std::string> notes = std::move(found.notes);
    for (const auto& f : found.unreadable) {
        notes.push_back(fmt::format("{}: {} cannot be read: {}", f.backend, f.what, f.reason));
    }
    if (found.sensors.empty()) {
        return fail(ErrorKind::not_found, "",
                    fmt::format("no sensor can be read on this node (sysfs root {}); `jouleprof "
                                "sensors` as root lists what is there and why the rest cannot be "
                                "read (the daemon serves no estimates)",
                                host.sysfs_root.string()));
    }
    auto table = sensors::channel_table(found.sensors);
    auto plan = plan_intervals(found.sensors, config);
    std::unique_ptr<Engine> e{
        new Engine(std::move(found.sensors), std::move(table), plan.sampling, config)};
    e->m_intervals = std::move(plan.per_channel);
    e->m_lag = std::move(plan.lag);
    e->m_notes = std::move(notes);
    e->m_notes.insert(e->m_notes.end(), plan.notes.begin(), plan.notes.end());
    e->start_idle_learning(host, config);
    return e;
}

void Engine::set_rules(const AccessRules& rules) {
    m_rules = rules;
    m_restricted.clear();
    for (const auto& c : m_channels) {
        m_restricted.push_back(std::ranges::find(rules.unrestricted_backends, c.backend) ==
                               rules.unrestricted_backends.end());
    }
    m_next_publish = 0; // the next tick opens a window with the new floor
    m_candidate.reset();
}

std::uint64_t Engine::missed_deadlines() const noexcept {
    return m_sampler->missed_deadlines();
}

void Engine::tick(std::int64_t now_ns) {
    m_records.clear();
    m_events.clear();
    read_busy(now_ns); // before the readings: a period they open has the CPUs' use at its start
    m_sampler->drain(m_records, m_events);
    absorb(m_records);
    for (const auto& e : m_events) {
        if (e.channel >= 0 && static_cast<std::size_t>(e.channel) < m_health.size()) {
            auto& h = m_health[static_cast<std::size_t>(e.channel)];
            // Readings the kernel sampler lost were drained late: ours, not the sensor's.
            h.errors += e.kind == "lost" ? 0U : 1U;
            h.up = h.up && e.kind != "gone" && e.kind != "read_error";
        }
    }
    if (m_candidate && now_ns >= m_candidate->chosen_ns + m_rules.floor.count()) {
        publish(now_ns);
    }
    if (now_ns >= m_next_publish) {
        choose(now_ns);
    }
    if (m_state_dir && now_ns >= m_next_idle_save) {
        m_next_idle_save = now_ns + k_idle_save.count();
        save_idle();
    }
}

void Engine::absorb(const std::vector<trace::SampleRecord>& records) {
    for (const auto& r : records) {
        const auto i = static_cast<std::size_t>(r.channel);
        auto& h = m_history[i];
        if ((!h.empty() && r.t_ns <= h.latest().t_ns) || !std::isfinite(r.value)) {
            continue; // an exact read and a tick at the same instant; never NaN on the wire
        }
        h.push({r.t_ns, r.value});
        m_idle.add(i, r.t_ns, r.value);
        m_health[i].up = true;
    }
}

void Engine::choose(std::int64_t now_ns) {
    Candidate c{++m_chosen, now_ns, std::vector<std::uint64_t>(m_channels.size(), 0)};
    const auto floor = m_rules.floor.count();
    for (std::size_t i = 0; i < m_channels.size(); ++i) {
        const auto& h = m_history[i];
        // A reading older than its channel's interval and the floor is not offered: the
        // floored reads that could veto it may already be forgotten (a stalled source).
        if (!h.empty() &&
            h.latest().t_ns >= now_ns - m_intervals[i].count() - m_lag[i].count() - floor) {
            c.seq[i] = h.newest();
            // Shown a floor after the newest reading in it, never sooner (a reading the
            // sampler's threads took after now).
            c.chosen_ns = std::max(c.chosen_ns, h.latest().t_ns);
        }
    }
    m_candidate = std::move(c);
    const auto jitter = m_rules.jitter.count();
    const auto extra =
        jitter > 0 ? std::uniform_int_distribution<std::int64_t>{0, jitter}(m_random) : 0;
    m_next_publish = now_ns + m_rules.floor.count() + extra;
}

bool Engine::near_floored_read(std::int64_t t_ns) const noexcept {
    const auto floor = m_rules.floor.count();
    return std::ranges::any_of(m_floored_reads, [&](const Span& s) {
        return s.last_ns > t_ns - floor && s.first_ns < t_ns + floor;
    });
}

void Engine::publish(std::int64_t now_ns) {
    const auto floor = m_rules.floor.count();
    for (std::size_t i = 0; i < m_channels.size(); ++i) {
        const auto& h = m_history[i];
        const auto seq = m_candidate->seq[i];
        if (seq == 0 || seq <= m_published_upto[i] || seq < h.oldest()) {
            continue;
        }
        Reading r = h.at(seq);
        // A slow channel's reading may be older than the instant chosen: keep the
        // floor between its own times too. Either way the window merges into the next.
        if ((m_published_t[i] != 0 && r.t_ns - m_published_t[i] < floor) ||
            near_floored_read(r.t_ns)) {
            continue;
        }
        if (m_channels[i].quantity != Quantity::energy) { // power, utilisation: the window's mean
            const auto from = std::max(h.oldest(), m_published_upto[i] + 1);
            double sum = 0;
            for (auto s = from; s <= seq; ++s) {
                sum += h.at(s).value;
            }
            r.value = sum / static_cast<double>(seq - from + 1);
        }
        m_published[i].push(r);
        m_published_upto[i] = seq;
        m_published_t[i] = r.t_ns;
    }
    m_published_window = m_candidate->number;
    m_candidate.reset();
    // What can no longer veto a window: the next candidate is chosen from now on, and
    // its readings are at most one channel interval, its lag and a floor old (choose()).
    auto slowest = m_base_interval;
    for (std::size_t i = 0; i < m_intervals.size(); ++i) {
        slowest = std::max(slowest, m_intervals[i] + m_lag[i]);
    }
    const auto horizon = now_ns - 3 * floor - slowest.count();
    while (!m_floored_reads.empty() && m_floored_reads.front().last_ns < horizon) {
        m_floored_reads.pop_front();
    }
}

void Engine::note_floored_read(std::int64_t first_ns, std::int64_t last_ns) {
    m_floored_reads.push_back({first_ns, last_ns});
}

std::vector<std::int64_t> Engine::read_times() const {
    return m_sampler->read_times();
}

void Engine::read_now(std::vector<std::pair<std::size_t, Reading>>& out) {
    std::vector<trace::SampleRecord> records;
    m_sampler->sample_now(records);
    for (const auto& r : records) {
        if (std::isfinite(r.value)) {
            out.emplace_back(static_cast<std::size_t>(r.channel), Reading{r.t_ns, r.value});
        }
    }
}

} // namespace jp::daemon
