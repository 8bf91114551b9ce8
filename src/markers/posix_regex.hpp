// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The regular expressions of --mark-regex: POSIX extended syntax matched by
// the C library's regexec, which simulates the automaton instead of
// backtracking, so a match takes time bounded by the line and the pattern
// whatever the pattern is ("(a+)+$" included). Perl's \d and \D are
// translated (\s \S \w \W \b \B are GNU extensions regexec knows); what would
// bring backtracking back or means something else here is refused with a
// one-line reason: back-references (\1 in the pattern), (?...) groups and
// lazy quantifiers.
#include <cstddef>
#include <expected>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace jp::markers {

class Regex {
public:
    struct Group {
        bool matched = false;
        std::size_t begin = 0;
        std::size_t end = 0;
    };

    Regex() = default; // matches nothing

    // The compiled pattern, or why it cannot be used (one line).
    static std::expected<Regex, std::string> compile(std::string_view pattern);

    // Capture groups in the pattern (not counting the whole match).
    [[nodiscard]] std::size_t groups() const noexcept { return m_groups; }
    // Searches text (NUL bytes included); on a match fills `out` with the
    // whole match and each group.
    [[nodiscard]] bool search(std::string_view text, std::vector<Group>& out) const;

private:
    struct Compiled;
    struct Free {
        void operator()(Compiled* c) const noexcept;
    };
    explicit Regex(std::unique_ptr<Compiled, Free> c, std::size_t groups)
        : m_compiled(std::move(c)), m_groups(groups) {}
    std::unique_ptr<Compiled, Free> m_compiled;
    std::size_t m_groups = 0;
};

} // namespace jp::markers
