// SPDX-License-Identifier: BSD-3-Clause
// Slurm's compressed host lists, expanded in order (spank/hostlist.hpp).
#include "hostlist.hpp"

#include <gtest/gtest.h>

namespace jp::spank {
namespace {

using Names = std::vector<std::string>;

TEST(Hostlist, RangesExpandInOrderWithTheirZeroPadding) {
    EXPECT_EQ(expand_hostlist("jpn[1-2]"), (Names{"jpn1", "jpn2"}));
    EXPECT_EQ(expand_hostlist("node[08-10,12],gpu5"),
              (Names{"node08", "node09", "node10", "node12", "gpu5"}));
    EXPECT_EQ(expand_hostlist("a1,b[3]-ib,c"), (Names{"a1", "b3-ib", "c"}));
    EXPECT_EQ(expand_hostlist("localhost"), (Names{"localhost"}));
}

TEST(Hostlist, WhatItCannotReadIsNotGuessed) {
    for (const char* bad :
         {"", "n[1-", "n[2-1]", "n[1-2][3-4]", "n]1[", "n[a-b]", "n[[1]]", "a,,b"}) {
        EXPECT_FALSE(expand_hostlist(bad)) << bad;
    }
    EXPECT_FALSE(expand_hostlist("n[0-4000000000]"));
    EXPECT_FALSE(expand_hostlist("n[1-20]", 10));
}

// Found by fuzz/slurm: a range ending at the largest number wrapped to 0 and
// went on until memory ran out (in root's slurmstepd); and, by its test, a
// number past the largest was read as 0 ("n[18446744073709551616]" gave "n0").
TEST(Hostlist, ARangeEndingAtTheLargestNumberEnds) {
    EXPECT_EQ(expand_hostlist("n[18446744073709551615]"), (Names{"n18446744073709551615"}));
    EXPECT_EQ(expand_hostlist("n[18446744073709551614-18446744073709551615]", 10),
              (Names{"n18446744073709551614", "n18446744073709551615"}));
    EXPECT_FALSE(expand_hostlist("n[18446744073709551616]")) << "past the largest number";
}

} // namespace
} // namespace jp::spank
