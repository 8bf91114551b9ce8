// SPDX-License-Identifier: BSD-3-Clause
// What Slurm 22.05's tools print (recorded on a single-node Slurm with the
// rapl energy plugin), parsed; "n/a"/"n/s" and garbage are absent values.
#include "sensors/slurm/scontrol.hpp"

#include <gtest/gtest.h>

namespace jp::sensors::slurm {
namespace {

// scontrol show node -o localhost (one line; wrapped here for reading).
constexpr std::string_view k_node =
    "NodeName=localhost Arch=x86_64 CoresPerSocket=2 CPUAlloc=0 CPUEfctv=2 CPUTot=2 "
    "CPULoad=1.17 AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) "
    "NodeAddr=127.0.0.1 NodeHostName=localhost Version=22.05.8 OS=Linux 6.18.44 #1 SMP "
    "RealMemory=24103 AllocMem=0 FreeMem=21927 Sockets=1 Boards=1 State=IDLE "
    "ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=debug "
    "CfgTRES=cpu=2,mem=24103M,billing=2 AllocTRES= CapWatts=n/a CurrentWatts=80 "
    "AveWatts=40 ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n";

TEST(SlurmParse, NodeRecord) {
    const auto n = parse_node(k_node);
    EXPECT_TRUE(n.found);
    EXPECT_EQ(n.current_watts, 80.0);
    EXPECT_EQ(n.ave_watts, 40.0);
    EXPECT_FALSE(n.consumed_joules) << "22.05 does not print it";
    const auto newer = parse_node("NodeName=n1 CurrentWatts=312 AveWatts=300 "
                                  "ConsumedJoules=123456 LowestJoules=10\n");
    EXPECT_EQ(newer.consumed_joules, 123456.0);
}

TEST(SlurmParse, AbsentAndMalformedValues) {
    const auto none = parse_node("NodeName=n1 CapWatts=n/a CurrentWatts=n/s AveWatts=x12\n");
    EXPECT_TRUE(none.found);
    EXPECT_FALSE(none.current_watts);
    EXPECT_FALSE(none.ave_watts);
    EXPECT_FALSE(parse_node("Node n1 not found\n").found);
    EXPECT_FALSE(parse_node("").found);
    EXPECT_FALSE(parse_node("NodeName=n1 XCurrentWatts=5\n").current_watts)
        << "a key is matched whole";
    EXPECT_FALSE(parse_node("NodeName=n1 CurrentWatts=-5\n").current_watts);
    EXPECT_FALSE(parse_node("NodeName=n1 CurrentWatts=\n").current_watts);
}

TEST(SlurmParse, ConfigNamesThePluginAndItsPollPeriod) {
    const auto c = parse_config("Configuration data as of 2026-11-24T23:58:41\n"
                                "AccountingStorageType   = accounting_storage/none\n"
                                "AcctGatherEnergyType    = acct_gather_energy/rapl\n"
                                "AcctGatherNodeFreq      = 5 sec\n"
                                "JobAcctGatherFrequency  = task=5,energy=5\n");
    EXPECT_EQ(c.plugin, "acct_gather_energy/rapl");
    EXPECT_EQ(c.node_ns, 5'000'000'000);
    const auto off = parse_config("AcctGatherEnergyType = acct_gather_energy/none\n"
                                  "AcctGatherNodeFreq = 0 sec\n");
    EXPECT_EQ(off.plugin, "acct_gather_energy/none");
    EXPECT_FALSE(off.node_ns);
    EXPECT_TRUE(parse_config("garbage\n\n=\n").plugin.empty());
}

// Found by fuzz/slurm: a period of 2^63 - 1 s overflowed into nanoseconds. Slurm
// keeps it in 16 bits; a larger figure is not Slurm's and is not used.
TEST(SlurmParse, APollPeriodSlurmCannotHaveIsNotUsed) {
    EXPECT_EQ(parse_config("AcctGatherNodeFreq = 65535 sec\n").node_ns, 65535'000'000'000);
    EXPECT_FALSE(parse_config("AcctGatherNodeFreq = 65536 sec\n").node_ns);
    EXPECT_FALSE(parse_config("AcctGatherNodeFreq = 9223372036854775807 sec\n").node_ns);
}

TEST(SlurmParse, StepEnergyAndStepNames) {
    EXPECT_EQ(parse_step_energy("801\n"), 801.0);
    EXPECT_EQ(parse_step_energy("  160\n170\n"), 160.0);
    EXPECT_FALSE(parse_step_energy(""));
    EXPECT_FALSE(parse_step_energy("sstat: error: no steps running\n"));
    EXPECT_EQ(step_name("42", "0"), "42.0");
    EXPECT_EQ(step_name("42", "4294967291"), "42.batch");
    EXPECT_EQ(step_name("42", "4294967292"), "42.extern");
    EXPECT_EQ(step_name("42", ""), "");
    EXPECT_EQ(step_name("", "0"), "");
    EXPECT_EQ(step_name("x", "0"), "");
}

} // namespace
} // namespace jp::sensors::slurm
