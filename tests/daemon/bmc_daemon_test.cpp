// SPDX-License-Identifier: BSD-3-Clause
// The point of the BMC sources: a user without root gets the node's measured
// energy. jouleprofd, as root, reads the BMC (a real simulator, ipmi_sim with
// the project's plug-in, out-of-band with a root-only password file named in
// the daemon's config only) and an unprivileged user's `jouleprof run`, with no
// BMC configuration of its own, gets ipmi.node through the daemon over exact edges.
#include "daemon_fixture.hpp"
#include "sim_bmc.hpp"
#include "trace/reader.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <sys/stat.h>

namespace jp::test {
namespace {

using json = nlohmann::json;
using sensors::ipmi::test::find_sim;
using sensors::ipmi::test::now_realtime;
using sensors::ipmi::test::plugin_path;
using sensors::ipmi::test::Profile;
using sensors::ipmi::test::SimBmc;
using sensors::ipmi::test::StepProfile;

class DaemonBmc : public DaemonTest {
protected:
    void SetUp() override {
        DaemonTest::SetUp();
        if (IsSkipped()) {
            return;
        }
        if (find_sim().empty() || plugin_path().empty() ||
            !std::filesystem::exists(plugin_path())) {
            GTEST_SKIP() << "ipmi_sim or its plug-in is missing (openipmi, libopenipmi-dev)";
        }
        m_profile.start = now_realtime();
        m_sim = std::make_unique<SimBmc>(m_profile);
        m_steps.start = m_profile.start;
        m_steps.steps = {{0, 230}, {1.5, 380}, {3.1, 260}};
        m_steps.write(m_sim->dir() / "profile");
        ASSERT_TRUE(m_sim->start()) << "ipmi_sim did not answer within 10 s";
    }
    Profile m_profile;
    StepProfile m_steps;
    std::unique_ptr<SimBmc> m_sim;
};

TEST_F(DaemonBmc, UnprivilegedUserGetsTheBmcsNodeEnergyThroughTheDaemon) {
    const auto password = m_sim->password_file();
    struct stat st {};
    ASSERT_EQ(::stat(password.c_str(), &st), 0);
    ASSERT_EQ(st.st_uid, 0U) << "the premise: a root-only password file";
    ASSERT_NE(sh(as(k_alice, "cat " + password.string() + " >/dev/null 2>&1")).exit_code, 0);
    start_daemon(fmt::format("[sensors.ipmi]\nhost = \"127.0.0.1\"\nport = {}\nuser = \"admin\"\n"
                             "password_file = \"{}\"\ncipher_suite = 3\nprivilege = \"admin\"\n",
                             m_sim->port(), password.string()));
    const auto trace = home(k_alice) + "/bmc.jptrace";
    const double real_minus_mono = now_realtime() - static_cast<double>(now_ns()) * 1e-9;
    const auto r = sh(as(k_alice, jp(fmt::format("run -i 500ms --json --no-live -o {} -- "
                                                 "sleep 4.5 2>/dev/null",
                                                 trace))));
    ASSERT_EQ(r.exit_code, 0) << r.out << daemon_log();
    auto reader = trace::Reader::open(trace);
    ASSERT_TRUE(reader) << reader.error().message();
    const auto epoch = std::stoll(reader->meta().at("epoch_mono_ns"));
    const auto& run = reader->runs().at(0);
    ASSERT_TRUE(run.end_ns);
    const auto real = [&](std::int64_t t) {
        return static_cast<double>(epoch + t) * 1e-9 + real_minus_mono;
    };
    const double truth = m_steps.energy(real(run.start_ns), real(*run.end_ns));

    const auto j = json::parse(r.out);
    const auto& node = j["groups"][0]["runs"][0]["node"];
    EXPECT_EQ(node["provenance"], "measured") << node.dump();
    EXPECT_EQ(node["backend"], "jouleprofd") << node.dump();
    const auto& chans = reader->channels();
    EXPECT_TRUE(std::ranges::any_of(chans, [](const auto& c) { return c.name == "ipmi.node"; }))
        << "the daemon serves the BMC's channel under its own name";
    // The XCC counter read by the daemon at the job's edges: exact but for
    // the daemon's round trip and the counter's millisecond stamp.
    EXPECT_NEAR(node["energy_j"].get<double>(), truth, truth * 0.01) << node.dump();
    auto events = reader->events(run.id);
    ASSERT_TRUE(events);
    for (const auto& e : *events) {
        EXPECT_NE(e.kind, "stale_edge") << "an edge was not exact: " << e.detail;
    }
    EXPECT_EQ(daemon_log().find("secret"), std::string::npos) << "the password is never logged";
}

} // namespace
} // namespace jp::test
