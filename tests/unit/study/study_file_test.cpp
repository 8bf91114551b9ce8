// SPDX-License-Identifier: BSD-3-Clause
// The study file parser: a good file, and each kind of mistake as one line
// naming the file, line, table and key.
#include "config/config.hpp"
#include "config/study.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace jp {
namespace {

constexpr std::string_view k_good = R"(
[study]
name = "quick"
repeat = 2
warmup = 0
cooldown = "5s"
baseline = "10s"
interval = "250ms"
node_type = "gpu-node"
vars = { data = "/shared/load", epochs = 3 }

[[workload]]
name = "energy-lstm"
[workload.commands]
train   = ["jouleprof-workload", "energy-lstm", "train", "--model", "{dir}/m-{setting}.pt"]
predict = ["jouleprof-workload", "energy-lstm", "predict", "--threads", "{threads}"]

[[workload]]
name = "health-vgg"
[workload.commands]
validate = ["vgg", "x"]
analyse = ["vgg", "y"]

[[setting]]
name = "2-threads"
vars = { threads = "2", lr = 0.5, batch = 64 }
)";

TEST(StudyFile, ParsesEveryKey) {
    auto s = parse_study(k_good, "quick.toml");
    ASSERT_TRUE(s) << s.error().message();
    EXPECT_EQ(s->name, "quick");
    EXPECT_EQ(s->repeat, 2);
    EXPECT_EQ(s->warmup, 0);
    EXPECT_EQ(s->cooldown, std::chrono::seconds{5});
    EXPECT_EQ(s->baseline, std::chrono::seconds{10});
    EXPECT_EQ(s->interval, std::chrono::milliseconds{250});
    EXPECT_EQ(s->node_type, "gpu-node");
    ASSERT_EQ(s->workloads.size(), 2U);
    const auto& lstm = s->workloads[0];
    EXPECT_EQ(lstm.name, "energy-lstm");
    ASSERT_EQ(lstm.modes.size(), 2U);
    EXPECT_EQ(lstm.modes[0].name, "train");
    EXPECT_EQ(lstm.modes[0].command.back(), "{dir}/m-{setting}.pt");
    EXPECT_EQ(lstm.modes[1].name, "predict");
    ASSERT_EQ(s->settings.size(), 1U);
    const std::vector<std::pair<std::string, std::string>> vars{
        {"batch", "64"}, {"lr", "0.5"}, {"threads", "2"}};
    EXPECT_EQ(s->settings[0].vars, vars);
    const std::vector<std::pair<std::string, std::string>> study_vars{{"data", "/shared/load"},
                                                                      {"epochs", "3"}};
    EXPECT_EQ(s->vars, study_vars);
}

TEST(StudyFile, ModesRunInTheOrderWrittenNotAlphabetically) {
    auto s = parse_study(k_good, "quick.toml");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->workloads[1].modes[0].name, "validate");
    EXPECT_EQ(s->workloads[1].modes[1].name, "analyse");
}

TEST(StudyFile, DefaultsFollowTheStudy) {
    auto s = parse_study("[study]\nname = \"s\"\n[[workload]]\nname = \"w\"\n"
                         "[workload.commands]\nrun = [\"true\"]\n",
                         "d.toml");
    ASSERT_TRUE(s) << s.error().message();
    EXPECT_EQ(s->repeat, 5);
    EXPECT_EQ(s->warmup, 1);
    EXPECT_EQ(s->cooldown.count(), 0);
    EXPECT_EQ(s->baseline.count(), 0);
    EXPECT_EQ(s->interval, std::chrono::milliseconds{500});
    EXPECT_FALSE(s->node_type);
    EXPECT_TRUE(s->settings.empty());
}

struct Bad {
    const char* what;
    std::string text;
    std::vector<std::string> says; // each must appear in the message
};

std::string with_study(std::string_view study_keys, std::string_view rest = {}) {
    return fmt::format("[study]\nname = \"s\"\n{}\n[[workload]]\nname = \"w\"\n"
                       "[workload.commands]\nrun = [\"true\"]\n{}",
                       study_keys, rest);
}

TEST(StudyFile, EachMistakeIsOneLineNamingWhereAndWhat) {
    const std::vector<Bad> cases{
        {"syntax", "[study\n", {"bad.toml:1"}},
        {"no study", "[[workload]]\nname = \"w\"\n", {"[study]"}},
        {"no workload", "[study]\nname = \"s\"\n", {"nothing to measure"}},
        {"unknown top key", with_study("", "[extra]\n"), {"extra", "unknown key"}},
        {"typo in study", with_study("repet = 3"), {"[study] repet", "unknown key", "repeat"}},
        {"repeat < 1", with_study("repeat = 0"), {"[study] repeat", "at least 1"}},
        {"repeat not a number", with_study("repeat = \"2\""), {"repeat"}},
        {"negative warm-up", with_study("warmup = -1"), {"warmup", "at least 0"}},
        {"bad duration", with_study("cooldown = \"soon\""), {"bad.toml:3", "[study] cooldown"}},
        {"duration not a string", with_study("baseline = 3"), {"baseline", "string"}},
        {"interval too short", with_study("interval = \"0s\""), {"interval", "at least"}},
        {"bad name", "[study]\nname = \"a/b\"\n", {"[study] name", "letters"}},
        {"no name", "[study]\nrepeat = 2\n", {"[study]", "name"}},
        {"workload not an array",
         "[study]\nname = \"s\"\n[workload]\nname = \"w\"\n",
         {"workload", "[[workload]]"}},
        {"workload typo",
         with_study("", "[[workload]]\nname = \"v\"\ncommand = [\"x\"]\n"),
         {"[[workload]] #2 command", "unknown key"}},
        {"duplicate workload",
         with_study("", "[[workload]]\nname = \"w\"\n[workload.commands]\nrun = [\"x\"]\n"),
         {"'w' is used twice"}},
        {"no commands", with_study("", "[[workload]]\nname = \"v\"\n"), {"#2 commands"}},
        {"command not an array",
         "[study]\nname = \"s\"\n[[workload]]\nname = \"w\"\n"
         "[workload.commands]\nrun = \"true\"\n",
         {"commands.run", "array of strings"}},
        {"argument not a string",
         "[study]\nname = \"s\"\n[[workload]]\nname = \"w\"\n"
         "[workload.commands]\nrun = [\"x\", 3]\n",
         {"commands.run", "argument 2"}},
        {"empty command",
         "[study]\nname = \"s\"\n[[workload]]\nname = \"w\"\n"
         "[workload.commands]\nrun = []\n",
         {"commands.run"}},
        {"setting typo",
         with_study("", "[[setting]]\nname = \"a\"\nvar = {}\n"),
         {"[[setting]] #1 var", "unknown key"}},
        {"duplicate setting",
         with_study("", "[[setting]]\nname = \"a\"\n[[setting]]\nname = \"a\"\n"),
         {"'a' is used twice"}},
        {"var shadows a built-in",
         with_study("", "[[setting]]\nname = \"a\"\nvars = { dir = 1 }\n"),
         {"vars.dir", "built in"}},
        {"var not a name",
         with_study("", "[[setting]]\nname = \"a\"\nvars = { \"x-y\" = 1 }\n"),
         {"vars.x-y"}},
        {"var not a value",
         with_study("", "[[setting]]\nname = \"a\"\nvars = { x = [1] }\n"),
         {"vars.x", "string or a number"}},
    };
    for (const auto& c : cases) {
        auto s = parse_study(c.text, "bad.toml");
        ASSERT_FALSE(s) << c.what;
        const auto m = s.error().message();
        EXPECT_EQ(m.find('\n'), std::string::npos) << c.what << ": " << m;
        EXPECT_NE(m.find("bad.toml"), std::string::npos) << c.what << ": " << m;
        for (const auto& part : c.says) {
            EXPECT_NE(m.find(part), std::string::npos) << c.what << ": '" << part << "' in " << m;
        }
    }
}

TEST(StudyFile, NamesAreWhatLabelsAndFileNamesCanHold) {
    EXPECT_TRUE(is_study_name("energy-lstm_v1.2"));
    for (const char* bad : {"", "a/b", "a@b", "a b", "a,b"}) {
        EXPECT_FALSE(is_study_name(bad)) << bad;
    }
}

TEST(StudyFile, ConfigNamesTheNodeType) {
    auto c = parse_config("[node]\nname = \"cpu-node\"\n", "c.toml");
    ASSERT_TRUE(c) << c.error().message();
    EXPECT_EQ(c->node.name, "cpu-node");
}

TEST(StudyFile, LoadNamesAMissingFile) {
    auto s = load_study("/nonexistent/study.toml");
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message().find("/nonexistent/study.toml"), std::string::npos);
}

} // namespace
} // namespace jp
