// SPDX-License-Identifier: BSD-3-Clause
#include "core/text.hpp"

#include <cstdio>

namespace jp {

std::size_t utf8_length(std::string_view s, std::size_t i) noexcept {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const auto cont = [&](std::size_t k) { return i + k < s.size() && (b(k) & 0xC0U) == 0x80U; };
    const unsigned char c = b(0);
    if (c < 0x80U) {
        return 1;
    }
    if (c >= 0xC2U && c <= 0xDFU) {
        return cont(1) ? 2 : 0;
    }
    if (c >= 0xE0U && c <= 0xEFU) {
        if (!cont(1) || !cont(2)) {
            return 0;
        }
        if ((c == 0xE0U && b(1) < 0xA0U) || (c == 0xEDU && b(1) > 0x9FU)) {
            return 0; // overlong or a surrogate
        }
        return 3;
    }
    if (c >= 0xF0U && c <= 0xF4U) {
        if (!cont(1) || !cont(2) || !cont(3)) {
            return 0;
        }
        if ((c == 0xF0U && b(1) < 0x90U) || (c == 0xF4U && b(1) > 0x8FU)) {
            return 0;
        }
        return 4;
    }
    return 0;
}

namespace {

// The code point of a valid sequence of length n at s[i].
char32_t code_point(std::string_view s, std::size_t i, std::size_t n) {
    const auto b = [&](std::size_t k) {
        return static_cast<char32_t>(static_cast<unsigned char>(s[i + k]));
    };
    switch (n) {
    case 1:
        return b(0);
    case 2:
        return ((b(0) & 0x1FU) << 6U) | (b(1) & 0x3FU);
    case 3:
        return ((b(0) & 0x0FU) << 12U) | ((b(1) & 0x3FU) << 6U) | (b(2) & 0x3FU);
    default:
        return ((b(0) & 0x07U) << 18U) | ((b(1) & 0x3FU) << 12U) | ((b(2) & 0x3FU) << 6U) |
               (b(3) & 0x3FU);
    }
}

// C0, DEL, C1, the bidirectional controls (a right-to-left override makes a terminal
// show "exe.txt" for "txt.exe": Trojan Source, CVE-2021-42574), and the line and
// paragraph separators (a line break to some viewers and to JavaScript).
bool is_control(char32_t cp) {
    return cp < 0x20U || cp == 0x7FU || (cp >= 0x80U && cp <= 0x9FU) || cp == 0x061CU ||
           cp == 0x200EU || cp == 0x200FU || (cp >= 0x202AU && cp <= 0x202EU) || cp == 0x2028U ||
           cp == 0x2029U || (cp >= 0x2066U && cp <= 0x2069U);
}

// Walks s: valid sequences go to `keep`, invalid bytes to `bad`.
template <class Keep, class Bad> void walk(std::string_view s, Keep keep, Bad bad) {
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = utf8_length(s, i);
        if (n == 0) {
            bad();
            ++i;
        } else {
            keep(s.substr(i, n), code_point(s, i, n));
            i += n;
        }
    }
}

std::string escaped(char32_t cp, bool lines_too) {
    switch (cp) {
    case '\n':
        return lines_too ? "\\n" : "\n";
    case '\t':
        return lines_too ? "\\t" : "\t";
    case '\r':
        return "\\r";
    default:
        char buf[8];
        std::snprintf(buf, sizeof buf, cp < 0x80U ? "\\x%02x" : "\\u%04x",
                      static_cast<unsigned>(cp));
        return buf;
    }
}

std::string shown(std::string_view s, bool lines_too) {
    std::string out;
    out.reserve(s.size());
    walk(
        s,
        [&](std::string_view seq, char32_t cp) {
            if (is_control(cp)) {
                out += escaped(cp, lines_too);
            } else {
                out += seq;
            }
        },
        [&] { out += k_replacement_char; });
    return out;
}

} // namespace

std::string valid_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    walk(
        s, [&](std::string_view seq, char32_t) { out += seq; }, [&] { out += k_replacement_char; });
    return out;
}

const char* text_problem(std::string_view s) noexcept {
    const char* problem = nullptr;
    walk(
        s,
        [&](std::string_view, char32_t cp) {
            if (problem == nullptr && is_control(cp)) {
                problem = "contains a control character (a newline, tab, escape, ...)";
            }
        },
        [&] { problem = "is not valid UTF-8"; });
    return problem;
}

std::string terminal_safe(std::string_view s) {
    return shown(s, false);
}

std::string one_line(std::string_view s, std::size_t max_chars) {
    std::string line = shown(s, true);
    std::size_t chars = 0;
    for (std::size_t i = 0; i < line.size(); i += utf8_length(line, i)) {
        if (++chars > max_chars) {
            std::size_t cut = 0; // back to the start of the last code point that fits
            std::size_t n = 0;
            for (std::size_t j = 0; j < line.size() && n + 1 < max_chars;
                 j += utf8_length(line, j)) {
                cut = j + utf8_length(line, j);
                ++n;
            }
            return line.substr(0, cut) + "…";
        }
    }
    return line;
}

} // namespace jp
