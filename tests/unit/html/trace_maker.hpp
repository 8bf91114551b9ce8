// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Writes traces with known content for the HTML report's tests (and the
// browser test): channels follow given power functions, energy channels are
// stored as cumulative joules, runs carry markers.
#include "trace/writer.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace jp::test {

inline constexpr std::int64_t k_sec = 1'000'000'000;

inline Channel
channel(std::string name, Domain d, Quantity q, Provenance p = Provenance::measured) {
    Channel c;
    c.name = std::move(name);
    c.domain = d;
    c.quantity = q;
    c.provenance = p;
    c.backend = "test";
    return c;
}

struct ChannelSpec {
    Channel channel;
    std::function<double(double)> watts; // power at t seconds into the run
};

struct RunSpec {
    std::string label = "job";
    std::string kind = "measure";
    std::string command = "./job";
    double seconds = 10;
    double step_s = 1;
    std::vector<trace::Marker> markers; // t_ns relative to the run's start
};

// Creates the trace at `path` (it must not exist) and returns false on failure.
inline bool make_trace(const std::filesystem::path& path,
                       const std::vector<ChannelSpec>& specs,
                       const std::vector<RunSpec>& runs,
                       const std::map<std::string, std::string>& meta = {}) {
    auto w = trace::Writer::create(path, meta);
    if (!w) {
        return false;
    }
    std::vector<Channel> chans;
    for (const auto& s : specs) {
        chans.push_back(s.channel);
    }
    if (!w->add_channels(chans)) {
        return false;
    }
    std::int64_t t = 0;
    std::map<std::string, int> repeats;
    for (const auto& rs : runs) {
        trace::RunInfo r;
        r.label = rs.label;
        r.kind = rs.kind;
        r.command = rs.command;
        r.repeat = ++repeats[rs.label + "/" + rs.kind];
        r.start_ns = t;
        r.start_utc = "2026-11-22T07:00:00Z";
        auto id = w->begin_run(r);
        if (!id) {
            return false;
        }
        r.id = *id;
        const auto n = static_cast<std::int64_t>(rs.seconds / rs.step_s + 0.5);
        const auto step = static_cast<std::int64_t>(rs.step_s * 1e9);
        std::vector<double> energy(specs.size(), 0.0);
        std::vector<trace::SampleRecord> batch;
        for (std::int64_t k = 0; k <= n; ++k) {
            const double ts = static_cast<double>(k) * rs.step_s;
            for (std::size_t i = 0; i < specs.size(); ++i) {
                double v = specs[i].watts(ts);
                if (specs[i].channel.quantity == Quantity::energy) {
                    if (k > 0) { // the power at the start of the interval ending now
                        energy[i] += specs[i].watts(ts - rs.step_s) * rs.step_s;
                    }
                    v = energy[i];
                }
                batch.push_back({static_cast<std::int32_t>(i), 0, t + k * step, v});
            }
            if (batch.size() >= 50'000) {
                if (!w->append(batch, r.id)) {
                    return false;
                }
                batch.clear();
            }
        }
        if (!w->append(batch, r.id)) {
            return false;
        }
        for (auto m : rs.markers) {
            m.run_id = r.id;
            m.t_ns += t;
            if (!w->add_marker(m)) {
                return false;
            }
        }
        r.end_ns = t + n * step;
        r.status = "complete";
        r.exit_code = 0;
        if (!w->end_run(r)) {
            return false;
        }
        t += (n + 5) * step;
    }
    return w->commit().has_value();
}

} // namespace jp::test
