// SPDX-License-Identifier: BSD-3-Clause
#include "config/config.hpp"

#include <gtest/gtest.h>

namespace jp {
namespace {

TEST(Config, ParsesNodeAndSensors) {
    auto c = parse_config(R"(
[node]
rated_watts = 10200
rest_watts = 120.5
cpu_tdp_watts = 280
[sensors.nvml]
interval = "100ms"
library = "/opt/nvidia/libnvidia-ml.so.1"
[sensors.hwmon]
enabled = false
)",
                          "test.toml");
    ASSERT_TRUE(c) << c.error().message();
    EXPECT_DOUBLE_EQ(*c->node.rated_watts, 10200);
    EXPECT_DOUBLE_EQ(*c->node.rest_watts, 120.5);
    EXPECT_EQ(c->intervals.at("nvml").count(), 100'000'000);
    EXPECT_EQ(*c->nvml_library, "/opt/nvidia/libnvidia-ml.so.1");
    EXPECT_TRUE(c->disabled.contains("hwmon"));
}

TEST(Config, ErrorsNameFileAndKey) {
    auto bad_syntax = parse_config("[node\n", "a.toml");
    ASSERT_FALSE(bad_syntax);
    EXPECT_NE(bad_syntax.error().message().find("a.toml"), std::string::npos);

    auto bad_value = parse_config("[node]\nrated_watts = -3\n", "b.toml");
    ASSERT_FALSE(bad_value);
    EXPECT_NE(bad_value.error().message().find("rated_watts"), std::string::npos);

    auto bad_interval = parse_config("[sensors.nvml]\ninterval = \"fast\"\n", "c.toml");
    ASSERT_FALSE(bad_interval);
    EXPECT_NE(bad_interval.error().message().find("interval"), std::string::npos);

    auto bad_fraction = parse_config("[node]\ncpu_idle_fraction = 1.5\n", "d.toml");
    ASSERT_FALSE(bad_fraction);
}

} // namespace
} // namespace jp

namespace jp {
namespace {

TEST(Config, UnknownKeysWrongTypesAndNonFiniteNumbersAreRefused) {
    const std::pair<const char*, const char*> bad[] = {
        {"[nodes]\n", "unknown key"},
        {"[node]\nrated_wats = 10\n", "rated_wats"},
        {"[node]\nrated_watts = nan\n", "must be a finite number"},
        {"[node]\nrest_watts = inf\n", "must be a finite number"},
        {"[node]\ncpu_model = 3\n", "must be a string"},
        {"[carbon]\nprice = 0.2\n", "price"},
        {"[report]\nthreshold = 1\n", "threshold"},
        {"[sensors.rapl]\nenabled = false\n", "unknown sensor backend"},
        {"[sensors.hwmon]\nenabled = \"no\"\n", "must be true or false"},
        {"[sensors.hwmon]\ninterval = 5\n", "must be a string"},
        {"[sensors.hwmon]\ninterval = \"0s\"\n", "must be longer than 0"},
        {"[sensors.powercap]\nlibrary = \"/x.so\"\n", "library"},
        {"[sensors.nvml]\nsocket = \"/x\"\n", "socket"},
        {"sensors = 1\n", "must be a table"},
        {"sysfs_root = 1\n", "must be a string"},
        {"[sensors.perf_rapl]\nkernel_sampling = \"yes\"\n", "must be true or false"},
        {"[sensors.perf_rapl]\ndrain = \"0.5ms\"\n", "must be from 1 ms to 1 s"},
        {"[sensors.perf_rapl]\ndrain = \"2s\"\n", "must be from 1 ms to 1 s"},
        {"[sensors.perf_rapl]\ndrain = \"soon\"\n", "drain"},
        {"[sensors.powercap]\nkernel_sampling = true\n", "kernel_sampling"},
    };
    for (const auto& [text, expect] : bad) {
        auto c = parse_config(text, "e.toml");
        ASSERT_FALSE(c) << text;
        EXPECT_NE(c.error().message().find(expect), std::string::npos)
            << text << " -> " << c.error().message();
        EXPECT_NE(c.error().message().find("e.toml:"), std::string::npos) << "file and line";
    }
}

TEST(Config, TheDaemonSocketAndEveryBackendNameAreAccepted) {
    auto c = parse_config("[sensors.jouleprofd]\nsocket = \"/run/j.sock\"\nenabled = true\n"
                          "[sensors.replay]\n[sensors.powercap]\n[sensors.perf_rapl]\n"
                          "[sensors.rocm_smi]\n[sensors.pm_counters]\n[sensors.estimate]\n",
                          "ok.toml");
    ASSERT_TRUE(c) << c.error().message();
    EXPECT_EQ(*c->daemon_socket, "/run/j.sock");
    EXPECT_FALSE(c->disabled.contains("jouleprofd"));
    EXPECT_TRUE(c->kernel_sampling) << "the kernel sampler where it works, unless turned off";
    EXPECT_FALSE(c->kernel_drain);
}

TEST(Config, TheKernelSamplerCanBeTurnedOffAndItsDrainSet) {
    auto c =
        parse_config("[sensors.perf_rapl]\nkernel_sampling = false\ndrain = \"250ms\"\n", "k.toml");
    ASSERT_TRUE(c) << c.error().message();
    EXPECT_FALSE(c->kernel_sampling);
    ASSERT_TRUE(c->kernel_drain);
    EXPECT_EQ(c->kernel_drain->count(), 250'000'000);
    EXPECT_FALSE(c->disabled.contains("perf_rapl"));
}

} // namespace
} // namespace jp
