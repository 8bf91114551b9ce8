// SPDX-License-Identifier: BSD-3-Clause
// The sensors' bound on the job's share (report/share_bound.hpp): over generated
// splits with known truth the job's true share is inside the bound in every case,
// and where the split is linear the bound is reached, so it is no wider than it must be.
#include "report/share_bound.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

namespace jp::report {
namespace {

double job_of(std::vector<attrib::Interval> ins, const std::vector<double>& energies) {
    double job = 0;
    for (std::size_t k = 0; k < ins.size(); ++k) {
        ins[k].energy_j = energies[k];
        job += attrib::split(ins[k]).job_j();
    }
    return job;
}

TEST(ShareBound, ASteadyFractionCountsOnlyTheWindowsEdges) {
    // A GPU a quarter of whose use is the job's, ten intervals: the errors at the inner
    // cuts move energy between intervals the job shares alike, so only the edges count.
    std::vector<attrib::Interval> ins(10, attrib::Interval{40, 0.1, 0, 0.25, 0.25, true});
    const std::vector<CutError> cuts(11, CutError{-1, 2, 0.001, 0.5});
    const auto b = share_bound(ins, cuts);
    EXPECT_NEAR(b.low, 100 - 0.25 * 3, 1e-9); // 0.25 × (the node's own −1 − 2 … 2 + 1)
    EXPECT_NEAR(b.high, 100 + 0.25 * 3, 1e-9);
    EXPECT_EQ(b.dominant, "gap between readings");
}

TEST(ShareBound, AFractionThatChangesCountsEachCutByTheChange) {
    // Use 0.2 then 0.6: moving energy across the middle cut moves 0.4 of it to the job.
    const std::vector<attrib::Interval> ins{{10, 0.1, 0, 1, 0.2, true}, {10, 0.1, 0, 1, 0.6, true}};
    const std::vector<CutError> cuts{{0, 0}, {-3, 3}, {0, 0}};
    const auto b = share_bound(ins, cuts);
    EXPECT_NEAR(b.low, 8 - 0.4 * 3, 1e-9);
    EXPECT_NEAR(b.high, 8 + 0.4 * 3, 1e-9);
}

TEST(ShareBound, AnErrorThatCanCrossIdlePowerWidensByTheKnee) {
    // 30 J over a second with 10 W idle, the job given the whole part and using half of
    // what is above idle: 10 + 10 = 20 J. Errors of ±60 J at both cuts let the true
    // energy be anything from 0 (a counter never runs back) to 150 J; at 0 the job's
    // share is 0, 5 J below the line through 20 J with slope 0.5 (and never above it: above
    // idle the line is the share). The line's own ends, 20 ± 60 J, are cut at 0.
    const std::vector<attrib::Interval> ins{{30, 1, 10, 1, 0.5, true}};
    const std::vector<CutError> cuts{{-60, 60}, {-60, 60}};
    const auto b = share_bound(ins, cuts);
    EXPECT_NEAR(b.low, 0, 1e-9);
    EXPECT_NEAR(b.high, 20 + 0.5 * 120, 1e-9);
    EXPECT_NEAR(b.high, 10 + 0.5 * 140, 1e-9); // the truth at 150 J: reached
    EXPECT_NEAR(b.terms.knee, 5, 1e-9);
    // The same interval as a node less its parts (it can go either way): no cut at 0, and
    // below 0 the share runs with the use again (slope 0.5 to the left of the knee at 0).
    std::vector<CutError> either{{-60, 60}, {-60, 60}};
    either[0].grows = either[1].grows = false;
    const auto c = share_bound(ins, either);
    EXPECT_NEAR(c.low, -45, 1e-9); // at −90 J: 0.5 × −90, 5 J below the line's −40 (reached)
    EXPECT_NEAR(c.high, 80, 1e-9);
}

TEST(ShareBound, NoIntervalsOrMismatchedCutsGiveTheShareItself) {
    EXPECT_EQ(share_bound({}, std::vector<CutError>{{-1, 1}}).half_width(), 0.0);
    const std::vector<attrib::Interval> ins{{10, 0.1, 0, 1, 1, true}};
    EXPECT_EQ(share_bound(ins, std::vector<CutError>{{-1, 1}}).half_width(), 0.0);
}

// Generated splits: cumulative counters (never going down) or a node less its parts
// (either way), idle power known or not, the job's fraction steady or not (and in some
// intervals unknown, anywhere from 0 to 1: a GPU others had too), errors
// at the cuts from nothing to far more than an interval's energy; the truth at the
// cuts drawn inside their ranges, often at an end.
TEST(ShareBound, TheTruthIsInsideTheBoundInEveryGeneratedCase) {
    const char* env = std::getenv("JP_SHARE_SEED");
    const auto seed =
        env != nullptr ? static_cast<unsigned>(std::stoul(env)) : std::random_device{}();
    std::mt19937_64 rng{seed};
    std::uniform_real_distribution<double> unit{0, 1};
    std::size_t reached = 0; // linear cases where the truth met an end of the bound
    std::size_t linear = 0;
    constexpr int k_cases = 4000;
    for (int n = 0; n < k_cases; ++n) {
        SCOPED_TRACE("JP_SHARE_SEED=" + std::to_string(seed) + " case " + std::to_string(n));
        const bool grows = unit(rng) < 0.7;
        const auto intervals = 1 + static_cast<std::size_t>(unit(rng) * 40);
        const double seconds = 0.01 + unit(rng);
        const double idle_w = unit(rng) < 0.3 ? 0 : 50 * unit(rng);
        const bool steady = unit(rng) < 0.3;
        const double scale = std::pow(10, -2 + 4 * unit(rng)); // errors 0.01 … 100 J
        const double watts = 5 + 300 * unit(rng);
        std::vector<attrib::Interval> ins;
        std::vector<CutError> cuts;
        std::vector<double> measured;
        const double given0 = unit(rng);
        const double use0 = unit(rng);
        for (std::size_t k = 0; k < intervals; ++k) {
            attrib::Interval in;
            in.seconds = seconds;
            in.idle_w = idle_w;
            in.given = steady ? given0 : unit(rng);
            in.use = steady ? use0 : unit(rng);
            in.used = steady || unit(rng) < 0.85;
            in.use_unknown = !steady && in.used && unit(rng) < 0.15; // a GPU others had too
            const double power = grows ? watts * unit(rng) : watts * (unit(rng) - 0.3);
            in.energy_j = power * seconds;
            measured.push_back(in.energy_j);
            ins.push_back(in);
        }
        for (std::size_t j = 0; j <= intervals; ++j) {
            CutError c;
            c.lo = -scale * unit(rng);
            c.hi = scale * unit(rng);
            c.grows = grows;
            cuts.push_back(c);
        }
        const auto b = share_bound(ins, cuts);
        // The truth: an error per cut inside its range, a counter's never making an
        // interval's energy negative.
        std::vector<double> e(intervals + 1);
        bool possible = true;
        for (std::size_t j = 0; j <= intervals; ++j) {
            double lo = cuts[j].lo;
            const double hi = cuts[j].hi;
            if (grows && j > 0) {
                lo = std::max(lo, e[j - 1] - measured[j - 1]);
            }
            if (lo > hi) {
                possible = false; // no monotone truth fits these ranges: draw another case
                break;
            }
            const double pick = unit(rng);
            e[j] = pick < 0.35 ? lo : pick < 0.7 ? hi : lo + (hi - lo) * unit(rng);
        }
        if (!possible) {
            continue;
        }
        std::vector<double> truth(intervals);
        for (std::size_t k = 0; k < intervals; ++k) {
            truth[k] = measured[k] + e[k + 1] - e[k];
        }
        // Where the use is unknown, the true use anywhere in [0, 1], often at an end.
        auto true_ins = ins;
        for (auto& in : true_ins) {
            if (in.use_unknown) {
                const double pick = unit(rng);
                in.use = pick < 0.35 ? 0.0 : pick < 0.7 ? 1.0 : unit(rng);
            }
        }
        const double job = job_of(true_ins, truth);
        const double tol = 1e-9 * (1 + std::abs(b.low) + std::abs(b.high));
        ASSERT_GE(job, b.low - tol) << "bound " << b.low << " … " << b.high;
        ASSERT_LE(job, b.high + tol) << "bound " << b.low << " … " << b.high;

        // Where the split is linear and the errors free, the worst truth reaches the end.
        if (!grows && (idle_w == 0 || steady)) {
            const bool knee_free = std::ranges::all_of(ins, [](const attrib::Interval& in) {
                return !in.use_unknown &&
                       (in.idle_w == 0 || std::abs(in.given - (in.used ? in.use : in.given)) == 0);
            });
            if (!knee_free) {
                continue;
            }
            ++linear;
            std::vector<double> worst(intervals);
            std::vector<double> ew(intervals + 1);
            for (std::size_t j = 0; j <= intervals; ++j) {
                const auto slope = [&](std::size_t k) {
                    return ins[k].used ? ins[k].use : ins[k].given;
                };
                const double d = (j > 0 ? slope(j - 1) : 0.0) - (j < intervals ? slope(j) : 0.0);
                ew[j] = d > 0 ? cuts[j].hi : cuts[j].lo;
            }
            for (std::size_t k = 0; k < intervals; ++k) {
                worst[k] = measured[k] + ew[k + 1] - ew[k];
            }
            EXPECT_NEAR(job_of(ins, worst), b.high, tol);
            reached += std::abs(job_of(ins, worst) - b.high) <= tol ? 1U : 0U;
        }
    }
    std::printf("JP_SHARE_SEED=%u: %d cases; the bound's upper end reached in %zu of %zu "
                "linear cases\n",
                static_cast<unsigned>(seed), k_cases, reached, linear);
    EXPECT_GT(linear, 50U);
}

TEST(FieldShareBound, AGpuPowerReadingsShareHoldsTheTruthInEveryGeneratedCase) {
    // A GPU that gives power, not energy, read every 100 ms; between two readings its power
    // is the later one's (it stays between their values: the field's stated assumption), so
    // the figure (the readings' trapezoids) is not the truth. The job is given the GPU or a
    // part of it and uses a fraction above its idle power; where others had it too its use is
    // not known (the truth anywhere in 0..1).
    constexpr std::int64_t k_ms = 1'000'000;
    const auto seed = std::random_device{}();
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    std::mt19937_64 rng{seed};
    std::uniform_real_distribution<double> level{0, 600};
    std::uniform_real_distribution<double> unit{0, 1};
    std::vector<Channel> channels(1);
    channels[0].name = "gpu0";
    channels[0].quantity = Quantity::power;
    channels[0].provenance = Provenance::measured;
    channels[0].backend = "nvml";
    channels[0].limit_watts = 300;
    int narrow = 0;
    for (int n = 0; n < 300; ++n) {
        RunData d;
        d.channels = &channels;
        std::vector<TimedValue> r;
        for (std::int64_t t = 0; t <= 12'000 * k_ms; t += 100 * k_ms) {
            r.push_back({t, std::round(level(rng) * 1000) / 1000});
        }
        d.series = {r};
        d.timing = {Timing{}};
        d.estimated = {{}};
        d.profiled = {false};
        d.t0 = 1'000 * k_ms + std::uniform_int_distribution<std::int64_t>{0, 99 * k_ms}(rng);
        d.t1 = d.t0 + std::uniform_int_distribution<std::int64_t>{50 * k_ms, 10'000 * k_ms}(rng);
        // The truth: over (t_k, t_k+1] the power is reading k+1's.
        const auto truth = [&](std::int64_t a, std::int64_t b) {
            double e = 0;
            for (std::size_t k = 0; k + 1 < r.size(); ++k) {
                const auto from = std::max(a, r[k].t_ns);
                const auto to = std::min(b, r[k + 1].t_ns);
                e += to > from ? r[k + 1].value * static_cast<double>(to - from) * 1e-9 : 0.0;
            }
            return e;
        };
        std::vector<std::int64_t> cuts{d.t0};
        while (cuts.back() < d.t1) {
            cuts.push_back(std::min(d.t1, cuts.back() + std::uniform_int_distribution<std::int64_t>{
                                                            k_ms, 250 * k_ms}(rng)));
        }
        const double idle = unit(rng) < 0.5 ? 0 : 60;
        const double given = unit(rng) < 0.5 ? 1 : 0.25;
        std::vector<attrib::Interval> ins;
        double job = 0; // the truth's share
        for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
            attrib::Interval in{
                0, static_cast<double>(cuts[k + 1] - cuts[k]) * 1e-9, idle, given, unit(rng), true};
            in.use_unknown = unit(rng) < 0.3;
            auto real = in;
            real.energy_j = truth(cuts[k], cuts[k + 1]);
            real.use = in.use_unknown ? unit(rng) : in.use;
            job += attrib::split(real).job_j();
            // The figure: the readings' trapezoids, as integral_of gives them.
            double e = 0;
            for (std::size_t j = 0; j + 1 < r.size(); ++j) {
                const auto from = std::max(cuts[k], r[j].t_ns);
                const auto to = std::min(cuts[k + 1], r[j + 1].t_ns);
                if (to > from) {
                    const auto at = [&](std::int64_t t) {
                        return r[j].value + (r[j + 1].value - r[j].value) *
                                                static_cast<double>(t - r[j].t_ns) /
                                                static_cast<double>(r[j + 1].t_ns - r[j].t_ns);
                    };
                    e += (at(from) + at(to)) / 2 * static_cast<double>(to - from) * 1e-9;
                }
            }
            in.energy_j = e;
            ins.push_back(in);
        }
        const auto field = source_of(d, 0);
        ASSERT_TRUE(field && field->field) << "a measured power reading";
        const auto b = field_share_bound(d, *field, cuts, ins);
        ASSERT_TRUE(b) << "case " << n;
        EXPECT_TRUE(b->assumed.field);
        ASSERT_LE(b->low, job + 1e-6) << "case " << n;
        ASSERT_GE(b->high, job - 1e-6) << "case " << n;
        const double terms = b->terms.total();
        // The terms make the width (before the field's bound is cut at 0: a quantum or so).
        EXPECT_NEAR(terms, b->high - b->low, 0.01 * (b->high - b->low) + 0.01) << "case " << n;
        narrow += b->high - b->low < std::max(job, 1.0) ? 1 : 0;
    }
    EXPECT_GT(narrow, 0) << "never narrower than the share itself";
}

// Each interval's share between its ends; where nobody knows the job's use, at no use or all
// of it, whichever is further: at a negative energy (a rest of the node that may come out
// below zero) all of the use is the lower end.
TEST(IntervalShareBound, AnUnknownUseTakesWhicheverEndIsFurther) {
    const attrib::Interval in{20, 1, 0, 0.5, 0.5, true, true}; // 20 J, no idle, use unknown
    const std::vector<Bound> energies{Bound{-10, 50, "gap between readings", {}, {}}};
    const auto b = interval_share_bound(energies, std::span{&in, 1});
    ASSERT_TRUE(b);
    EXPECT_DOUBLE_EQ(b->low, -10) << "all of -10 J";
    EXPECT_DOUBLE_EQ(b->high, 50) << "all of 50 J";
    auto known = in;
    known.use_unknown = false;
    const auto k = interval_share_bound(energies, std::span{&known, 1});
    ASSERT_TRUE(k);
    EXPECT_DOUBLE_EQ(k->low, -5) << "half of -10 J";
    EXPECT_DOUBLE_EQ(k->high, 25);
    EXPECT_FALSE(interval_share_bound({}, std::span{&in, 1})) << "a bound for each interval";
}

} // namespace
} // namespace jp::report
