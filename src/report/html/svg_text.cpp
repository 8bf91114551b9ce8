// SPDX-License-Identifier: BSD-3-Clause
#include "core/text.hpp"
#include "report/html/svg.hpp"
#include "report/html/svg_detail.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace jp::report::html {

namespace detail {

// Code points in valid UTF-8 text (for width estimates).
std::size_t code_points(std::string_view s) {
    return static_cast<std::size_t>(std::ranges::count_if(
        s, [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0U) != 0x80U; }));
}

// Width of a text in px, estimated for DejaVu Sans-like fonts.
double text_width(std::string_view s, double font_px) {
    return static_cast<double>(code_points(s)) * font_px * 0.62;
}

std::string num(double v) {
    if (!std::isfinite(v)) {
        return "0";
    }
    return fmt::format("{:.1f}", v);
}

} // namespace detail

int significant_decimals(double v) {
    const double a = std::abs(v);
    return a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
}

std::string fit_text(const std::string& s, double font_px, double width) {
    if (detail::text_width(s, font_px) <= width) {
        return s;
    }
    std::string cut = s;
    while (!cut.empty() && detail::text_width(cut + "…", font_px) > width) {
        // One code point: its continuation bytes, then its first byte.
        while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0U) == 0x80U) {
            cut.pop_back();
        }
        if (!cut.empty()) {
            cut.pop_back();
        }
    }
    return cut + "…";
}

std::string escape(std::string_view s) {
    std::string out;
    out.reserve(s.size() + s.size() / 8);
    for (std::size_t i = 0; i < s.size();) {
        const char c = s[i];
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default: {
            const auto u = static_cast<unsigned char>(c);
            if (u < 0x20U && c != '\t' && c != '\n') {
                out += k_replacement_char;
                break;
            }
            const std::size_t n = utf8_length(s, i);
            if (n == 0) {
                out += k_replacement_char;
                break;
            }
            out.append(s.substr(i, n));
            i += n;
            continue;
        }
        }
        ++i;
    }
    return out;
}

} // namespace jp::report::html
