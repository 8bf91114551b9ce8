// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Markers from the job's output: `--mark-regex [KIND:][NAME=]REGEX`.
//   KIND  phase (default): a match ends this rule's previous phase and begins
//         a new one; the last closes at the job's end. begin, end, point: one
//         marker of that kind per match.
//   NAME  the marker's name; \1..\9 are capture groups, \\ a backslash.
//         Default: capture group 1 when the regex has one, else the whole match.
//         NAME= is only recognised when the text before the first '=' holds no
//         regex syntax ( ) [ ] { } * + ? | ^ $ or a backslash other than \1..\9
//         and \\; a leading '=' means "no NAME" (for a regex that contains '=').
//   REGEX POSIX extended syntax with Perl's \d (markers/posix_regex.hpp),
//         searched anywhere in each line in time bounded by the line's length.
#include "markers/posix_regex.hpp"
#include "markers/protocol.hpp"

#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jp::markers {

enum class RuleKind { phase, begin, end, point };

struct LineRule {
    std::string spec; // as given
    RuleKind kind = RuleKind::phase;
    std::optional<std::string> name; // NAME template; none: the default name
    Regex regex;
};

// One line of text on error (bad kind, invalid regex, group out of range).
[[nodiscard]] std::expected<LineRule, std::string> parse_line_rule(std::string_view spec);

// The marker name for one match of the rule in `line` (empty when the match
// gives no usable name).
[[nodiscard]] std::string
marker_name(const LineRule& rule, std::string_view line, const std::vector<Regex::Group>& match);

// Applies rules to lines and emits markers; keeps each phase rule's open phase.
class LineMarker {
public:
    using Sink = std::function<void(Kind kind, std::int64_t t_ns, std::string name)>;
    // Only the first k_max_line bytes of a line are matched.
    static constexpr std::size_t k_max_line = 4096;

    LineMarker(std::vector<LineRule> rules, Sink sink);
    [[nodiscard]] bool empty() const noexcept { return m_rules.empty(); }
    // A line without its newline, and when it arrived (trace time).
    void line(std::string_view text, std::int64_t t_ns);
    // Closes the open phases at t_ns (the job's end); ready for the next run.
    void finish(std::int64_t t_ns);

private:
    struct State {
        LineRule rule;
        std::optional<std::string> open; // the phase begun last, for phase rules
    };
    std::vector<State> m_rules;
    Sink m_sink;
    std::vector<Regex::Group> m_match; // reused for every line
};

} // namespace jp::markers
