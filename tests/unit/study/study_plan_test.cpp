// SPDX-License-Identifier: BSD-3-Clause
// The cells of a study: their order, labels and commands with every
// placeholder substituted, and the errors for placeholders without a value.
#include "report/study.hpp"

#include <gtest/gtest.h>

namespace jp::report {
namespace {

Study two_by_two() {
    Study s;
    s.name = "quick";
    s.workloads = {{"energy-lstm",
                    {{"train", {"wl", "{workload}", "{mode}", "--model", "{dir}/{setting}.pt"}},
                     {"predict", {"wl", "--threads={threads}"}}}},
                   {"health-vgg", {{"train", {"vgg", "{threads}"}}}}};
    s.settings = {{"1-thread", {{"threads", "1"}}}, {"4-threads", {{"threads", "4"}}}};
    return s;
}

TEST(StudyPlan, CellsRunPerSettingThenWorkloadThenModeInOrder) {
    auto cells = study_cells(two_by_two(), "/out");
    ASSERT_TRUE(cells) << cells.error().message();
    std::vector<std::string> labels;
    for (const auto& c : *cells) {
        labels.push_back(c.label);
    }
    const std::vector<std::string> expected{
        "energy-lstm/train@1-thread",    "energy-lstm/predict@1-thread",
        "health-vgg/train@1-thread",     "energy-lstm/train@4-threads",
        "energy-lstm/predict@4-threads", "health-vgg/train@4-threads"};
    EXPECT_EQ(labels, expected);
}

TEST(StudyPlan, PlaceholdersAreSubstituted) {
    auto cells = study_cells(two_by_two(), "/out");
    ASSERT_TRUE(cells);
    const std::vector<std::string> train{"wl", "energy-lstm", "train", "--model",
                                         "/out/4-threads.pt"};
    EXPECT_EQ((*cells)[3].command, train);
    EXPECT_EQ((*cells)[4].command.back(), "--threads=4");
    EXPECT_EQ((*cells)[3].key, (StudyKey{"energy-lstm", "train", "4-threads"}));
}

TEST(StudyPlan, WithoutSettingsLabelsHaveNoSettingAndSettingIsDefault) {
    Study s;
    s.name = "plain";
    s.workloads = {{"w", {{"run", {"job", "{setting}", "{dir}"}}}}};
    auto cells = study_cells(s, "/d");
    ASSERT_TRUE(cells) << cells.error().message();
    ASSERT_EQ(cells->size(), 1U);
    EXPECT_EQ(cells->front().label, "w/run");
    EXPECT_EQ(cells->front().command, (std::vector<std::string>{"job", "default", "/d"}));
}

TEST(StudyPlan, UnknownPlaceholderNamesItAndTheCell) {
    auto s = two_by_two();
    s.workloads[1].modes[0].command = {"vgg", "{epochs}"};
    s.source = "quick.toml";
    auto cells = study_cells(s, "/out");
    ASSERT_FALSE(cells);
    const auto m = cells.error().message();
    for (const char* part : {"quick.toml", "{epochs}", "health-vgg/train", "threads"}) {
        EXPECT_NE(m.find(part), std::string::npos) << part << " in " << m;
    }
}

TEST(StudyPlan, AVarMissingFromOneSettingNamesThatSetting) {
    auto s = two_by_two();
    s.settings[1].vars.clear();
    auto cells = study_cells(s, "/out");
    ASSERT_FALSE(cells);
    const auto m = cells.error().message();
    EXPECT_NE(m.find("setting '4-threads' has no var 'threads'"), std::string::npos) << m;
}

TEST(StudyLabel, RoundTrips) {
    for (const StudyKey& k :
         {StudyKey{"energy-lstm", "train", ""}, StudyKey{"health-vgg", "predict", "2-threads"}}) {
        EXPECT_EQ(parse_study_label(study_label(k)), k) << study_label(k);
    }
    EXPECT_EQ(study_label({"w", "m", "s"}), "w/m@s");
    EXPECT_EQ(study_label({"w", "m", ""}), "w/m");
}

TEST(StudyLabel, OtherLabelsAreKeptWhole) {
    for (const char* label : {"default", "gpu node", "a/b/c", "a/", "/m", "w/m@", "w@s"}) {
        EXPECT_EQ(parse_study_label(label), (StudyKey{label, "", ""})) << label;
    }
}

TEST(StudyPlan, StudyVarsApplyToEverySettingUnlessItHasItsOwn) {
    auto s = two_by_two();
    s.workloads[1].modes[0].command = {"vgg", "{data}", "{threads}"};
    s.vars = {{"data", "/shared/xray"}, {"threads", "9"}};
    auto cells = study_cells(s, "/out");
    ASSERT_TRUE(cells) << cells.error().message();
    EXPECT_EQ((*cells)[2].command, (std::vector<std::string>{"vgg", "/shared/xray", "1"}));
}

TEST(StudyPlan, CommandLineOverridesSetVarsAndPickSettings) {
    auto s = two_by_two();
    ASSERT_TRUE(apply_overrides(s, {"threads=16", "data=/x"}, {"4-threads"}));
    ASSERT_EQ(s.settings.size(), 1U);
    EXPECT_EQ(s.settings[0].name, "4-threads");
    auto cells = study_cells(s, "/out");
    ASSERT_TRUE(cells) << cells.error().message();
    EXPECT_EQ((*cells)[1].command.back(), "--threads=16");
    EXPECT_EQ(s.vars, (std::vector<std::pair<std::string, std::string>>{{"threads", "16"},
                                                                        {"data", "/x"}}));
    auto bad = two_by_two();
    EXPECT_FALSE(apply_overrides(bad, {"threads"}, {}));
    EXPECT_FALSE(apply_overrides(bad, {"dir=/x"}, {}));
    auto unknown = apply_overrides(bad, {}, {"64-threads"});
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.error().message().find("no setting '64-threads'"), std::string::npos);
}

TEST(StudyPlan, WorkloadOptionKeepsOnlyTheNamedWorkloadsCells) {
    auto s = two_by_two();
    const auto second = s.workloads[1].name;
    ASSERT_TRUE(keep_workloads(s, {second}));
    ASSERT_EQ(s.workloads.size(), 1U);
    EXPECT_EQ(s.workloads[0].name, second);
    auto all = two_by_two();
    ASSERT_TRUE(keep_workloads(all, {}));
    EXPECT_EQ(all.workloads.size(), 2U) << "no --workload: every workload";
    auto unknown = keep_workloads(all, {second, "resnet"});
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.error().message().find("no workload 'resnet'"), std::string::npos);
    EXPECT_EQ(all.workloads.size(), 2U) << "an unknown name changes nothing";
}

} // namespace
} // namespace jp::report
