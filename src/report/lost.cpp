// SPDX-License-Identifier: BSD-3-Clause
#include "report/lost.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <initializer_list>
#include <string_view>

namespace jp::report {
namespace {

// The channel an event of one of `kinds` is about, or null.
const Channel* event_channel(const trace::Reader& reader,
                             const trace::Event& e,
                             std::initializer_list<std::string_view> kinds) {
    const auto& channels = reader.channels();
    if (std::ranges::find(kinds, e.kind) == kinds.end() || e.channel < 0 ||
        static_cast<std::size_t>(e.channel) >= channels.size()) {
        return nullptr;
    }
    return &channels[static_cast<std::size_t>(e.channel)];
}

// fn(item) for the part or other item of that name.
template <class Fn> void for_items_named(RunSummary& out, const std::string& name, Fn&& fn) {
    for (auto* items : {&out.parts, &out.others}) {
        for (auto& it : *items) {
            if (it.name == name) {
                fn(it);
            }
        }
    }
}

// Seconds into the run of channel ch's last reading at or before t_ns (0 when none).
double
last_reading_s(trace::Reader& reader, const RunSummary& out, std::size_t ch, std::int64_t t_ns) {
    auto samples = reader.samples(out.run.id, ch);
    std::int64_t last = out.run.start_ns;
    if (samples) {
        for (const auto& p : samples->points) {
            if (p.t_ns <= t_ns) {
                last = std::max(last, p.t_ns);
            }
        }
    }
    return static_cast<double>(last - out.run.start_ns) * 1e-9;
}

} // namespace

// Channels that went away or became unreadable during the run: their figures
// cover only the time until their last reading, and the run is not a complete
// measurement. "Lost at" is that reading's time, so it agrees with the readings.
void mark_lost(trace::Reader& reader, RunSummary& out) {
    for (const auto& e : out.events) {
        const auto* c = event_channel(reader, e, {"gone", "read_error"});
        if (c == nullptr) {
            continue;
        }
        const auto ch = static_cast<std::size_t>(e.channel);
        const double noticed = static_cast<double>(e.t_ns - out.run.start_ns) * 1e-9;
        const double at = last_reading_s(reader, out, ch, e.t_ns);
        const auto mark = [&](Item& it) {
            it.lost_at_s = it.lost_at_s ? std::min(*it.lost_at_s, at) : at;
        };
        for_items_named(out, c->name, [&](Item& it) {
            mark(it);
            it.avg_w = at > 0 ? it.energy_j / at : 0; // over the time it covers
        });
        if (c->counted || c->domain == Domain::node) {
            mark(out.node);
            if (out.rest) {
                mark(*out.rest);
            }
        }
        out.complete = false;
        const double runtime =
            static_cast<double>(out.run.end_ns.value_or(e.t_ns) - out.run.start_ns) * 1e-9;
        out.notes.push_back(
            at <= 0 ? fmt::format("{} was lost {:.3f} s into the run ({}) with no reading after "
                                  "the start: it measured nothing of this run (its 0 J is not "
                                  "a figure), and the node's figure lacks it",
                                  c->name, noticed, e.detail)
                    : fmt::format("{} was lost {:.3f} s into the run ({}); its last reading was "
                                  "at {:.3f} s: its figures, and the node's, cover only those "
                                  "{:.3f} s of {:.3f} s (the rest is not counted, not as zero "
                                  "either)",
                                  c->name, noticed, e.detail, at, at, runtime));
    }
}

// Energy counters the monitor saw stuck (5 s unchanged) that never moved over the run.
void mark_never_changed(const trace::Reader& reader, RunSummary& out) {
    for (const auto& e : out.events) {
        const auto* c = event_channel(reader, e, {"stuck"});
        if (c == nullptr) {
            continue;
        }
        for_items_named(out, c->name, [&](Item& it) {
            if (it.energy_j == 0 && !it.never_changed) {
                it.never_changed = true;
                out.notes.push_back(fmt::format(
                    "{}: its counter never changed over the run: it measured nothing (a virtual "
                    "machine's power PMU that reads zero, or a disabled zone?)",
                    c->name));
            }
        });
    }
}

} // namespace jp::report
