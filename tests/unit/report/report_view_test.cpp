// SPDX-License-Identifier: BSD-3-Clause
// What `jouleprof report` shows beyond energy: the power distribution against
// the rated power, idle accelerators, the footprint, and traces merged by label.
#include "config/config.hpp"
#include "fake_sysfs.hpp"
#include "report/carbon.hpp"
#include "report/format.hpp"
#include "report/summary.hpp"
#include "report/units.hpp"
#include "trace_builder.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <gtest/gtest.h>

namespace jp::report {
namespace {

using test::channel;
using test::exact_joules;

// An 8-GPU node's training power: 6 kW, then 8 kW with one 8.4 kW second, then 5 kW.
double training_node(std::size_t, double t) {
    if (t < 20) {
        return 6000;
    }
    if (t < 80) {
        return t >= 50 && t < 51 ? 8400 : 8000;
    }
    return 5000;
}

// Lowest power at or below which a share q of the (equal, 1 s) windows lie.
double percentile_of(std::vector<double> w, double q) {
    std::ranges::sort(w);
    const auto k = static_cast<std::size_t>(std::ceil(q * static_cast<double>(w.size())));
    return w[std::max<std::size_t>(k, 1) - 1];
}

TEST(ReportView, PowerDistributionAgainstTheRatedPower) {
    test::FakeSysfs fs;
    test::TraceBuilder b{fs.path("/d.jptrace"),
                         {channel("node", Domain::node, Quantity::energy)},
                         {{"node.rated_watts", "10200"}}};
    test::RunSpec spec;
    spec.seconds = 100;
    spec.watts = training_node;
    b.run(spec);
    auto r = b.reader();
    SummaryOptions o;
    o.threshold_w = 7000;
    auto s = summarize_run(r, r.runs()[0], o);
    ASSERT_TRUE(s && s->power);
    std::vector<double> per_second;
    double above = 0;
    for (int t = 0; t < 100; ++t) {
        per_second.push_back(training_node(0, t));
        above += per_second.back() > 7000 ? 1 : 0;
    }
    const auto& d = *s->power;
    EXPECT_EQ(s->power_step_ns, test::k_s);
    EXPECT_NEAR(d.peak_w, 8400, 1e-6);
    EXPECT_NEAR(*d.peak_1s_w, 8400, 1e-6);
    EXPECT_NEAR(*d.peak_60s_w, (59 * 8000.0 + 8400) / 60, 1e-6);
    EXPECT_NEAR(d.p50_w, percentile_of(per_second, 0.50), 1e-6);
    EXPECT_NEAR(d.p95_w, percentile_of(per_second, 0.95), 1e-6);
    EXPECT_NEAR(d.p99_w, percentile_of(per_second, 0.99), 1e-6);
    EXPECT_NEAR(d.seconds_above, above, 1e-6);
    ASSERT_TRUE(s->rating);
    EXPECT_EQ(s->rating->source, "config");

    auto groups = summarize_trace(r, o);
    const auto text = format_text(*groups);
    EXPECT_NE(text.find("peak 8.4 kW = 82 % of rated 10.2 kW (config)"), std::string::npos) << text;
    EXPECT_NE(text.find("60 s peak 8.01 kW"), std::string::npos) << text;
    EXPECT_NE(text.find("above 7000 W for 60.0 s"), std::string::npos) << text;
    const auto j = to_json(*groups);
    EXPECT_NEAR(j["groups"][0]["power"]["peak_w"].get<double>(), 8400, 1e-6);
    EXPECT_NEAR(j["groups"][0]["runs"][0]["power"]["seconds_above"].get<double>(), above, 1e-6);
    EXPECT_EQ(j["groups"][0]["rated"]["source"], "config");
}

// node, then gpuN energy and gpuN.util for a busy, an idle, an unmonitored and a 3 % GPU.
std::vector<Channel> gpu_node() {
    return {channel("node", Domain::node, Quantity::energy),
            channel("gpu0", Domain::gpu, Quantity::energy),
            channel("gpu0.util", Domain::gpu, Quantity::utilization),
            channel("gpu1", Domain::gpu, Quantity::energy),
            channel("gpu1.util", Domain::gpu, Quantity::utilization),
            channel("gpu2", Domain::gpu, Quantity::energy),
            channel("gpu3", Domain::gpu, Quantity::energy),
            channel("gpu3.util", Domain::gpu, Quantity::utilization)};
}

double gpu_load(std::size_t ch, double) {
    static constexpr double w[] = {1400, 300, 95, 60, 0.4, 55, 70, 3};
    return w[ch];
}

TEST(ReportView, IdleGpuIsNamedWithItsShareOfTheNode) {
    test::FakeSysfs fs;
    test::TraceBuilder b{fs.path("/i.jptrace"), gpu_node()};
    test::RunSpec spec;
    spec.seconds = 30;
    spec.watts = gpu_load;
    b.run(spec);
    auto r = b.reader();
    auto s = summarize_run(r, r.runs()[0]);
    ASSERT_TRUE(s);
    ASSERT_EQ(s->idle.size(), 1U) << "gpu2 has no utilisation channel: not claimed idle";
    const double node_j = exact_joules(gpu_load, 0, 1, 0, 30);
    const double gpu1_j = exact_joules(gpu_load, 3, 1, 0, 30);
    EXPECT_EQ(s->idle[0].name, "gpu1");
    EXPECT_NEAR(s->idle[0].energy_j, gpu1_j, 1e-6);
    EXPECT_NEAR(s->idle[0].share, gpu1_j / node_j, 1e-12);
    EXPECT_NEAR(s->idle[0].mean_util, 0.4, 1e-9);

    const auto text = format_text(*summarize_trace(r));
    EXPECT_NE(text.find(fmt::format("gpu1 idle: {:.3f} kJ, {:.1f} % of the node", gpu1_j * 1e-3,
                                    100 * gpu1_j / node_j)),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("gpu2 idle"), std::string::npos);
    EXPECT_EQ(text.find("gpu0 idle"), std::string::npos);

    SummaryOptions lenient;
    lenient.idle_util_percent = 5;
    auto s5 = summarize_run(r, r.runs()[0], lenient);
    ASSERT_EQ(s5->idle.size(), 2U);
    EXPECT_EQ(s5->idle[1].name, "gpu3");
    const auto j = to_json(*summarize_trace(r, lenient));
    EXPECT_EQ(j["groups"][0]["idle_accelerators"].size(), 2U);
    EXPECT_NEAR(j["groups"][0]["idle_accelerators"][0]["share_of_node"]["mean"].get<double>(),
                gpu1_j / node_j, 1e-12);
}

TEST(ReportView, FootprintOnlyWhenConfigured) {
    const auto f = footprint(3.6e6, CarbonConfig{380.0, 1.2, 0.25, "EUR"});
    ASSERT_TRUE(f);
    EXPECT_NEAR(f->facility_j, 3.6e6 * 1.2, 1e-6);
    EXPECT_NEAR(*f->kg_co2e, 1.2 * 380 / 1000, 1e-12);
    EXPECT_NEAR(*f->cost, 1.2 * 0.25, 1e-12);
    EXPECT_NE(format_footprint(*f).find("0.456 kg CO2e at 380 g/kWh"), std::string::npos)
        << format_footprint(*f);
    EXPECT_NE(format_footprint(*f).find("cost 0.3 EUR at 0.25 EUR/kWh"), std::string::npos);
    // A 10 J job: every figure in a unit a person reads, never an exponent.
    const auto tiny = format_footprint(*footprint(10, CarbonConfig{380.0, 1.2, 0.25, "EUR"}));
    EXPECT_EQ(tiny.find("e-"), std::string::npos) << tiny;
    EXPECT_NE(tiny.find("facility energy 12.00 J (0.003333 Wh = node × PUE 1.20)"),
              std::string::npos)
        << tiny;
    EXPECT_NE(tiny.find("1.267 mg CO2e at 380 g/kWh"), std::string::npos) << tiny;
    // ... and a cost under a hundredth with what many such runs cost, in readable figures.
    EXPECT_NE(tiny.find("cost 0.0000008333 EUR (0.83 EUR a million runs) at 0.25 EUR/kWh"),
              std::string::npos)
        << tiny;
    const auto cent = format_footprint(*footprint(3.6e4, CarbonConfig{{}, {}, 0.25, {}}));
    EXPECT_NE(cent.find("cost 0.0025 (2.5 a thousand runs) at 0.25/kWh"), std::string::npos)
        << cent;
    const auto dime = format_footprint(*footprint(3.6e5, CarbonConfig{{}, {}, 0.25, "EUR"}));
    EXPECT_NE(dime.find("cost 0.025 EUR at"), std::string::npos) << dime;
    EXPECT_EQ(dime.find("estimated"), std::string::npos) << dime;
    // An absurd price: the cost in significant digits, never "0", and no runs that cost nothing.
    const auto absurd = format_footprint(*footprint(3.6e6, CarbonConfig{{}, {}, 1e-20, {}}));
    EXPECT_NE(absurd.find("cost 1e-20 at 1e-20/kWh"), std::string::npos) << absurd;
    EXPECT_EQ(absurd.find("runs)"), std::string::npos) << absurd;
    // Figures from an estimated node energy, or a lower bound, say so as the node's do.
    auto lower = *footprint(3.6e5, CarbonConfig{{}, {}, 0.25, "EUR"});
    lower.lower_bound = true;
    EXPECT_TRUE(format_footprint(lower).ends_with("; lower bounds, as the node energy is"))
        << format_footprint(lower);
    lower.estimated = true;
    EXPECT_TRUE(format_footprint(lower).ends_with("; from an estimated node energy, a lower bound"))
        << format_footprint(lower);
    EXPECT_EQ(plain_number(0.456), "0.456");
    EXPECT_EQ(plain_number(2.3e-6), "0.0000023");
    EXPECT_EQ(plain_number(1234.6), "1235");
    EXPECT_EQ(plain_number(-0.02), "-0.02");
    EXPECT_EQ(plain_number(1e300), "1e+300"); // a mistyped factor, not 301 digits
    EXPECT_FALSE(footprint(1000, CarbonConfig{}));
    const auto only_price = footprint(7.2e6, CarbonConfig{std::nullopt, std::nullopt, 0.1, {}});
    EXPECT_DOUBLE_EQ(only_price->pue, 1.0) << "PUE defaults to 1";
    EXPECT_NEAR(*only_price->cost, 0.2, 1e-12);
    EXPECT_FALSE(only_price->kg_co2e);

    test::FakeSysfs fs;
    test::TraceBuilder b{fs.path("/c.jptrace"), {channel("node", Domain::node, Quantity::energy)}};
    test::RunSpec spec;
    spec.watts = [](std::size_t, double) { return 360.0; }; // 3.6 kJ over 10 s
    b.run(spec);
    auto r = b.reader();
    const auto groups = *summarize_trace(r);
    EXPECT_EQ(format_text(groups).find("footprint"), std::string::npos);
    FormatOptions o;
    o.carbon = CarbonConfig{500.0, std::nullopt, std::nullopt, {}};
    EXPECT_NE(format_text(groups, o).find("0.5 g CO2e"), std::string::npos)
        << format_text(groups, o);
    EXPECT_NEAR(to_json(groups, o)["groups"][0]["footprint"]["kg_co2e"].get<double>(),
                3600.0 / 3.6e6 * 500 / 1000, 1e-12);
    EXPECT_TRUE(to_json(groups)["groups"][0]["footprint"].is_null());
}

TEST(ReportView, CarbonSectionOfTheConfigAndOverrides) {
    auto c = parse_config("[carbon]\nintensity_g_per_kwh = 380\npue = 1.3\nprice_per_kwh = 0.25\n"
                          "currency = \"EUR\"\n[report]\nidle_util_percent = 2\n",
                          "c.toml");
    ASSERT_TRUE(c) << c.error().message();
    EXPECT_DOUBLE_EQ(*c->carbon.intensity_g_per_kwh, 380);
    EXPECT_DOUBLE_EQ(*c->carbon.pue, 1.3);
    EXPECT_EQ(*c->carbon.currency, "EUR");
    EXPECT_DOUBLE_EQ(*c->report.idle_util_percent, 2);
    const auto m = merged(c->carbon, CarbonConfig{100.0, std::nullopt, std::nullopt, {}});
    EXPECT_DOUBLE_EQ(*m.intensity_g_per_kwh, 100);
    EXPECT_DOUBLE_EQ(*m.pue, 1.3);
    auto bad = parse_config("[carbon]\npue = 0.8\n", "b.toml");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message().find("pue"), std::string::npos);
    EXPECT_FALSE(parse_config("[carbon]\ncurrency = 3\n", "b.toml"));
    EXPECT_FALSE(parse_config("[report]\nidle_util_percent = 150\n", "b.toml"));
    EXPECT_FALSE(parse_config("", "e.toml")->carbon.any());
}

TEST(ReportView, SameLabelFromSeveralTracesMergesOtherLabelsStayApart) {
    test::FakeSysfs fs;
    const std::vector<Channel> node{channel("node", Domain::node, Quantity::energy)};
    test::TraceBuilder a{fs.path("/a.jptrace"), node};
    test::TraceBuilder b{fs.path("/b.jptrace"), node};
    a.run(test::make_run("gpu", 10, test::flat(700)));
    a.run(test::make_run("cpu", 10, test::flat(400)));
    b.run(test::make_run("gpu", 10, test::flat(900)));
    b.run(test::make_run("mix", 10, test::flat(800)));
    const std::vector<std::filesystem::path> paths{a.path(), b.path()};
    auto groups = summarize_traces(paths);
    ASSERT_TRUE(groups) << groups.error().message();
    ASSERT_EQ(groups->size(), 3U);
    EXPECT_EQ((*groups)[0].label, "gpu");
    EXPECT_EQ((*groups)[0].runs.size(), 2U);
    EXPECT_EQ((*groups)[0].traces.size(), 2U);
    EXPECT_NEAR((*groups)[0].node_energy_j.mean, 8000, 1e-6);
    EXPECT_NEAR((*groups)[0].node_energy_j.std, std::sqrt(2 * 1000.0 * 1000 / 1), 1e-6);
    EXPECT_EQ((*groups)[1].label, "cpu");
    EXPECT_EQ((*groups)[2].label, "mix");
    auto apart = summarize_traces(paths, {}, true);
    ASSERT_EQ(apart->size(), 4U);
    const auto text = format_text(*groups);
    EXPECT_EQ(text.find("Consumption [kJ]"), text.rfind("Consumption [kJ]")) << "one table";
    EXPECT_NE(text.find("gpu  (2 runs;"), std::string::npos) << text;
    auto missing = std::vector<std::filesystem::path>{fs.path("/none.jptrace")};
    EXPECT_FALSE(summarize_traces(missing));
}

} // namespace
} // namespace jp::report
