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
