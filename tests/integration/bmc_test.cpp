// SPDX-License-Identifier: BSD-3-Clause
// End to end on a node whose only node meter is the BMC: `jouleprof run` with
// [sensors.ipmi] pointing at a real BMC simulator (ipmi_sim with the project's
// plug-in, read out-of-band) whose power follows a stepped profile, and CPU
// package energy from a fake powercap tree. The node's energy must match the
// profile over the job's own edges, through the XCC energy counter (exact at
// each read) and through DCMI's 1 s averages, and the rest of the node is the
// BMC's figure less the parts.
#include "fake_sysfs.hpp"
#include "profile_writer.hpp"
#include "shell.hpp"
#include "sim_bmc.hpp"
#include "trace/reader.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string_view>

namespace jp::test {
namespace {

using sensors::ipmi::test::find_sim;
using sensors::ipmi::test::now_realtime;
using sensors::ipmi::test::plugin_path;
using sensors::ipmi::test::Profile;
using sensors::ipmi::test::SimBmc;
using sensors::ipmi::test::StepProfile;

class BmcNode : public ::testing::TestWithParam<const char*> {
protected:
    void SetUp() override {
        if (find_sim().empty() || plugin_path().empty() ||
            !std::filesystem::exists(plugin_path())) {
            GTEST_SKIP() << "ipmi_sim or its plug-in is missing (openipmi, libopenipmi-dev)";
        }
        add_rapl_zone(m_fs, "intel-rapl:0", "package-0", 0, 4294967296ULL, 0444);
        m_profile.start = now_realtime() + 0.4;
        m_sim = std::make_unique<SimBmc>(m_profile);
        m_steps.start = m_profile.start;
        m_steps.write(m_sim->dir() / "profile");
        ASSERT_TRUE(m_sim->start()) << "ipmi_sim did not answer within 10 s";
        m_fs.add({"/config.toml",
                  fmt::format("[sensors.estimate]\nenabled = false\n\n"
                              "[sensors.ipmi]\nhost = \"127.0.0.1\"\nport = {}\nuser = \"admin\"\n"
                              "password_file = \"{}\"\ncipher_suite = 3\nprivilege = \"admin\"\n"
                              "source = \"{}\"\ninterval = \"1s\"\n",
                              m_sim->port(), m_sim->password_file().string(), GetParam())});
    }
    std::string jp(const std::string& args) const {
        return fmt::format("{} --sysfs-root {} -c {} {}", JP_BINARY, m_fs.root().string(),
                           m_fs.path("/config.toml").string(), args);
    }
    FakeSysfs m_fs;
    Profile m_profile;
    StepProfile m_steps;
    std::unique_ptr<SimBmc> m_sim;
};

TEST_P(BmcNode, NodeEnergyOfA20sJobMatchesTheProfile) {
    ProfileWriter::Profile part;
    part.base_w = 60; // the CPU package: a steady 60 W
    part.amp_w = 0;
    ProfileWriter writer{m_fs.path("/sys/class/powercap/intel-rapl:0/energy_uj"), part, now_ns()};
    const auto trace = m_fs.path("/bmc.jptrace").string();
    // Monotonic and real time side by side, to place the trace's edges on the profile.
    const double real_minus_mono = now_realtime() - static_cast<double>(now_ns()) * 1e-9;
    const auto r = sh(jp(fmt::format("run -i 1s --json --no-live -o {} -- sleep 20.5", trace)));
    ASSERT_EQ(r.exit_code, 0) << r.out;
    auto reader = trace::Reader::open(trace);
    ASSERT_TRUE(reader) << reader.error().message();
    const auto epoch = std::stoll(reader->meta().at("epoch_mono_ns"));
    const auto& run = reader->runs().at(0);
    ASSERT_TRUE(run.end_ns.has_value());
    const auto at = [&](std::int64_t t) {
        return static_cast<double>(epoch + t) * 1e-9 + real_minus_mono;
    };
    const double truth = m_steps.energy(at(run.start_ns), at(*run.end_ns));

    const auto j = nlohmann::json::parse(r.out);
    const auto& rj = j["groups"][0]["runs"][0];
    const double node = rj["node"]["energy_j"].get<double>();
    EXPECT_EQ(rj["node"]["provenance"], "measured") << rj["node"].dump();
    // XCC: an exact counter read at both edges. DCMI: each reading the mean of
    // the second before it, so each step is seen up to 1 s late; over 20.5 s and
    // these steps that bounds the error at 0.5 s x the steps' net change plus
    // the first and last second, well inside 1 %.
    EXPECT_NEAR(node, truth, truth * 0.01) << "node " << node << " J, profile " << truth << " J";
    RecordProperty("node_error_percent", fmt::format("{:.3f}", 100 * (node - truth) / truth));
    // Its bound holds the truth: XCC's as a counter's, DCMI's from its 1 s windows (a
    // guarantee: no assumption about the power between readings).
    ASSERT_TRUE(rj["node"].contains("energy_low_j")) << rj["node"].dump();
    EXPECT_LE(rj["node"]["energy_low_j"].get<double>(), truth) << rj["node"].dump();
    EXPECT_GE(rj["node"]["energy_high_j"].get<double>(), truth) << rj["node"].dump();
    EXPECT_FALSE(rj["node"]["bound_assumes_field"].get<bool>());
    EXPECT_TRUE(rj["node"]["measurable"].get<bool>()) << rj["node"].dump();
    if (std::string_view{GetParam()} == "dcmi") {
        // Each reading is a call over the network to the BMC, stamped at its middle: the power
        // field's bound counts the call's length.
        EXPECT_GT(rj["node"]["bound_terms"]["read_time"].get<double>(), 0) << rj["node"].dump();
    }
    double package = 0;
    double rest = -1;
    for (const auto& p : rj["parts"]) {
        if (p["name"] == "cpu0.package") {
            package = p["energy_j"].get<double>();
        }
    }
    ASSERT_TRUE(rj.contains("rest")) << rj.dump();
    rest = rj["rest"]["energy_j"].get<double>();
    EXPECT_NEAR(package, 60 * rj["runtime_s"].get<double>(), 60 * 0.01 * 20.5);
    EXPECT_NEAR(rest, node - package, 1e-6 * node);
    EXPECT_EQ(rj["rest"]["provenance"], "derived");
}

INSTANTIATE_TEST_SUITE_P(Sources, BmcNode, ::testing::Values("xcc", "dcmi"));

} // namespace
} // namespace jp::test
