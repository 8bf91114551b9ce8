// SPDX-License-Identifier: BSD-3-Clause
// The estimate backend's pieces: the model table and the /proc parsers.
#include "fake_node.hpp"
#include "sensors/estimate/cpu_facts.hpp"
#include "sensors/estimate/cpu_models.hpp"
#include "sensors/estimate/dram_sensor.hpp"
#include "sensors/estimate/proc_stat.hpp"

#include <gtest/gtest.h>

namespace jp::sensors::estimate {
namespace {

std::string_view row_name(std::string_view model_name) {
    const auto* row = find_cpu_model(model_name);
    return row == nullptr ? "none" : row->name;
}

TEST(Estimate, EveryTableRowFindsItselfAndNoOther) {
    for (const auto& row : cpu_model_table()) {
        EXPECT_EQ(find_cpu_model(row.match), &row) << row.match;
        EXPECT_EQ(find_cpu_model(row.name), &row) << row.name;
        EXPECT_GT(row.tdp_watts, 0);
        EXPECT_GT(row.threads_per_socket, 0);
    }
}

TEST(Estimate, TableMatchesModelNamesAsTheKernelPrintsThem) {
    EXPECT_EQ(row_name("Intel(R) Xeon(R) Platinum 8368 CPU @ 2.40GHz"), "Intel Xeon Platinum 8368");
    EXPECT_EQ(row_name("Intel(R) Xeon(R) Platinum 8368Q CPU @ 2.60GHz"),
              "Intel Xeon Platinum 8368Q");
    EXPECT_EQ(row_name("Intel(R) Xeon(R) Platinum 8480+"), "Intel Xeon Platinum 8480+");
    EXPECT_EQ(row_name("Intel(R) Xeon(R) Platinum 8480C"), "Intel Xeon Platinum 8480C");
    EXPECT_EQ(row_name("Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz"), "Intel Xeon Gold 6248");
    EXPECT_EQ(row_name("Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz"), "Intel Xeon E5-2680 v4");
    EXPECT_EQ(row_name("AMD EPYC 7763 64-Core Processor"), "AMD EPYC 7763");
    EXPECT_EQ(row_name("AMD EPYC 7H12 64-Core Processor"), "AMD EPYC 7H12");
    EXPECT_EQ(row_name("AMD EPYC 9654 96-Core Processor"), "AMD EPYC 9654");
    EXPECT_EQ(row_name("amd epyc 7742"), "AMD EPYC 7742") << "case does not matter";
}

TEST(Estimate, TableMatchesWholeWordsOnly) {
    EXPECT_EQ(row_name("Intel(R) Xeon(R) Platinum 8380H CPU @ 2.90GHz"), "none")
        << "Cooper Lake 8380H is not the Ice Lake 8380";
    EXPECT_EQ(row_name("Intel(R) Xeon(R) Platinum 8480"), "none");
    EXPECT_EQ(row_name("AMD EPYC 77630"), "none");
    EXPECT_EQ(row_name("AMD EPYC 7543P 32-Core Processor"), "none");
    EXPECT_EQ(row_name("AMD EPYC"), "none");
    EXPECT_EQ(row_name("Graceful CPU"), "none");
    EXPECT_EQ(row_name(""), "none");
}

TEST(Estimate, ParsesTheAggregateCpuLine) {
    // user nice system idle iowait irq softirq steal guest guest_nice
    const auto t = parse_cpu_line("cpu  10866 1 3669 94662 3254 2 49 272 7 0\ncpu0 1 2 3 4\n");
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->busy_ticks, 10866U + 1 + 3669 + 2 + 49);
    EXPECT_EQ(t->total_ticks, t->busy_ticks + 94662 + 3254 + 272);
}

TEST(Estimate, ParsesOldKernelsWithFourFields) {
    const auto t = parse_cpu_line("cpu  100 0 50 850\n");
    ASSERT_TRUE(t.has_value());
    EXPECT_EQ(t->busy_ticks, 150U);
    EXPECT_EQ(t->total_ticks, 1000U);
}

TEST(Estimate, RejectsMalformedCpuLines) {
    EXPECT_FALSE(parse_cpu_line(""));
    EXPECT_FALSE(parse_cpu_line("cpu  1 2 3\n")) << "too few fields";
    EXPECT_FALSE(parse_cpu_line("cpu  1 2 3 4")) << "truncated: no end of line";
    EXPECT_FALSE(parse_cpu_line("cpu  1 2 x 4\n"));
    EXPECT_FALSE(parse_cpu_line("cpu  1 2 -3 4\n"));
    EXPECT_FALSE(parse_cpu_line("cpu0 1 2 3 4\n")) << "per-CPU line, not the aggregate";
    EXPECT_FALSE(parse_cpu_line("cpu  1 2 3 99999999999999999999999\n")) << "overflow";
}

TEST(Estimate, CountsPerCpuLines) {
    EXPECT_EQ(count_cpu_lines(test::stat_text({}, 3)), 3);
    EXPECT_EQ(count_cpu_lines("cpu  1 2 3 4\n"), 0);
    EXPECT_EQ(count_cpu_lines(""), 0);
}

TEST(Estimate, BusyFractionBetweenSnapshots) {
    EXPECT_DOUBLE_EQ(*busy_fraction({10, 100}, {40, 200}), 0.3);
    EXPECT_FALSE(busy_fraction({10, 100}, {10, 100})) << "no tick elapsed";
    EXPECT_FALSE(busy_fraction({10, 100}, {5, 200})) << "went back";
}

TEST(Estimate, ParsesCpuinfo) {
    const auto f = parse_cpuinfo(test::cpuinfo_text("AMD EPYC 7763 64-Core Processor", 4, true, 2));
    EXPECT_EQ(f.model_name, "AMD EPYC 7763 64-Core Processor");
    EXPECT_EQ(f.processors, 4);
    EXPECT_EQ(f.sockets, 2);
    EXPECT_TRUE(f.virtual_machine);
    EXPECT_FALSE(parse_cpuinfo(test::cpuinfo_text("X", 1, false)).virtual_machine);
    EXPECT_EQ(parse_cpuinfo("").sockets, 1);
    EXPECT_EQ(parse_cpuinfo("CPU implementer\t: 0x41\nCPU part\t: 0xd4f\n").model_name,
              "Arm Neoverse-V2");
    EXPECT_EQ(parse_cpuinfo("CPU implementer\t: 0x48\nCPU part\t: 0xd01\n").model_name,
              "Arm implementer 0x48 part 0xd01");
}

TEST(Estimate, ParsesMemTotal) {
    EXPECT_EQ(parse_mem_total_kib("MemTotal:       24684096 kB\nMemFree: 1 kB\n"), 24684096U);
    EXPECT_EQ(parse_mem_total_kib("MemFree: 1 kB\nMemTotal: 2048 kB\n"), 2048U);
    EXPECT_FALSE(parse_mem_total_kib("MemFree: 1 kB\n"));
    EXPECT_FALSE(parse_mem_total_kib("MemTotal: lots kB\n"));
    EXPECT_FALSE(parse_mem_total_kib("MemTotal: 2048\n")) << "no unit";
}

} // namespace
} // namespace jp::sensors::estimate
