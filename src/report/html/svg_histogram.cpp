// SPDX-License-Identifier: BSD-3-Clause
#include "report/html/svg.hpp"
#include "report/html/svg_detail.hpp"
#include "report/units.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace jp::report::html {

using namespace detail;

// --- power distribution ---

std::string histogram_svg(const HistogramFigure& f) {
    constexpr double ml = 70;
    constexpr double mr = 18;
    const double plot_w = f.plot_width;
    std::vector<LegendEntry> entries;
    entries.reserve(f.lines.size());
    for (const auto& l : f.lines) {
        entries.push_back({l.name, l.color, false, l.dashed, true});
    }
    const double legend_h = legend_height(entries, plot_w);
    const Frame fr{ml, 8 + legend_h + 8, plot_w, static_cast<double>(f.plot_height)};
    const double width = ml + plot_w + mr;
    const double height = fr.bottom() + 46;
    const double lo = f.lo;
    const double hi = f.hi > f.lo ? f.hi : f.lo + 1;
    double smax = 0;
    for (double s : f.share) {
        smax = std::max(smax, std::isfinite(s) ? s : 0.0);
    }
    // A share is at most 100 %: the axis stops there (one bin holding all the time).
    const Axis ay = nice_axis(0, smax > 0 ? std::min(smax * 100 * 1.08, 100.0) : 1, 5);
    const auto X = [&](double w) { return fr.left + (w - lo) / (hi - lo) * fr.width; };
    const auto Y = [&](double pct) {
        return fr.bottom() - (pct - ay.lo) / (ay.hi - ay.lo) * fr.height;
    };

    std::string out =
        svg_open(f.id, "jp-hist", width, height, R"~( aria-label="distribution of node power")~");
    legend(out, entries, f.id, fr.left, 8, plot_w);
    y_axis(out, fr, ay, "Share of runtime [%]");
    x_axis(out, fr, nice_axis(lo, hi, 10), lo, hi, "Node power [W]", false);
    const double bw = f.share.empty() ? 0 : (hi - lo) / static_cast<double>(f.share.size());
    out += "<g class=\"bins\">";
    for (std::size_t i = 0; i < f.share.size(); ++i) {
        const double s = std::isfinite(f.share[i]) ? f.share[i] : 0.0;
        if (s <= 0) {
            continue;
        }
        const double a = lo + bw * static_cast<double>(i);
        const double x0 = X(a);
        const double x1 = X(a + bw);
        const double y = Y(s * 100);
        out +=
            fmt::format(R"~(<rect x="{}" y="{}" width="{}" height="{}" class="bin">)~"
                        R"~(<title>{}–{} W: {:.2f} % of the time</title></rect>)~",
                        num(x0 + 0.5), num(y), num(std::max(x1 - x0 - 1, 0.8)),
                        num(fr.bottom() - y), plain_number(a, 4), plain_number(a + bw, 4), s * 100);
    }
    out += "</g>";
    for (const auto& l : f.lines) {
        if (!std::isfinite(l.x) || l.x < lo || l.x > hi) {
            continue;
        }
        const double x = X(l.x);
        out += fmt::format(R"~(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="{3}" )~"
                           R"~(stroke-width="{4}"{5}><title>{6}</title></line>)~",
                           num(x), num(fr.top), num(fr.bottom()), l.color, num(l.width),
                           l.dashed ? R"~( stroke-dasharray="6 3")~" : "", escape(l.name));
    }
    out += "</svg>";
    return out;
}

} // namespace jp::report::html
