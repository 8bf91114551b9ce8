// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/replay/replay.hpp"

#include "core/clock.hpp"
#include "trace/reader.hpp"

#include <fmt/format.h>

namespace jp::sensors::replay {
namespace {

// One recorded channel: its samples from the trace's first measured run,
// shifted so the recording starts at 0.
struct Track {
    std::vector<TimedValue> points;
    double loop_gain = 0; // energy added by each loop of the recording (energy channels)
};

// Plays the recording against the monotonic clock from the moment of
// discovery, looping at the end (energy keeps rising across loops).
class ReplaySensor final : public Sensor {
public:
    ReplaySensor(std::vector<Channel> channels, std::vector<Track> tracks, std::int64_t length_ns)
        : m_channels(std::move(channels)), m_tracks(std::move(tracks)), m_length(length_ns),
          m_t0(mono_ns()) {}

    std::string_view backend() const noexcept override { return "replay"; }
    std::span<const Channel> channels() const noexcept override { return m_channels; }

    void read(std::span<Value> out) noexcept override {
        const std::int64_t t = mono_ns() - m_t0;
        const std::int64_t loops = m_length > 0 ? t / m_length : 0;
        const std::int64_t in_loop = m_length > 0 ? t % m_length : 0;
        for (std::size_t i = 0; i < m_tracks.size(); ++i) {
            const auto& tr = m_tracks[i];
            if (tr.points.empty()) {
                out[i] = {0, ReadStatus::retry};
                continue;
            }
            const double v = interpolate(tr.points, in_loop);
            out[i] = {v + static_cast<double>(loops) * tr.loop_gain, ReadStatus::ok};
        }
    }

private:
    std::vector<Channel> m_channels;
    std::vector<Track> m_tracks;
    std::int64_t m_length;
    std::int64_t m_t0;
};

std::optional<trace::RunInfo> first_measured(const trace::Reader& r) {
    for (const auto& run : r.runs()) {
        if (run.kind == "measure") {
            return run;
        }
    }
    return r.runs().empty() ? std::nullopt : std::optional{r.runs().front()};
}

} // namespace

Discovery discover(const Host& host) {
    Discovery out;
    if (host.replay_trace.empty()) {
        return out;
    }
    auto reader = trace::Reader::open(host.replay_trace);
    if (!reader) {
        out.notes.push_back("replay: " + reader.error().message());
        return out;
    }
    const auto run = first_measured(*reader);
    if (!run) {
        out.notes.push_back("replay: " + host.replay_trace.string() + " holds no run");
        return out;
    }
    std::vector<Channel> channels;
    std::vector<Track> tracks;
    std::int64_t length = 0;
    for (std::size_t i = 0; i < reader->channels().size(); ++i) {
        auto s = reader->samples(run->id, i);
        if (!s || s->points.empty()) {
            continue;
        }
        Channel c = reader->channels()[i];
        c.source = fmt::format("replay of {} ({}: {})", host.replay_trace.filename().string(),
                               c.backend, c.source);
        c.backend = "replay";
        c.wrap_joules.reset(); // stored values are already unwrapped
        const TimedValue first = s->points.front();
        const TimedValue last = s->points.back();
        Track tr;
        tr.points.reserve(s->points.size());
        for (auto p : s->points) {
            tr.points.push_back({p.t_ns - first.t_ns, p.value});
        }
        length = std::max(length, last.t_ns - first.t_ns);
        if (c.quantity == Quantity::energy) {
            tr.loop_gain = last.value - first.value;
        }
        channels.push_back(std::move(c));
        tracks.push_back(std::move(tr));
    }
    if (channels.empty()) {
        out.notes.push_back("replay: no samples in " + host.replay_trace.string());
        return out;
    }
    out.notes.push_back(fmt::format("replay: playing {} channels of {} ({:.1f} s, looping)",
                                    channels.size(), host.replay_trace.string(),
                                    static_cast<double>(length) * 1e-9));
    out.sensors.push_back(
        std::make_unique<ReplaySensor>(std::move(channels), std::move(tracks), length));
    return out;
}

} // namespace jp::sensors::replay
