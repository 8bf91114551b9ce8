// SPDX-License-Identifier: BSD-3-Clause
#include "report/html/svg.hpp"
#include "report/html/svg_detail.hpp"

#include <cmath>
#include <fmt/format.h>

namespace jp::report::html::detail {

// Appends a legend (swatches or line samples, then names) that wraps to rows
// inside [x, x + width]; returns its height.
double legend(std::string& out,
              std::span<const LegendEntry> entries,
              const std::string& id,
              double x,
              double y,
              double width) {
    if (entries.empty()) {
        return 0;
    }
    constexpr double row_h = 18;
    constexpr double font = 12;
    double cx = x;
    double cy = y;
    out += "<g class=\"legend\">";
    for (const auto& e : entries) {
        const double sample = e.line ? 22 : 12;
        const double w = sample + 5 + text_width(e.name, font) + 16;
        if (cx > x && cx + w > x + width) {
            cx = x;
            cy += row_h;
        }
        if (e.line) {
            out +=
                fmt::format(R"~(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" )~"
                            R"~(stroke-width="{}"{}/>)~",
                            num(cx), num(cy + 7), num(cx + sample), num(cy + 7), e.color,
                            e.dashed ? "2.5" : "2", e.dashed ? R"~( stroke-dasharray="5 3")~" : "");
        } else {
            out += fmt::format(R"~(<rect x="{}" y="{}" width="12" height="12" fill="{}"/>)~",
                               num(cx), num(cy + 1), e.color);
            if (e.hatched) {
                out += fmt::format(R"~(<rect x="{}" y="{}" width="12" height="12" )~"
                                   R"~(fill="url(#{}-hatch)"/>)~",
                                   num(cx), num(cy + 1), id);
            }
        }
        out += fmt::format(R"~(<text x="{}" y="{}" class="lg">{}</text>)~", num(cx + sample + 5),
                           num(cy + 11), escape(e.name));
        cx += w;
    }
    out += "</g>";
    return cy - y + row_h;
}

// Height the legend above will take (same layout, nothing written).
double legend_height(std::span<const LegendEntry> entries, double width) {
    std::string sink;
    return legend(sink, entries, "x", 0, 0, width);
}

std::string hatch_pattern(const std::string& id) {
    return fmt::format(R"~(<pattern id="{}-hatch" patternUnits="userSpaceOnUse" width="6" )~"
                       R"~(height="6" patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" )~"
                       R"~(y2="6" stroke="#ffffff" stroke-width="2.4" stroke-opacity="0.8"/>)~"
                       R"~(</pattern>)~",
                       id);
}

// Horizontal grid, y tick labels, the y title and the two axis lines.
void y_axis(std::string& out, const Frame& fr, const Axis& ax, std::string_view title) {
    const auto y_of = [&](double v) {
        return fr.bottom() - (v - ax.lo) / (ax.hi - ax.lo) * fr.height;
    };
    for (double t : ax.ticks()) {
        const double y = y_of(t);
        out += fmt::format(R"~(<line x1="{}" y1="{}" x2="{}" y2="{}" class="grid"/>)~",
                           num(fr.left), num(y), num(fr.right()), num(y));
        out += fmt::format(R"~(<text x="{}" y="{}" class="tick" text-anchor="end">{}</text>)~",
                           num(fr.left - 6), num(y + 4), ax.label(t));
    }
    out += fmt::format(R"~(<text class="axis-title" text-anchor="middle" )~"
                       R"~(transform="translate({},{}) rotate(-90)">{}</text>)~",
                       num(fr.left - 48), num(fr.top + fr.height / 2), escape(title));
    out += fmt::format(R"~(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" class="axis"/>)~",
                       num(fr.left), num(fr.top), num(fr.bottom()));
    out += fmt::format(R"~(<line x1="{0}" y1="{2}" x2="{1}" y2="{2}" class="axis"/>)~",
                       num(fr.left), num(fr.right()), num(fr.bottom()));
}

void x_axis(std::string& out,
            const Frame& fr,
            const Axis& ax,
            double lo,
            double hi,
            std::string_view title,
            bool grid) {
    for (double t : ax.ticks()) {
        if (t < lo - 1e-9 || t > hi + 1e-9) {
            continue;
        }
        const double x = fr.left + (t - lo) / (hi - lo) * fr.width;
        if (grid) {
            out += fmt::format(R"~(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" class="grid-v"/>)~",
                               num(x), num(fr.top), num(fr.bottom()));
        }
        out += fmt::format(R"~(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" class="axis"/>)~", num(x),
                           num(fr.bottom()), num(fr.bottom() + 4));
        out += fmt::format(R"~(<text x="{}" y="{}" class="tick" text-anchor="middle">{}</text>)~",
                           num(x), num(fr.bottom() + 17), ax.label(t));
    }
    out += fmt::format(R"~(<text x="{}" y="{}" class="axis-title" text-anchor="middle">{}</text>)~",
                       num(fr.left + fr.width / 2), num(fr.bottom() + 36), escape(title));
}

std::string
svg_open(const std::string& id, std::string_view cls, double w, double h, std::string_view extra) {
    return fmt::format(R"~(<svg id="{}" class="{}" viewBox="0 0 {} {}" width="{}" height="{}" )~"
                       R"~(role="img"{}>)~",
                       id, cls, num(w), num(h), num(w), num(h), extra);
}

} // namespace jp::report::html::detail
