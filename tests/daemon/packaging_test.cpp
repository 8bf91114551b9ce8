// SPDX-License-Identifier: BSD-3-Clause
// The shipped systemd unit (packaging/jouleprofd.service.in as configured for
// this build's install paths): systemd itself accepts it, and it keeps the
// hardening the daemon is documented to run under.
#include "shell.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

namespace jp::test {
namespace {

std::string unit_text() {
    std::ifstream f{JP_UNIT_FILE};
    return {std::istreambuf_iterator<char>{f}, {}};
}

TEST(Packaging, TheUnitIsHardened) {
    const auto unit = unit_text();
    ASSERT_FALSE(unit.empty());
    for (const char* line : {"RuntimeDirectory=jouleprof", "CapabilityBoundingSet=",
                             "ProtectSystem=strict", "NoNewPrivileges=yes", "ProtectHome=yes",
                             "PrivateTmp=yes", "SystemCallFilter=@system-service",
                             "ExecReload=/bin/kill -HUP $MAINPID", "RestrictAddressFamilies="}) {
        EXPECT_NE(unit.find(line), std::string::npos) << line;
    }
    EXPECT_EQ(unit.find("CAP_SYS_ADMIN"), std::string::npos) << "no catch-all capability";
}

// The kernel sampler (CAP_BPF, bpf()) and perf RAPL (CAP_PERFMON, perf_event_open()) survive
// the hardening: the system calls, which @system-service lacks or ~@privileged takes away,
// are allowed again after the deny line (systemd merges the lines in order).
TEST(Packaging, TheUnitAllowsPerfAndTheKernelSampler) {
    const auto unit = unit_text();
    const auto caps = unit.find("CapabilityBoundingSet=");
    ASSERT_NE(caps, std::string::npos);
    const auto caps_line = unit.substr(caps, unit.find('\n', caps) - caps);
    for (const char* cap : {"CAP_PERFMON", "CAP_BPF", "CAP_DAC_READ_SEARCH"}) {
        EXPECT_NE(caps_line.find(cap), std::string::npos) << caps_line;
    }
    const auto deny = unit.find("SystemCallFilter=~");
    ASSERT_NE(deny, std::string::npos);
    const auto allow = unit.find("SystemCallFilter=bpf perf_event_open\n");
    EXPECT_NE(allow, std::string::npos);
    EXPECT_GT(allow, deny) << "allowed before the deny line, they would be denied again";
    if (sh("command -v systemd-analyze >/dev/null").exit_code == 0) {
        EXPECT_NE(sh("systemd-analyze syscall-filter @privileged").out.find(" bpf\n"),
                  std::string::npos)
            << "bpf moved out of @privileged: recheck the unit";
    }
}

TEST(Packaging, SystemdVerifiesTheUnit) {
    if (sh("command -v systemd-analyze >/dev/null").exit_code != 0) {
        GTEST_SKIP() << "systemd-analyze not installed";
    }
    // The unit names the installed path; point it at the binary just built.
    auto unit = unit_text();
    const std::string installed = JP_INSTALLED_DAEMON;
    ASSERT_NE(unit.find("ExecStart=" + installed + " "), std::string::npos) << unit;
    unit.replace(unit.find(installed), installed.size(), JP_DAEMON);
    const auto dir = std::filesystem::temp_directory_path() / fmt::format("jp-unit-{}", ::getpid());
    std::filesystem::create_directories(dir);
    std::ofstream{dir / "jouleprofd.service"} << unit;
    const auto r =
        sh(fmt::format("systemd-analyze verify {}/jouleprofd.service 2>&1", dir.string()));
    std::filesystem::remove_all(dir);
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.out, "") << "no warnings either";
}

TEST(Packaging, TheExampleConfigIsValidAsShipped) {
    const auto r = sh(
        fmt::format("{} -c {}/packaging/jouleprofd.toml --check 2>&1", JP_DAEMON, JP_SOURCE_DIR));
    EXPECT_EQ(r.exit_code, 0) << r.out;
}

} // namespace
} // namespace jp::test
