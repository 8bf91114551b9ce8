// SPDX-License-Identifier: BSD-3-Clause
// The SPANK plugin's settings: plugstack.conf's arguments and the user's
// --jouleprof=OPTS (spank/settings.hpp), parsed inside root's slurmstepd.
#include "settings.hpp"

#include <gtest/gtest.h>

namespace jp::spank {
namespace {

Settings site_settings() {
    Settings s;
    EXPECT_EQ(apply_setting(s, "site=yes", true), "");
    EXPECT_EQ(apply_setting(s, "site_dir=/var/lib/jouleprof", true), "");
    EXPECT_EQ(apply_setting(s, "jouleprof=/opt/jp/bin/jouleprof", true), "");
    EXPECT_EQ(apply_setting(s, "socket=/run/jouleprof/jouleprofd.sock", true), "");
    EXPECT_EQ(apply_setting(s, "ready_timeout_ms=30000", true), "");
    return s;
}

TEST(SpankSettings, TheUserSetsIntervalDirLabelAndResult) {
    auto s = site_settings();
    EXPECT_EQ(apply_user_options(s, "interval=100ms,dir=/scratch/me,label=bs64,result=no"), "");
    EXPECT_EQ(s.interval, "100ms");
    EXPECT_EQ(s.dir, "/scratch/me");
    EXPECT_EQ(s.label, "bs64");
    EXPECT_FALSE(s.result);
    EXPECT_EQ(apply_user_options(s, ",,label=x,"), "") << "empty items are skipped";
    EXPECT_EQ(s.label, "x");
}

TEST(SpankSettings, TheUserCannotChangeWhatTheSiteSet) {
    for (const char* opts :
         {"jouleprof=/tmp/evil", "sysfs_root=/tmp/fake", "socket=/tmp/s", "config=/tmp/c.toml",
          "site=no", "site_dir=/tmp", "stop_timeout_ms=100"}) {
        auto s = site_settings();
        const auto why = apply_user_options(s, opts);
        EXPECT_NE(why.find("unknown option"), std::string::npos) << opts << ": " << why;
        EXPECT_EQ(s.jouleprof, "/opt/jp/bin/jouleprof");
        EXPECT_EQ(s.sysfs_root, "");
        EXPECT_EQ(s.socket, "/run/jouleprof/jouleprofd.sock");
        EXPECT_EQ(s.config, "");
        EXPECT_TRUE(s.site);
        EXPECT_EQ(s.site_dir, "/var/lib/jouleprof");
        EXPECT_EQ(s.stop_timeout_ms, 20000);
    }
}

TEST(SpankSettings, BadValuesAreRefusedWithOneLine) {
    Settings s;
    EXPECT_EQ(apply_setting(s, "site=maybe", true), "site expects yes or no");
    EXPECT_EQ(apply_setting(s, "site_dir=relative", true), "site_dir expects an absolute path");
    EXPECT_EQ(apply_setting(s, "ready_timeout_ms=99", true),
              "ready_timeout_ms expects 100..600000 (ms)");
    EXPECT_EQ(apply_setting(s, "ready_timeout_ms=600001", true),
              "ready_timeout_ms expects 100..600000 (ms)");
    EXPECT_EQ(apply_user_options(s, "label"), "'label' is not KEY=VALUE");
    EXPECT_EQ(apply_user_options(s, "label=a\tb"), "'label=a\\x09b' is not KEY=VALUE")
        << "a value with a control character is refused";
    EXPECT_EQ(apply_user_options(s, "label=" + std::string(1025, 'x')).substr(0, 8), "'label=x");
    EXPECT_EQ(s.label, "");
}

// Found by fuzz/slurm: what the user wrote went into slurmd's log as it was, so a
// newline in --jouleprof= forged log lines. Control characters are shown as \xNN.
TEST(SpankSettings, WhatTheUserWroteIsShownOnOneLineWithoutControlCharacters) {
    Settings s;
    const auto why = apply_user_options(s, "x\n[2026-11-26T06:00:00.000] forged\x1b[2J");
    EXPECT_EQ(why, "'x\\x0a[2026-11-26T06:00:00.000] forged\\x1b[2J' is not KEY=VALUE");
    EXPECT_EQ(apply_user_options(s, "ke\ry=v"), "unknown option 'ke\\x0dy' (expected interval=, "
                                                "dir=, label=, result=)");
    EXPECT_LE(apply_user_options(s, std::string(5000, '\x01')).size(), 80 * 4 + 20);
}

} // namespace
} // namespace jp::spank
