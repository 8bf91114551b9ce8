// SPDX-License-Identifier: BSD-3-Clause
#include "markers/posix_regex.hpp"

#include <algorithm>
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
                   (i == 0 || p[i - 1] != '\\')) {
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

// Bounds on what the C library builds for a pattern: its automaton grows with
// the pattern expanded ("a{100}" is 100 copies, "(a{100}){100}" 10,000) and
// with stacked quantifiers ("a+++"), so both are bounded before regcomp.
constexpr std::size_t k_max_pattern = 1024;
constexpr std::size_t k_max_expanded = 10'000;

bool is_quantifier(char c) {
    return c == '*' || c == '+' || c == '?' || c == '{';
}

// The pattern (POSIX ERE, as translated) expanded by its repetitions, roughly
// as many nodes as regcomp makes; stops counting past the bound.
class Expansion {
public:
    explicit Expansion(std::string_view ere) : m_p(ere) {}

    std::expected<std::size_t, std::string> size() {
        const auto n = alternation();
        if (!m_error.empty()) {
            return std::unexpected(m_error);
        }
        return n;
    }

private:
    std::size_t alternation() {
        std::size_t n = sequence();
        while (m_i < m_p.size() && m_p[m_i] == '|') {
            ++m_i;
            n = add(n, sequence());
        }
        return n;
    }
    std::size_t sequence() {
        std::size_t n = 0;
        // An unmatched ')' is an ordinary character in POSIX ERE.
        while (m_i < m_p.size() && m_p[m_i] != '|' && (m_p[m_i] != ')' || m_depth == 0) &&
               m_error.empty()) {
            std::size_t atom_size = atom();
            bool quantified = false;
            while (m_i < m_p.size() && is_quantifier(m_p[m_i]) && m_error.empty()) {
                if (quantified) {
                    m_error = "stacked quantifiers (a++, a*{2}, ...) are not supported";
                    return n;
                }
                quantified = true;
                atom_size = times(atom_size, repeat());
            }
            n = add(n, atom_size);
        }
        return n;
    }
    std::size_t atom() {
        const char c = m_p[m_i++];
        if (c == '\\') {
            m_i = std::min(m_i + 1, m_p.size());
        } else if (c == '[') {
            skip_bracket();
        } else if (c == '(') {
            ++m_depth;
            const auto n = alternation();
            --m_depth;
            if (m_i < m_p.size() && m_p[m_i] == ')') {
                ++m_i;
            }
            return add(n, 2);
        }
        return 1;
    }
    void skip_bracket() {
        if (m_i < m_p.size() && m_p[m_i] == '^') {
            ++m_i;
        }
        if (m_i < m_p.size() && m_p[m_i] == ']') {
            ++m_i; // a leading ']' is a member
        }
        while (m_i < m_p.size() && m_p[m_i] != ']') {
            if (m_p[m_i] == '[' && m_i + 1 < m_p.size() &&
                (m_p[m_i + 1] == ':' || m_p[m_i + 1] == '.' || m_p[m_i + 1] == '=')) {
                const auto close = m_p.find(std::string{m_p[m_i + 1], ']'}, m_i + 2);
                m_i = close == std::string_view::npos ? m_p.size() : close + 2;
                continue;
            }
            ++m_i;
        }
        m_i = std::min(m_i + 1, m_p.size());
    }
    // How many copies a quantifier makes: "{n,m}" m (or n+1 when open), others 2.
    std::size_t repeat() {
        const char q = m_p[m_i++];
        if (q != '{') {
            return 2;
        }
        std::size_t lo = 0;
        std::size_t hi = 0;
        bool comma = false;
        while (m_i < m_p.size() && m_p[m_i] != '}') {
            const char d = m_p[m_i++];
            if (d == ',') {
                comma = true;
            } else if (d >= '0' && d <= '9') {
                auto& v = comma ? hi : lo;
                v = std::min<std::size_t>(v * 10 + static_cast<std::size_t>(d - '0'), 1'000'000);
            }
        }
        m_i = std::min(m_i + 1, m_p.size());
        return std::max<std::size_t>({lo, comma ? hi : lo, std::size_t{1}}) +
               (comma && hi == 0 ? 1 : 0);
    }
    static std::size_t add(std::size_t a, std::size_t b) {
        return std::min(a + b, k_max_expanded + 1);
    }
    static std::size_t times(std::size_t a, std::size_t b) {
        return b != 0 && a > (k_max_expanded + 1) / b ? k_max_expanded + 1
                                                      : std::min(a * b, k_max_expanded + 1);
    }

    std::string_view m_p;
    std::size_t m_i = 0;
    std::size_t m_depth = 0; // groups open
    std::string m_error;
};

} // namespace

struct Regex::Compiled {
    regex_t re{};
};

void Regex::Free::operator()(Compiled* c) const noexcept {
    regfree(&c->re);
    delete c;
}

std::expected<Regex, std::string> Regex::compile(std::string_view pattern) {
    if (pattern.size() > k_max_pattern) {
        return std::unexpected("longer than " + std::to_string(k_max_pattern) + " bytes");
    }
    auto ere = translate(pattern);
    if (!ere) {
        return std::unexpected(ere.error());
    }
    auto expanded = Expansion{*ere}.size();
    if (!expanded) {
        return std::unexpected(expanded.error());
    }
    if (*expanded > k_max_expanded) {
        return std::unexpected("its repetitions expand it past " + std::to_string(k_max_expanded) +
                               " states (as (a{100}){100} does): use fewer or smaller counts");
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
    // REG_STARTEND: the bounds come from m[0], so the text may hold NULs. glibc
    // then reads no further, but sanitizers' regexec interceptors check up to
    // strlen(text): a NUL-terminated copy keeps that inside the buffer (found
    // by fuzz/mark_regex on a view without a NUL after it).
    thread_local std::string terminated;
    terminated.assign(text);
    if (regexec(&m_compiled->re, terminated.c_str(), m.size(), m.data(), REG_STARTEND) != 0) {
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
