// SPDX-License-Identifier: BSD-3-Clause
// The node's busy CPU time (attrib/node_cpu.hpp) from a fake /proc/stat: every CPU of a large
// node, whose file is longer than one read's first buffer.
#include "attrib/node_cpu.hpp"
#include "fake_sysfs.hpp"
#include "files.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

namespace jp::attrib {
namespace {

TEST(NodeCpu, EveryCpuOfALargeNodeIsRead) {
    jp::test::FakeSysfs root;
    constexpr int k_cpus = 2048; // ~82 KB of /proc/stat: more than the first 64 KiB read
    std::string text = "cpu  1 2 3 4 5 6 7 8 0 0\n";
    for (int cpu = 0; cpu < k_cpus; ++cpu) {
        // user nice system idle ...: busy = user + nice + system + irq + softirq
        text += fmt::format("cpu{} {} 0 100 123456789 0 0 0 0 0 0\n", cpu, 1000 + cpu);
    }
    text += "intr 0\nctxt 0\n";
    ASSERT_GT(text.size(), std::size_t{1} << 16);
    test::put(root.path("/proc/stat"), text);
    const auto node = NodeCpu::open(root.root());
    ASSERT_TRUE(node);
    EXPECT_EQ(node->cpus().size(), static_cast<std::size_t>(k_cpus));
    const auto busy = node->read();
    ASSERT_TRUE(busy);
    ASSERT_EQ(busy->size(), static_cast<std::size_t>(k_cpus));
    const double tick = 1.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
    EXPECT_NEAR((*busy)[0], 1100 * tick, 1e-9);
    EXPECT_NEAR((*busy)[k_cpus - 1], (1100 + k_cpus - 1) * tick, 1e-9);
}

} // namespace
} // namespace jp::attrib
