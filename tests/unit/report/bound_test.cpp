// SPDX-License-Identifier: BSD-3-Clause
// The counter bound against known truth: generated counters (update periods of
// 1 ms to 1 s, quanta, power that steps, ramps and oscillates near the update
// period, readings faster and slower than the updates, jobs of 20 ms to 60 s)
// whose true energy over the job must lie inside the stated bound in every
// case. Each read is a call that takes time (none, a sysfs read's tens of µs, an H100's
// ~4 ms energy read): its value is the counter's at some instant within the call, and is
// stamped at the call's middle, as the sampler does. The seed is printed so a failure
// reruns (JP_BOUND_SEED=N).
#include "core/channel.hpp"
#include "report/bound.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <gtest/gtest.h>
#include <random>
#include <vector>

namespace jp::report {
namespace {

constexpr std::int64_t k_ms = 1'000'000;
constexpr std::int64_t k_s = 1'000'000'000;

// Power held constant from each segment's start to the next one's.
struct Profile {
    std::vector<std::int64_t> t;
    std::vector<double> watts;
    std::vector<double> joules_before; // energy from t[0] to t[i]

    void add(std::int64_t at, double w) {
        if (!t.empty()) {
            joules_before.push_back(joules_before.back() +
                                    watts.back() * static_cast<double>(at - t.back()) * 1e-9);
        } else {
            joules_before.push_back(0);
        }
        t.push_back(at);
        watts.push_back(w);
    }
    [[nodiscard]] double energy(std::int64_t at) const {
        const auto it = std::ranges::upper_bound(t, at);
        const auto i = static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, it - t.begin() - 1));
        return joules_before[i] + watts[i] * static_cast<double>(at - t[i]) * 1e-9;
    }
};

struct Case {
    std::int64_t update_ns = 0;
    std::int64_t read_ns = 0;
    std::int64_t call_ns = 0; // the longest read call
    std::int64_t duration_ns = 0;
    double quantum = 0;
    double max_w = 0;
    Profile power;
    std::vector<TimedValue> readings;
    std::int64_t t0 = 0;
    std::int64_t t1 = 0;
};

Case generate(std::mt19937_64& rng) {
    const auto pick = [&](auto... v) {
        const std::int64_t options[] = {v...};
        return options[std::uniform_int_distribution<std::size_t>{0, sizeof...(v) - 1}(rng)];
    };
    std::uniform_real_distribution<double> unit{0, 1};
    Case c;
    c.update_ns = pick(k_ms, 20 * k_ms, 100 * k_ms, k_s);
    c.read_ns = pick(k_ms, 10 * k_ms, 100 * k_ms, k_s);
    c.duration_ns = pick(20 * k_ms, 50 * k_ms, 300 * k_ms, k_s, 5 * k_s, 60 * k_s);
    if (c.read_ns == k_ms && c.duration_ns == 60 * k_s) {
        c.read_ns = 10 * k_ms; // keeps the suite quick; 1 ms reads are covered by shorter jobs
    }
    c.quantum = pick(1, 2, 3) == 1 ? 1.0 / 16384 : (pick(1, 2) == 1 ? 1e-3 : 1.0);
    const double peak = 50 + 650 * unit(rng);
    // As jouleprof takes it: twice what the sensor says the domain may draw; in one case of
    // four the power reaches the figure taken, so no term can lean on that margin.
    c.max_w = pick(1, 2, 3, 4) == 1 ? peak : 2 * peak;
    // The counter runs from well before the job to well after it.
    const std::int64_t begin = 0;
    const std::int64_t end = c.duration_ns + 4 * std::max(c.update_ns, c.read_ns) + 2 * k_s;
    const auto shape = pick(0, 1, 2, 3);
    if (shape == 0) { // steps at random instants
        for (std::int64_t t = begin; t < end;) {
            c.power.add(t, peak * unit(rng));
            t += static_cast<std::int64_t>(std::exponential_distribution<double>{1.0}(rng) *
                                           static_cast<double>(c.update_ns)) +
                 1000;
        }
    } else if (shape == 1) { // a ramp up and down, in steps finer than the update period
        const auto step = std::max<std::int64_t>(c.update_ns / 10, (end - begin) / 5000);
        for (std::int64_t t = begin; t < end; t += step) {
            const double x = static_cast<double>(t - begin) / static_cast<double>(end - begin);
            c.power.add(t, peak * (x < 0.5 ? 2 * x : 2 - 2 * x));
        }
    } else if (shape == 2) { // a square wave near the update period
        const auto half = std::max<std::int64_t>(
            static_cast<std::int64_t>(static_cast<double>(c.update_ns) * (0.25 + unit(rng))),
            (end - begin) / 20000);
        bool high = false;
        for (std::int64_t t = begin; t < end; t += half) {
            c.power.add(t, high ? peak : 0.05 * peak);
            high = !high;
        }
    } else { // constant
        c.power.add(begin, peak * (0.2 + 0.8 * unit(rng)));
    }
    c.power.add(end, 0);
    // The counter shows its value at its last update, truncated to its quantum.
    const auto phase = std::uniform_int_distribution<std::int64_t>{0, c.update_ns - 1}(rng);
    const auto shown = [&](std::int64_t s) {
        const auto updated = s - ((s - phase) % c.update_ns + c.update_ns) % c.update_ns;
        return std::floor(c.power.energy(std::max<std::int64_t>(begin, updated)) / c.quantum) *
               c.quantum;
    };
    // Each read call takes up to call_ns; its value is from an instant within it, and it is
    // stamped at its middle.
    c.call_ns = pick(0, 50'000, 400'000, 4 * k_ms);
    std::int64_t longest = 0;
    const auto read = [&](std::int64_t call_start) {
        const auto call = std::uniform_int_distribution<std::int64_t>{0, c.call_ns}(rng);
        const auto taken = std::uniform_int_distribution<std::int64_t>{0, call}(rng);
        longest = std::max(longest, call);
        c.readings.push_back({call_start + call / 2, shown(call_start + taken)});
    };
    // The job starts at some point after the counter began; an edge read that ends just
    // before its start and one that begins just after its end (as the sampler reads
    // them), readings in between.
    c.t0 = 2 * std::max(c.update_ns, c.read_ns) + c.call_ns +
           std::uniform_int_distribution<std::int64_t>{0, c.update_ns}(rng);
    c.t1 = c.t0 + c.duration_ns;
    const std::int64_t edge_cost = std::uniform_int_distribution<std::int64_t>{1'000, 200'000}(rng);
    read(c.t0 - edge_cost - c.call_ns);
    for (std::int64_t s = c.t0 + c.read_ns; s < c.t1; s += c.read_ns) {
        const auto jitter = std::uniform_int_distribution<std::int64_t>{0, c.read_ns / 10}(rng);
        read(s + jitter);
    }
    read(c.t1 + edge_cost);
    std::ranges::sort(c.readings, {}, &TimedValue::t_ns);
    c.call_ns = longest; // what the sampler records: the longest call it made
    return c;
}

TEST(CounterBound, TheTruthIsInsideTheBoundInEveryGeneratedCase) {
    const char* env = std::getenv("JP_BOUND_SEED");
    const auto seed = env != nullptr ? std::strtoull(env, nullptr, 10) : std::random_device{}();
    std::printf("JP_BOUND_SEED=%llu\n", static_cast<unsigned long long>(seed));
    std::mt19937_64 rng{seed};
    std::vector<double>
        relative;               // half-width / value, >= 1 s jobs on a 1 ms counter read at 100 ms
    std::vector<double> widths; // the same cases' half-widths and actual errors, in joules
    std::vector<double> errors;
    int not_measurable = 0;
    constexpr int k_cases = 1500;
    for (int i = 0; i < k_cases; ++i) {
        const auto c = generate(rng);
        const double truth = c.power.energy(c.t1) - c.power.energy(c.t0);
        const auto b =
            counter_bound(c.readings, c.t0, c.t1,
                          CounterLimits{c.quantum, c.max_w, c.update_ns, false, c.call_ns});
        ASSERT_TRUE(b);
        ASSERT_LE(b->low, truth + 1e-9)
            << "case " << i << " (seed " << seed << "): update " << c.update_ns << " ns, read "
            << c.read_ns << " ns, call " << c.call_ns << " ns, job " << c.duration_ns
            << " ns, quantum " << c.quantum;
        ASSERT_GE(b->high, truth - 1e-9)
            << "case " << i << " (seed " << seed << "): update " << c.update_ns << " ns, read "
            << c.read_ns << " ns, call " << c.call_ns << " ns, job " << c.duration_ns
            << " ns, quantum " << c.quantum;
        const double value = c.readings.back().value - c.readings.front().value;
        not_measurable += b->half_width() > value ? 1 : 0;
        if (c.update_ns == k_ms && c.read_ns == 100 * k_ms && c.duration_ns >= k_s &&
            c.quantum < 1e-3 && truth > 0) {
            relative.push_back(b->half_width() / truth);
            widths.push_back(b->half_width());
            errors.push_back(std::abs(value - truth));
        }
    }
    ASSERT_FALSE(relative.empty());
    std::ranges::sort(relative);
    const double median = relative[relative.size() / 2];
    std::ranges::sort(widths);
    std::ranges::sort(errors);
    // The issue asks for a median bound within 3x the median actual error; a guarantee over
    // every lag of the counter's update, with P twice the domain's maximum, is wider than
    // that (docs/uncertainty.md says how much): printed, not asserted.
    std::printf("%d cases; %d not measurable at their resolution; 1 ms counter, 100 ms reads, "
                ">= 1 s jobs: median bound %.3f %% of the value, %.1fx the median actual error "
                "(%zu cases)\n",
                k_cases, not_measurable, 100 * median,
                widths[widths.size() / 2] / std::max(errors[errors.size() / 2], 1e-12),
                relative.size());
    EXPECT_LE(median, 0.01) << "the bound is not vacuous where the counter is fine";
}

TEST(CounterBound, AShortPhaseOnASlowCounterIsWiderThanItsValue) {
    // A 50 ms phase on a counter that changes every 100 ms (an H100's energy counter).
    const std::vector<TimedValue> r{{0, 100.0}, {60 * k_ms, 100.0}};
    const auto b =
        counter_bound(r, 5 * k_ms, 55 * k_ms, CounterLimits{1e-3, 1400, 100 * k_ms, false});
    ASSERT_TRUE(b);
    EXPECT_GT(b->half_width(), 30.0) << "up to 140 J could have gone by unseen";
    EXPECT_EQ(b->dominant, "edge staleness");
}

TEST(CounterBound, AValueTakenLateInItsReadCallIsInsideOnlyWithTheReadTime) {
    // A counter that updates every millisecond, at the most the domain can draw (300 W),
    // read exactly at the job's start; the end edge's read call takes 4 ms from the job's
    // end and its value is from the call's end, stamped at its middle. The counter there is
    // 1.2 J past the job's end: the readings say 1.2 J more than the job's energy.
    constexpr double k_w = 300;
    const auto energy = [](std::int64_t t) { return k_w * static_cast<double>(t) * 1e-9; };
    const std::int64_t t0 = 100 * k_ms;
    const std::int64_t t1 = 1100 * k_ms;
    const std::vector<TimedValue> r{{t0, energy(t0)}, {t1 + 2 * k_ms, energy(t1 + 4 * k_ms)}};
    const double truth = energy(t1) - energy(t0);
    const auto without = counter_bound(r, t0, t1, CounterLimits{1e-3, k_w, k_ms, false});
    ASSERT_TRUE(without);
    EXPECT_GT(without->low, truth) << "a bound without the read time misses the truth";
    const auto with = counter_bound(r, t0, t1, CounterLimits{1e-3, k_w, k_ms, false, 4 * k_ms});
    ASSERT_TRUE(with);
    EXPECT_LE(with->low, truth);
    EXPECT_GE(with->high, truth);
    EXPECT_NEAR(with->terms.read, 2 * k_w * 0.004, 1e-9)
        << "4 ms at the most it can draw, each edge";
    EXPECT_EQ(with->dominant, "read time");
}

TEST(CounterBound, ALearnedUpdatePeriodIsTheLongestGapBetweenChangesNotTheMedian) {
    // Updates every 20 ms and once after 200 ms, read every 10 ms (so the period is
    // learned from repeats): a reading may lag by the 200 ms, not the median 20 ms.
    const std::vector<TimedValue> knots{{0, 0},           {20 * k_ms, 6},  {40 * k_ms, 12},
                                        {60 * k_ms, 18},  {80 * k_ms, 24}, {280 * k_ms, 84},
                                        {300 * k_ms, 90}, {400 * k_ms, 90}};
    Channel c;
    c.backend = "nvml";
    c.limit_watts = 300;
    Timing t;
    t.update_ns = 20 * k_ms;
    t.update_learned = true;
    const auto l = limits_of(c, t, knots, std::nullopt);
    EXPECT_GE(l.update_ns, 200 * k_ms);
    EXPECT_DOUBLE_EQ(l.max_watts, 600.0) << "twice the stated limit";
    EXPECT_FALSE(l.max_assumed);
    Channel rapl;
    rapl.backend = "jouleprofd";
    rapl.source = "powercap /sys/class/powercap/intel-rapl:0 via jouleprofd, 1000 ms resolution";
    rapl.update_ns = k_ms;
    EXPECT_DOUBLE_EQ(quantum_of(rapl), 1.0 / 16384) << "the source's backend, through the daemon";
    EXPECT_EQ(limits_of(rapl, Timing{}, knots, 50.0).update_ns, k_ms)
        << "the backend's own period where the value changed at every reading";
    EXPECT_TRUE(limits_of(rapl, Timing{}, knots, 50.0).max_assumed);
}

TEST(CounterBound, ARedfishEnergyInKwhStepsByTheDecimalsItsBmcGives) {
    // DMTF's public-rackmount1 mockup gives TotalEnergy, a Sensor, in whole kWh: 3.6 MJ a step.
    Channel c;
    c.backend = "redfish";
    c.source = "redfish:http://127.0.0.1/redfish/v1/Chassis/1U/Sensors/TotalEnergy Reading (kW.h)";
    const auto kwh = [](double v) { return v * 3.6e6; };
    const std::vector<TimedValue> whole{
        {0, kwh(325675)}, {k_s, kwh(325676)}, {2 * k_s, kwh(325677)}};
    EXPECT_DOUBLE_EQ(limits_of(c, Timing{}, whole, 500.0).quantum_j, 3.6e6);
    // EnvironmentMetrics' EnergykWh: the stored values are a running total from 0, so the
    // changes between readings tell the step, not the values.
    c.source = "redfish:http://127.0.0.1/redfish/v1/Chassis/1/EnvironmentMetrics EnergykWh";
    const std::vector<TimedValue> tenths{{0, 0}, {k_s, kwh(0.2)}, {2 * k_s, kwh(0.5)}};
    EXPECT_NEAR(limits_of(c, Timing{}, tenths, 500.0).quantum_j, 3.6e5, 1e-6);
    const std::vector<TimedValue> three{{0, 0}, {k_s, kwh(0.007)}, {2 * k_s, kwh(0.01)}};
    EXPECT_NEAR(limits_of(c, Timing{}, three, 500.0).quantum_j, 3.6e3, 1e-6);
    // Not a power of ten: a BMC that steps by half a kWh.
    const std::vector<TimedValue> halves{{0, 0}, {k_s, kwh(0.5)}, {2 * k_s, kwh(1.5)}};
    EXPECT_NEAR(limits_of(c, Timing{}, halves, 500.0).quantum_j, 1.8e6, 1e-6);
    EXPECT_NEAR(limits_of(c, Timing{}, std::vector<TimedValue>{{0, 0}, {k_s, 0}}, 500.0).quantum_j,
                3.6e6, 1e-6)
        << "no change seen: a whole kWh";
    // A reset the sampler bridged with an estimate (no multiple of anything) between 1 and 2 s:
    // the changes outside it still tell tenths; counted, nothing would fit (three decimals).
    const std::vector<TimedValue> reset{
        {0, 0}, {k_s, kwh(0.1)}, {2 * k_s, kwh(0.1) + 1234.567}, {3 * k_s, kwh(0.2) + 1234.567}};
    const std::vector<EstimatedSpan> bridged{{k_s, 2 * k_s}};
    EXPECT_NEAR(limits_of(c, Timing{}, reset, 500.0, bridged).quantum_j, 3.6e5, 1e-6);
    EXPECT_NEAR(limits_of(c, Timing{}, reset, 500.0).quantum_j, 3.6e3, 1e-6);
    // A 20 s job at 500 W (10 kJ) on the whole-kWh counter: not measurable at that resolution.
    c.source = "redfish:http://127.0.0.1/redfish/v1/Chassis/1U/Sensors/TotalEnergy Reading (kW.h)";
    const std::vector<TimedValue> job{{0, kwh(325675)}, {20 * k_s, kwh(325675)}};
    const auto b = counter_bound(job, 0, 20 * k_s, limits_of(c, Timing{}, job, 500.0));
    ASSERT_TRUE(b);
    EXPECT_GE(b->high, 3.6e6) << "one step may have passed unseen";
    EXPECT_EQ(b->dominant, "quantum");
    // Wh: a Sensor's W.h in whole Wh is 3.6 kJ a step; joules stay a joule.
    c.source = "redfish:http://127.0.0.1/redfish/v1/Chassis/1/Sensors/Energy Reading (W.h)";
    const std::vector<TimedValue> wh{{0, 0}, {k_s, 3.6e3}, {2 * k_s, 7.2e3}};
    EXPECT_NEAR(limits_of(c, Timing{}, wh, 500.0).quantum_j, 3.6e3, 1e-6);
    const std::vector<TimedValue> odd_wh{{0, 0}, {k_s, 3.6e3}, {2 * k_s, 7.2e3 + 0.0018}};
    EXPECT_NEAR(limits_of(c, Timing{}, odd_wh, 500.0).quantum_j, 3.6, 1e-9)
        << "no whole millionth of a Wh: three decimals";
    c.source = "redfish:http://127.0.0.1/redfish/v1/Chassis/1/EnvironmentMetrics EnergyJoules";
    EXPECT_DOUBLE_EQ(limits_of(c, Timing{}, whole, 500.0).quantum_j, 1.0) << "joules";
}

TEST(CounterBound, ALongRunOnAFineCounterIsBoundByItsEdges) {
    // 10 s at ~100 W on a RAPL-like counter: edges read 50 µs outside the job.
    std::vector<TimedValue> r;
    for (std::int64_t t = 0; t <= 10 * k_s; t += 100 * k_ms) {
        r.push_back({t, static_cast<double>(t) * 1e-7});
    }
    const auto b =
        counter_bound(r, 50'000, 10 * k_s - 50'000, CounterLimits{1.0 / 16384, 400, k_ms, false});
    ASSERT_TRUE(b);
    EXPECT_LT(b->half_width(), 1.0) << "under 0.1 % of ~1000 J";
    EXPECT_LE(b->low, 999.99);
    EXPECT_GE(b->high, 999.99);
}

TEST(CounterBound, AnEmptyWindowIsExactlyNothing) {
    const std::vector<TimedValue> r{{0, 0}, {1'000'000'000, 100}};
    const auto b =
        counter_bound(r, 500'000'000, 500'000'000, CounterLimits{1e-3, 200, 1'000'000, false});
    ASSERT_TRUE(b);
    EXPECT_EQ(b->low, 0);
    EXPECT_EQ(b->high, 0);
}

} // namespace
} // namespace jp::report
