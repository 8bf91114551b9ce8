// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Writes traces with known content for report tests: each channel follows a
// power profile that is constant over each sample interval, so the exact
// energy of any window is known independently of the report code.
#include "trace/reader.hpp"
#include "trace/writer.hpp"

#include <cmath>
#include <filesystem>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace jp::test {

inline constexpr std::int64_t k_s = 1'000'000'000;

inline Channel channel(std::string name,
                       Domain d,
                       Quantity q,
                       Provenance p = Provenance::measured,
                       std::optional<double> limit_watts = std::nullopt) {
    Channel c;
    c.name = std::move(name);
    c.domain = d;
    c.quantity = q;
    c.provenance = p;
    c.backend = "test";
    c.limit_watts = limit_watts;
    c.counted = q != Quantity::utilization;
    return c;
}

// Power (W) of channel ch during [t, t + step) s after the run began;
// utilisation channels: percent.
using Profile = std::function<double(std::size_t ch, double t)>;

struct RunSpec {
    std::string label = "default";
    std::string kind = "measure";
    double seconds = 10;
    double step_s = 1;
    Profile watts;
    std::vector<std::tuple<double, std::string, std::string>> markers; // t (s), kind, name
    int exit_code = 0;
    std::optional<int> signal;       // killed by this signal (exit_code then unset)
    std::string status = "complete"; // as the monitor ended it: complete, interrupted
    std::string command = "job";
};

inline RunSpec make_run(std::string label, double seconds, Profile watts, double step_s = 1) {
    RunSpec r;
    r.label = std::move(label);
    r.seconds = seconds;
    r.step_s = step_s;
    r.watts = std::move(watts);
    return r;
}

// Power constant over the whole run.
inline Profile flat(double watts) {
    return [watts](std::size_t, double) { return watts; };
}

// Exact energy of a piecewise-constant profile over [a, b] (s since the run
// began), sampled the way TraceBuilder holds power over each step.
inline double exact_joules(const Profile& f, std::size_t ch, double step, double a, double b) {
    double joules = 0;
    for (double t = std::floor(a / step) * step; t < b; t += step) {
        const double lo = std::max(t, a);
        const double hi = std::min(t + step, b);
        if (hi > lo) {
            joules += f(ch, t) * (hi - lo);
        }
    }
    return joules;
}

class TraceBuilder {
public:
    TraceBuilder(std::filesystem::path path,
                 std::vector<Channel> channels,
                 std::map<std::string, std::string> meta = {})
        : m_path(std::move(path)), m_channels(std::move(channels)),
          m_writer(std::move(*trace::Writer::create(m_path, meta))) {
        EXPECT_TRUE(m_writer.add_channels(m_channels));
        EXPECT_TRUE(m_writer.commit());
    }

    std::int64_t run(const RunSpec& spec) {
        trace::RunInfo r;
        r.label = spec.label;
        r.kind = spec.kind;
        r.command = spec.command;
        r.repeat = ++m_repeats[spec.label + "/" + spec.kind];
        r.start_ns = m_t;
        r.id = *m_writer.begin_run(r);
        m_starts[r.id] = r.start_ns;
        std::vector<double> times;
        for (double t = 0; t < spec.seconds - 1e-9; t += spec.step_s) {
            times.push_back(t);
        }
        times.push_back(spec.seconds);
        std::vector<double> energy(m_channels.size(), 0.0);
        std::vector<trace::SampleRecord> samples;
        for (std::size_t k = 0; k < times.size(); ++k) {
            for (std::size_t i = 0; i < m_channels.size(); ++i) {
                if (k > 0) {
                    energy[i] += spec.watts(i, times[k - 1]) * (times[k] - times[k - 1]);
                }
                const bool e = m_channels[i].quantity == Quantity::energy;
                samples.push_back({static_cast<std::int32_t>(i), 0, at(times[k]),
                                   e ? energy[i] : spec.watts(i, times[k])});
            }
        }
        EXPECT_TRUE(m_writer.append(samples, r.id));
        for (const auto& [t, kind, name] : spec.markers) {
            EXPECT_TRUE(m_writer.add_marker({r.id, at(t), kind, name}));
        }
        r.end_ns = at(spec.seconds);
        r.status = spec.status;
        r.exit_code = spec.signal ? std::nullopt : std::optional<int>{spec.exit_code};
        r.signal = spec.signal;
        EXPECT_TRUE(m_writer.end_run(r));
        EXPECT_TRUE(m_writer.commit());
        m_t = at(spec.seconds) + 5 * k_s;
        return r.id;
    }

    // The run's CPU use for attribution (and who had its GPUs), times in ns since the run
    // began.
    void usage(std::int64_t run_id,
               std::string facts,
               const std::vector<trace::UsageRecord>& rows,
               const std::vector<trace::GpuUseRecord>& gpus = {}) {
        trace::Usage u{std::move(facts), rows, gpus};
        const auto start = m_starts.at(run_id);
        for (auto& r : u.records) {
            r.t_ns += start;
        }
        for (auto& r : u.gpus) {
            r.t_ns += start;
        }
        EXPECT_TRUE(m_writer.add_usage(run_id, u));
        EXPECT_TRUE(m_writer.commit());
    }

    [[nodiscard]] trace::Reader reader() const { return std::move(*trace::Reader::open(m_path)); }
    [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

private:
    [[nodiscard]] std::int64_t at(double t) const {
        return m_t + static_cast<std::int64_t>(std::llround(t * 1e9));
    }
    std::filesystem::path m_path;
    std::map<std::int64_t, std::int64_t> m_starts; // run id -> start_ns
    std::vector<Channel> m_channels;
    trace::Writer m_writer;
    std::int64_t m_t = 0;
    std::map<std::string, int> m_repeats;
};

} // namespace jp::test
