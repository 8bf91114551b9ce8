// SPDX-License-Identifier: BSD-3-Clause
#include "markers/line_rules.hpp"

#include <cstring>
#include <gtest/gtest.h>
#include <memory>

namespace jp::markers {
namespace {

struct Emitted {
    Kind kind;
    std::int64_t t;
    std::string name;
    bool operator==(const Emitted&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Emitted& e) {
    return os << to_string(e.kind) << '@' << e.t << ':' << e.name;
}

// Runs lines (one per t = 1, 2, ...) through the rules; finish at t = 100.
std::vector<Emitted> run(const std::vector<std::string>& specs,
                         const std::vector<std::string>& lines) {
    std::vector<LineRule> rules;
    for (const auto& s : specs) {
        auto r = parse_line_rule(s);
        EXPECT_TRUE(r) << s << ": " << r.error();
        rules.push_back(std::move(*r));
    }
    std::vector<Emitted> out;
    LineMarker m{std::move(rules), [&](Kind k, std::int64_t t, std::string name) {
                     out.push_back({k, t, std::move(name)});
                 }};
    std::int64_t t = 0;
    for (const auto& l : lines) {
        m.line(l, ++t);
    }
    m.finish(100);
    return out;
}

TEST(MarkRegexRules, ParsesKindNameAndRegex) {
    auto r = parse_line_rule("Epoch (\\d+)");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->kind, RuleKind::phase);
    EXPECT_FALSE(r->name);

    r = parse_line_rule("point:ckpt-\\1=saved (\\w+)");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->kind, RuleKind::point);
    EXPECT_EQ(r->name, "ckpt-\\1");

    r = parse_line_rule("begin:eval=^Evaluating");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->kind, RuleKind::begin);
    EXPECT_EQ(r->name, "eval");

    // Text before '=' with regex syntax is part of the regex; a leading '=' means no NAME.
    r = parse_line_rule("(loss)=(\\d+)");
    ASSERT_TRUE(r);
    EXPECT_FALSE(r->name);
    r = parse_line_rule("=lr=(\\S+)");
    ASSERT_TRUE(r);
    EXPECT_FALSE(r->name);
    std::vector<Regex::Group> m;
    EXPECT_TRUE(r->regex.search("lr=0.1", m));
    // An unknown KIND is part of the regex.
    r = parse_line_rule("step: (\\d+)");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->kind, RuleKind::phase);
    EXPECT_TRUE(r->regex.search("step: 4", m));
}

TEST(MarkRegexRules, RefusesBadSpecsInOneLine) {
    for (const char* bad : {"Epoch (", "phase:", "point:x=", "[a-", "\\2=(a)", "a{2,1}"}) {
        const auto r = parse_line_rule(bad);
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().find('\n'), std::string::npos) << r.error();
        EXPECT_NE(r.error().find(bad), std::string::npos) << "names the spec: " << r.error();
    }
}

TEST(MarkRegexRules, PhaseRuleChainsPhasesAndClosesTheLastAtTheEnd) {
    const auto got = run({"Epoch (\\d+)"}, {"Epoch 1", "loss 0.5", "Epoch 2", "Epoch 3"});
    const std::vector<Emitted> want{
        {Kind::begin, 1, "1"}, {Kind::end, 3, "1"},   {Kind::begin, 3, "2"},
        {Kind::end, 4, "2"},   {Kind::begin, 4, "3"}, {Kind::end, 100, "3"},
    };
    EXPECT_EQ(got, want);
}

TEST(MarkRegexRules, DefaultNameIsGroupOneElseTheWholeMatch) {
    EXPECT_EQ(run({"point:done"}, {"all done now"}),
              (std::vector<Emitted>{{Kind::point, 1, "done"}}));
    EXPECT_EQ(run({"point:step (\\d+)"}, {"step 7"}),
              (std::vector<Emitted>{{Kind::point, 1, "7"}}));
    // Group 1 did not take part: the whole match.
    EXPECT_EQ(run({"point:(a)?b"}, {"xb"}), (std::vector<Emitted>{{Kind::point, 1, "b"}}));
}

TEST(MarkRegexRules, NameTemplatesUseGroups) {
    EXPECT_EQ(run({"point:\\2 of \\1=(\\w+) (\\w+)"}, {"train epoch"}),
              (std::vector<Emitted>{{Kind::point, 1, "epoch of train"}}));
    EXPECT_EQ(run({"point:a\\\\b=x"}, {"x"}), (std::vector<Emitted>{{Kind::point, 1, "a\\b"}}));
    EXPECT_EQ(run({"begin:valid=^Validating", "end:valid=^Validation done"},
                  {"Validating...", "Validation done: 0.9"}),
              (std::vector<Emitted>{{Kind::begin, 1, "valid"}, {Kind::end, 2, "valid"}}));
}

TEST(MarkRegexRules, EveryRuleSeesEveryLine) {
    const auto got = run({"Epoch (\\d+)", "point:saved"}, {"Epoch 1 saved"});
    const std::vector<Emitted> want{
        {Kind::begin, 1, "1"}, {Kind::point, 1, "saved"}, {Kind::end, 100, "1"}};
    EXPECT_EQ(got, want);
}

TEST(MarkRegexRules, NamesAreCleanedAndCut) {
    const auto got = run({"point:x(.*)"}, {"x" + std::string(300, 'y') + "\r"});
    ASSERT_EQ(got.size(), 1U);
    EXPECT_EQ(got[0].name, std::string(k_max_name, 'y'));
    EXPECT_TRUE(run({"point:^$"}, {""}).empty()) << "an empty name gives no marker";
    const auto cr = run({"point:a([^c]*)c"}, {"a\rbc"});
    ASSERT_EQ(cr.size(), 1U);
    EXPECT_EQ(cr[0].name, " b");
}

TEST(MarkRegexRules, FinishResetsForTheNextRun) {
    std::vector<Emitted> out;
    auto rule = parse_line_rule("E(\\d)");
    ASSERT_TRUE(rule);
    std::vector<LineRule> rules;
    rules.push_back(std::move(*rule));
    LineMarker m{std::move(rules), [&](Kind k, std::int64_t t, std::string n) {
                     out.push_back({k, t, n});
                 }};
    m.line("E1", 1);
    m.finish(2);
    m.line("E2", 3);
    m.finish(4);
    const std::vector<Emitted> want{
        {Kind::begin, 1, "1"}, {Kind::end, 2, "1"}, {Kind::begin, 3, "2"}, {Kind::end, 4, "2"}};
    EXPECT_EQ(out, want);
}

TEST(MarkRegexRules, CatastrophicPatternsMatchWithoutBacktracking) {
    // A backtracking engine takes 2^n steps for these on n 'a's and no match;
    // the automaton answers at once. (A time bound would be a benchmark; the
    // line is long enough that backtracking would not finish within the test.)
    std::vector<Regex::Group> m;
    for (const char* p : {"(a+)+$", "(a|aa)+$", "(a*)*b", "^(a|a?)+$"}) {
        auto r = Regex::compile(p);
        ASSERT_TRUE(r) << p << ": " << r.error();
        const std::string line = std::string(4000, 'a') + "!";
        EXPECT_FALSE(r->search(line, m)) << p;
    }
}

TEST(MarkRegexRules, PerlClassesWorkAndSyntaxThatWouldBacktrackIsRefused) {
    std::vector<Regex::Group> m;
    auto r = Regex::compile("Epoch ([\\d.]+) of \\d+");
    ASSERT_TRUE(r) << r.error();
    ASSERT_TRUE(r->search("x Epoch 3.5 of 10", m));
    EXPECT_EQ(m[1].begin, 8U);
    EXPECT_EQ(m[1].end, 11U);
    EXPECT_FALSE(r->search("Epoch x of 10", m));
    for (const char* bad : {"(a)\\1", "(?=a)", "a+?", "a*?b", "a{1,3}?"}) {
        const auto b = parse_line_rule(bad);
        ASSERT_FALSE(b) << bad;
        EXPECT_EQ(b.error().find('\n'), std::string::npos);
    }
    // NUL bytes in a line do not end it.
    r = Regex::compile("end$");
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->search(std::string_view{"a\0b end", 7}, m));
    // A view with no NUL after it (found by fuzz/mark_regex under ASan).
    const auto exact = std::make_unique<char[]>(6);
    std::memcpy(exact.get(), "xx end", 6);
    EXPECT_TRUE(r->search(std::string_view{exact.get(), 6}, m));
    EXPECT_FALSE(r->search(std::string_view{exact.get(), 5}, m));
}

// What the C library would build for a pattern is bounded before it is built
// (found by fuzz/mark_regex: "p++++++++++..." took over 2 GB in regcomp).
TEST(MarkRegexRules, PatternsThatWouldExpandTheAutomatonAreRefused) {
    for (const char* bad : {"p+++", "a*{2}", "a?*", "(a{100}){101}", "((a{30}){30}){30}",
                            "x{20000}", ")(b)a++", "a)b)(c+)++"}) {
        const auto r = Regex::compile(bad);
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().find('\n'), std::string::npos);
    }
    EXPECT_FALSE(Regex::compile(std::string(1025, 'a')));
    for (const char* good : {"a{100}", "(ab){10}x{0,50}", "[a-z+*]+ [+]{2}", "a\\++", "(a|b){3,}",
                             "[]+]+", "[[:alpha:]+]*", "\\d{4}-\\d{2}", "a)b+"}) {
        const auto r = Regex::compile(good);
        EXPECT_TRUE(r) << good << ": " << (r ? "" : r.error());
    }
}

} // namespace
} // namespace jp::markers
