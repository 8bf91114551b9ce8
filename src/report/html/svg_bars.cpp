// SPDX-License-Identifier: BSD-3-Clause
#include "report/html/svg.hpp"
#include "report/html/svg_detail.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <functional>

namespace jp::report::html {

using namespace detail;

// --- stacked energy bars ---

namespace {

// One bar: its segments stacked from 0 (value → y through y_of), the total on top.
std::string bar_svg(const Bar& b,
                    double cx,
                    double bar_w,
                    const std::function<double(double)>& y_of,
                    const std::string& id) {
    std::string out;
    double acc = 0;
    for (const auto& s : b.segments) {
        if (!std::isfinite(s.value) || s.value <= 0) {
            continue;
        }
        const double y0 = y_of(acc);
        const double y1 = y_of(acc + s.value);
        out += fmt::format(R"~(<rect x="{}" y="{}" width="{}" height="{}" fill="{}">)~"
                           R"~(<title>{}</title></rect>)~",
                           num(cx - bar_w / 2), num(y1), num(bar_w), num(y0 - y1), s.color,
                           escape(s.title));
        if (s.hatched) {
            out += fmt::format(R"~(<rect x="{}" y="{}" width="{}" height="{}" )~"
                               R"~(fill="url(#{}-hatch)"><title>{}</title></rect>)~",
                               num(cx - bar_w / 2), num(y1), num(bar_w), num(y0 - y1), id,
                               escape(s.title));
        }
        acc += s.value;
    }
    double top = std::max(acc, std::isfinite(b.total) ? b.total : 0.0);
    if (std::isfinite(b.total_low) && std::isfinite(b.total_high)) { // the sensors' bound
        const double lo = y_of(std::max(b.total_low, 0.0));
        const double hi = y_of(b.total_high);
        const double cap = std::min(6.0, bar_w / 4);
        out += fmt::format(
            R"~(<path class="bar-bound" stroke="#30363d" stroke-width="1.5" fill="none" )~"
            R"~(d="M{} {}V{}M{} {}H{}M{} {}H{}"><title>{}</title></path>)~",
            num(cx), num(lo), num(hi), num(cx - cap), num(lo), num(cx + cap), num(cx - cap),
            num(hi), num(cx + cap), escape(b.bound_title));
        top = std::max(top, b.total_high);
    }
    out += fmt::format(
        R"~(<text x="{}" y="{}" class="bar-total" text-anchor="middle">)~"
        R"~({}</text>)~",
        num(cx), num(y_of(top) - 5),
        b.total_basis.mark(fmt::format("{:.{}f}", b.total, significant_decimals(b.total)), ""));
    return out;
}

// The tallest bar (its segments or its total) and the number of groups.
std::pair<double, std::size_t> extent(const BarsFigure& f) {
    double ymax = 0;
    std::size_t groups = 0;
    for (std::size_t i = 0; i < f.bars.size(); ++i) {
        double sum = 0;
        for (const auto& s : f.bars[i].segments) {
            sum += std::isfinite(s.value) ? std::max(s.value, 0.0) : 0.0;
        }
        ymax = std::max({ymax, sum, std::isfinite(f.bars[i].total) ? f.bars[i].total : 0.0,
                         std::isfinite(f.bars[i].total_high) ? f.bars[i].total_high : 0.0});
        if (i == 0 || f.bars[i].group != f.bars[i - 1].group) {
            ++groups;
        }
    }
    return {ymax, groups};
}

} // namespace

std::string stacked_bars_svg(const BarsFigure& f) {
    constexpr double ml = 70;
    constexpr double mr = 18;
    const double plot_w = f.width - ml - mr;
    const double legend_h = legend_height(f.legend, plot_w);
    const Frame fr{ml, 8 + legend_h + 16, plot_w, static_cast<double>(f.plot_height)};

    const auto [ymax, groups] = extent(f);
    const Axis ay = nice_axis(0, ymax > 0 ? ymax * 1.08 : 1, 5);
    const auto Y = [&](double y) {
        return fr.bottom() - (y - ay.lo) / (ay.hi - ay.lo) * fr.height;
    };

    constexpr double group_gap = 0.8; // in slots
    const double slots = static_cast<double>(f.bars.size()) +
                         group_gap * static_cast<double>(groups > 0 ? groups - 1 : 0);
    const double slot = slots > 0 ? fr.width / std::max(slots, 4.0) : fr.width;
    const double bar_w = std::min(slot * 0.68, 64.0);
    // Group names too wide for their group alternate between two rows, so each
    // may use the room of its neighbours too; what still does not fit is cut.
    const auto group_room = [&](std::size_t first) {
        std::size_t n = 0;
        while (first + n < f.bars.size() && f.bars[first + n].group == f.bars[first].group) {
            ++n;
        }
        return (static_cast<double>(n) + group_gap) * slot;
    };
    bool stagger = false;
    for (std::size_t i = 0; i < f.bars.size(); ++i) {
        if ((i == 0 || f.bars[i].group != f.bars[i - 1].group) &&
            text_width(f.bars[i].group, 12) > group_room(i)) {
            stagger = true;
        }
    }
    const double height = fr.bottom() + (stagger ? 72 : 58);

    std::string out =
        svg_open(f.id, "jp-bars", f.width, height, R"~( aria-label="energy per run")~");
    out += "<defs>" + hatch_pattern(f.id) + "</defs>";
    legend(out, f.legend, f.id, fr.left, 8, plot_w);
    y_axis(out, fr, ay, f.y_title);
    const double used = slot * slots;
    double pos = fr.left + (fr.width - used) / 2; // centre the bars
    double group_start = pos;
    std::size_t group_index = 0;
    double room = f.bars.empty() ? 0 : group_room(0);
    for (std::size_t i = 0; i < f.bars.size(); ++i) {
        const auto& b = f.bars[i];
        if (i > 0 && b.group != f.bars[i - 1].group) {
            pos += group_gap * slot;
            group_start = pos;
            ++group_index;
            room = group_room(i);
        }
        const double cx = pos + slot / 2;
        out += "<g class=\"bar\">" + bar_svg(b, cx, bar_w, Y, f.id);
        const std::string lbl = slot >= text_width(b.label, 11) + 4
                                    ? b.label
                                    : fmt::format("{}", i + 1); // too narrow: an index
        out += fmt::format(R"~(<text x="{}" y="{}" class="tick" text-anchor="middle">{}</text>)~",
                           num(cx), num(fr.bottom() + 16), escape(lbl));
        out += "</g>";
        pos += slot;
        const bool last_of_group = i + 1 == f.bars.size() || f.bars[i + 1].group != b.group;
        if (last_of_group) {
            const double gx0 = group_start + slot * 0.1;
            const double gx1 = pos - slot * 0.1;
            out += fmt::format(R"~(<line x1="{0}" y1="{2}" x2="{1}" y2="{2}" class="axis"/>)~",
                               num(gx0), num(gx1), num(fr.bottom() + 24));
            const bool lower = stagger && group_index % 2 == 1;
            out += fmt::format(R"~(<text x="{}" y="{}" class="group" text-anchor="middle">)~"
                               R"~({}<title>{}</title></text>)~",
                               num((gx0 + gx1) / 2), num(fr.bottom() + (lower ? 54 : 40)),
                               escape(fit_text(b.group, 12, stagger ? 2 * room : room)),
                               escape(b.group));
        }
    }
    out += "</svg>";
    return out;
}

} // namespace jp::report::html
