// SPDX-License-Identifier: BSD-3-Clause
#include "markers/posix_regex.hpp"

#include <regex.h>

namespace jp::markers {
namespace {

// Perl classes the C library does not know, inside and outside brackets.
std::expected<std::string, std::string> translate(std::string_view p) {
    std::string out;
    bool bracket = false;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        const char next = i + 1 < p.size() ? p[i + 1] : '\0';
        if (bracket) {
            if (c == ']' && !(out.ends_with('[') || out.ends_with("[^"))) {
                bracket = false;
            } else if (c == '\\' && (next == 'd' || next == 's' || next == 'w')) {
                out += next == 'd' ? "0-9" : next == 's' ? "[:space:]" : "[:alnum:]_";
                ++i;
                continue;
            }
            out += c;
            continue;
        }
        if (c == '[') {
            bracket = true;
        } else if (c == '\\' && (next == 'd' || next == 'D')) {
            out += next == 'd' ? "[0-9]" : "[^0-9]";
            ++i;
            continue;
        } else if (c == '\\' && next >= '1' && next <= '9') {
            return std::unexpected("back-references (\\" + std::string{next} +
                                   ") are not supported: they make matching time unbounded");
        } else if (c == '(' && next == '?') {
            return std::unexpected("(?...) groups are Perl syntax, not supported here");
        } else if ((c == '*' || c == '+' || c == '?' || c == '}') && next == '?' &&
                   !(i > 0 && p[i - 1] == '\\')) {
            return std::unexpected("lazy quantifiers (*? +? ?? {..}?) are not supported");
        }
        if (c == '\\' && next != '\0') {
            out += c;
            out += next;
            ++i;
            continue;
        }
        out += c;
    }
    return out;
}

} // namespace

struct Regex::Compiled {
    regex_t re{};
};

void Regex::Free::operator()(Compiled* c) const noexcept {
    regfree(&c->re);
    delete c;
}

std::expected<Regex, std::string> Regex::compile(std::string_view pattern) {
    auto ere = translate(pattern);
    if (!ere) {
        return std::unexpected(ere.error());
    }
    auto c = std::make_unique<Compiled>();
    if (const int rc = regcomp(&c->re, ere->c_str(), REG_EXTENDED); rc != 0) {
        char why[256];
        regerror(rc, &c->re, why, sizeof why);
        return std::unexpected(std::string{why});
    }
    const std::size_t groups = c->re.re_nsub;
    return Regex{std::unique_ptr<Compiled, Free>{c.release()}, groups};
}

bool Regex::search(std::string_view text, std::vector<Group>& out) const {
    if (!m_compiled) {
        return false;
    }
    std::vector<regmatch_t> m(m_groups + 1);
    m[0].rm_so = 0;
    m[0].rm_eo = static_cast<regoff_t>(text.size());
    // REG_STARTEND: the bounds come from m[0], so the text needs no NUL and may hold some.
    if (regexec(&m_compiled->re, text.data(), m.size(), m.data(), REG_STARTEND) != 0) {
        return false;
    }
    out.assign(m.size(), Group{});
    for (std::size_t i = 0; i < m.size(); ++i) {
        if (m[i].rm_so >= 0) {
            out[i] = {true, static_cast<std::size_t>(m[i].rm_so),
                      static_cast<std::size_t>(m[i].rm_eo)};
        }
    }
    return true;
}

} // namespace jp::markers
