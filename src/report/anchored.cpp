// SPDX-License-Identifier: BSD-3-Clause
#include "report/anchored.hpp"

#include "report/field_shape.hpp"
#include "trace/types.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <span>
#include <string_view>

namespace jp::report {
namespace {

bool is_jump(const trace::ChannelSamples& s, std::size_t i) {
    return i < s.flags.size() && (s.flags[i] & trace::k_flag_jump) != 0;
}

void push(trace::ChannelSamples& out, TimedValue v, std::uint8_t flags) {
    out.points.push_back(v);
    out.flags.push_back(flags);
}

} // namespace

trace::ChannelSamples anchor_profile(const trace::ChannelSamples& counter,
                                     const trace::ChannelSamples& field,
                                     std::vector<AnchorSpan>* spans,
                                     std::int64_t centre_ns) {
    return anchor_shape(counter, usable_power(field.points, centre_ns), spans);
}

trace::ChannelSamples anchor_shape(const trace::ChannelSamples& counter,
                                   const std::vector<TimedValue>& shape,
                                   std::vector<AnchorSpan>* spans) {
    const auto& c = counter.points;
    const auto& f = shape;
    if (c.size() < 2 || f.size() < 2) {
        return counter;
    }
    const FieldIntegral g{f};
    const auto flag_of = [&](std::size_t i) {
        return i < counter.flags.size() ? counter.flags[i] : std::uint8_t{0};
    };
    trace::ChannelSamples out;
    out.points.reserve(c.size() + f.size());
    out.flags.reserve(c.size() + f.size());
    push(out, c.front(), flag_of(0));
    auto inner = f.begin(); // the first field reading after the span's start
    for (std::size_t i = 1; i < c.size(); ++i) {
        const auto& a = c[i - 1];
        const auto& b = c[i];
        if (b.t_ns > a.t_ns) {
            AnchorSpan span{a.t_ns, b.t_ns, b.value - a.value, g(b.t_ns) - g(a.t_ns), false};
            inner =
                std::upper_bound(inner, f.end(), a.t_ns,
                                 [](std::int64_t t, const TimedValue& v) { return t < v.t_ns; });
            const bool inside = inner != f.end() && inner->t_ns < b.t_ns;
            span.profiled = inside && span.counter_j >= 0 && std::isfinite(span.counter_j) &&
                            span.field_j > 0 && std::isfinite(span.field_j) &&
                            !is_jump(counter, i - 1) && !is_jump(counter, i);
            if (span.profiled) {
                const double g0 = g(a.t_ns);
                const double k = span.counter_j / span.field_j;
                for (auto it = inner; it != f.end() && it->t_ns < b.t_ns; ++it) {
                    const double at = g.at_index(static_cast<std::size_t>(it - f.begin()));
                    push(out, {it->t_ns, a.value + k * (at - g0)}, trace::k_flag_profiled);
                }
            }
            if (spans != nullptr) {
                spans->push_back(span);
            }
        }
        push(out, b, flag_of(i));
    }
    return out;
}

namespace {

// Half the window a power channel's readings average over: where each one stands.
std::int64_t centre_of(const Channel& c) {
    return c.averaging_ns.value_or(0) / 2;
}

// The detail for a counter whose profile is a mean: the first other power channel within the
// counter (`parent`), of the same backend and device, whose readings are not means (an
// NVIDIA GPU's "gpuN.instant").
std::optional<std::size_t>
detail_of(const std::vector<Channel>& channels, std::size_t counter, std::size_t level) {
    if (channels[level].averaging_ns.value_or(0) <= 0) {
        return std::nullopt;
    }
    const auto& owner = channels[counter];
    for (std::size_t k = 0; k < channels.size(); ++k) {
        const auto& c = channels[k];
        if (k != level && k != counter && c.quantity == Quantity::power && c.parent == owner.name &&
            c.backend == owner.backend && c.device == owner.device &&
            c.averaging_ns.value_or(0) <= 0) {
            return k;
        }
    }
    return std::nullopt;
}

// Whether two power readings are on one scale: over the time both cover, the one's integral
// within a third either way of the other's (on the real GPUs an instant field's part-time
// coverage put it at 0.85-1.05 of the counter over a run, 0.71-1.24 over single 10 s spans;
// a field in other units is off by 1000). A short run where the two differ more keeps the
// mean alone.
bool same_scale(const std::vector<TimedValue>& a, const std::vector<TimedValue>& b) {
    const auto from = std::max(a.front().t_ns, b.front().t_ns);
    const auto to = std::min(a.back().t_ns, b.back().t_ns);
    if (to <= from) {
        return false;
    }
    const FieldIntegral ga{a};
    const FieldIntegral gb{b};
    const double ja = ga(to) - ga(from);
    const double jb = gb(to) - gb(from);
    return ja > 0 && jb > 0 && 3 * jb <= 4 * ja && 3 * ja <= 4 * jb;
}

} // namespace

// The shape of an anchored counter's spans: its level, with the detail's where one is named,
// updates faster than the level's window (else it is no instant reading beside a mean) and
// is on the level's scale. A reading above twice what the counter's part may draw is no
// power reading (a glitch, a crafted trace) and shapes nothing, as a counter's change that
// large is a jump (docs/sensors.md).
Shape shape_of(const std::vector<Channel>& channels,
               std::size_t counter,
               const Profile& profile,
               const trace::ChannelSamples& level,
               const trace::ChannelSamples* detail) {
    const auto limit = channels[counter].limit_watts.value_or(0);
    const auto drop_absurd = [limit](std::vector<TimedValue>& v) {
        if (limit > 0) {
            std::erase_if(v, [limit](const TimedValue& r) { return r.value > 2 * limit; });
        }
    };
    const auto window = channels[profile.level].averaging_ns.value_or(0);
    auto placed = usable_power(level.points, window / 2);
    drop_absurd(placed);
    if (detail == nullptr || !profile.detail || placed.size() < 2) {
        return {std::move(placed)};
    }
    const auto update = channels[*profile.detail].update_ns.value_or(0);
    if (update < 0 || update >= window) {
        return {std::move(placed)};
    }
    auto instant = usable_power(detail->points, update / 2);
    drop_absurd(instant);
    if (instant.size() < 2 || !same_scale(placed, instant)) {
        return {std::move(placed)};
    }
    // A stretch of the instant readings ends at a gap of two updates (a reading lost or more).
    const auto max_gap = update > 0 ? 2 * update : window / 4;
    return level_and_detail(placed, instant, window, max_gap);
}

ProfileIndex profile_index(const std::vector<Channel>& channels) {
    ProfileIndex out(channels.size());
    std::map<std::string_view, std::size_t> counters;
    for (std::size_t i = 0; i < channels.size(); ++i) {
        if (channels[i].quantity == Quantity::energy) {
            counters.emplace(channels[i].name, i);
        }
    }
    for (std::size_t i = 0; i < channels.size(); ++i) {
        const auto& c = channels[i];
        if (c.quantity != Quantity::power || c.profile_of.empty()) {
            continue;
        }
        if (const auto it = counters.find(c.profile_of); it != counters.end() && !out[it->second]) {
            out[it->second] = Profile{i, std::nullopt};
        }
    }
    // Each counter's detail, once the profiles are known: a crafted trace's thousands of
    // channels are walked once per profiled counter, and a real one has a few.
    for (std::size_t i = 0; i < channels.size(); ++i) {
        if (out[i]) {
            out[i]->detail = detail_of(channels, i, out[i]->level);
        }
    }
    return out;
}

namespace {

struct Pair {
    trace::ChannelSamples counter;
    trace::ChannelSamples field;
    std::int64_t centre_ns = 0;
};

Result<Pair>
read_pair(trace::Reader& reader, std::int64_t run_id, std::size_t counter, std::size_t field) {
    auto c = reader.samples(run_id, counter);
    if (!c) {
        return std::unexpected(c.error());
    }
    auto f = reader.samples(run_id, field);
    if (!f) {
        return std::unexpected(f.error());
    }
    return Pair{std::move(*c), std::move(*f), centre_of(reader.channels()[field])};
}

} // namespace

Result<trace::ChannelSamples> run_readings(trace::Reader& reader,
                                           std::int64_t run_id,
                                           std::size_t channel,
                                           const ProfileIndex& profiles) {
    const auto profile = channel < profiles.size() ? profiles[channel] : std::nullopt;
    if (!profile) {
        return reader.samples(run_id, channel);
    }
    auto pair = read_pair(reader, run_id, channel, profile->level);
    if (!pair) {
        return std::unexpected(pair.error());
    }
    std::optional<trace::ChannelSamples> detail;
    if (profile->detail) {
        auto d = reader.samples(run_id, *profile->detail);
        if (!d) {
            return std::unexpected(d.error());
        }
        detail = std::move(*d);
    }
    const auto shape =
        shape_of(reader.channels(), channel, *profile, pair->field, detail ? &*detail : nullptr);
    return anchor_shape(pair->counter, shape.points, nullptr);
}

std::optional<FieldCoverage> coverage_of(const std::string& counter,
                                         const std::string& field,
                                         const std::vector<AnchorSpan>& spans,
                                         bool profile) {
    FieldCoverage out;
    out.counter = counter;
    out.field = field;
    out.profile = profile;
    double sum_c = 0;
    double sum_f = 0;
    bool ranged = false;
    for (const auto& s : spans) {
        if (!s.profiled || s.counter_j <= 0) {
            continue;
        }
        ++out.spans;
        sum_c += s.counter_j;
        sum_f += s.field_j;
        if (s.counter_j >= k_coverage_min_j) {
            const double r = s.field_j / s.counter_j;
            out.min_ratio = ranged ? std::min(out.min_ratio, r) : r;
            out.max_ratio = ranged ? std::max(out.max_ratio, r) : r;
            ranged = true;
        }
    }
    if (out.spans == 0 || sum_c <= 0) {
        return std::nullopt;
    }
    out.ratio = sum_f / sum_c;
    if (!ranged) {
        out.min_ratio = out.max_ratio = out.ratio;
    }
    return out;
}

Result<std::vector<FieldCoverage>> field_coverage(trace::Reader& reader, std::int64_t run_id) {
    std::vector<FieldCoverage> out;
    const auto& channels = reader.channels();
    const auto profiles = profile_index(channels);
    for (std::size_t i = 0; i < channels.size(); ++i) {
        if (!profiles[i]) {
            continue;
        }
        // The profile, then every other power reading within the counter (the instant field).
        std::vector<std::size_t> fields{profiles[i]->level};
        for (std::size_t k = 0; k < channels.size(); ++k) {
            if (k != profiles[i]->level && channels[k].quantity == Quantity::power &&
                channels[k].parent == channels[i].name) {
                fields.push_back(k);
            }
        }
        std::vector<Pair> pairs;
        for (const auto k : fields) {
            auto pair = read_pair(reader, run_id, i, k);
            if (!pair) {
                return std::unexpected(pair.error());
            }
            pairs.push_back(std::move(*pair));
        }
        // The detail is named only where it shaped something in this run.
        std::string detail;
        if (const auto& p = *profiles[i]; p.detail) {
            const auto at = std::ranges::find(fields, *p.detail);
            if (at != fields.end()) {
                const auto& d = pairs[static_cast<std::size_t>(at - fields.begin())].field;
                const auto shape = shape_of(channels, i, p, pairs.front().field, &d);
                const auto& reads = pairs.front().counter.points;
                if (shape.detailed > 0 && !reads.empty() &&
                    shape.detail_to_ns >= reads.front().t_ns &&
                    shape.detail_from_ns <= reads.back().t_ns) {
                    detail = channels[*p.detail].name; // it shaped the counter's spans
                }
            }
        }
        for (std::size_t f = 0; f < fields.size(); ++f) {
            std::vector<AnchorSpan> spans;
            (void)anchor_profile(pairs[f].counter, pairs[f].field, &spans, pairs[f].centre_ns);
            if (auto c = coverage_of(channels[i].name, channels[fields[f]].name, spans, f == 0)) {
                if (c->profile) {
                    c->detail = detail;
                }
                out.push_back(std::move(*c));
            }
        }
    }
    return out;
}

std::string coverage_note(const FieldCoverage& c) {
    const auto range = c.min_ratio == c.max_ratio
                           ? std::string{}
                           : fmt::format(" ({:.2f}-{:.2f})", c.min_ratio, c.max_ratio);
    std::string shaped;
    if (c.profile) {
        shaped = c.detail.empty()
                     ? "; the profile and phases between reads are it, scaled to the counter in "
                       "each span"
                     : fmt::format("; the profile and phases between reads are its level with "
                                   "{}'s detail, scaled to the counter in each span",
                                   c.detail);
    }
    return fmt::format("{}: {} integrates to {:.2f} × its energy counter over {} span{} between "
                       "the counter's reads{}{}",
                       c.counter, c.field, c.ratio, c.spans, c.spans == 1 ? "" : "s", range,
                       shaped);
}

} // namespace jp::report
