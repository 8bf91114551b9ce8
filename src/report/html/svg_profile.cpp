// SPDX-License-Identifier: BSD-3-Clause
#include "report/html/svg.hpp"
#include "report/html/svg_detail.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <iterator>
#include <map>
#include <ranges>
#include <string>
#include <utility>

namespace jp::report::html {

using namespace detail;

// --- power over a run's time ---

namespace {

constexpr double k_lane_h = 16;
constexpr int k_max_lanes = 3;

// Fraction of runtime and watts to the plot's pixels.
struct Scale {
    Frame fr;
    Axis ay;
    [[nodiscard]] double x(double fraction) const { return fr.left + fraction * fr.width; }
    [[nodiscard]] double y(double watts) const {
        return fr.bottom() - (watts - ay.lo) / (ay.hi - ay.lo) * fr.height;
    }
};

// Items of one name that `joins` the last kept one of that name (closer than a
// pixel) are folded into it (`fold`); each kept item is named with its count
// ("step ×15000"). Thousands of training steps draw as one band, not a 4 MB page.
template <class T, class Joins, class Fold>
std::pair<std::vector<T>, std::vector<std::size_t>>
merged_by_name(const std::vector<T>& in, Joins joins, Fold fold) {
    std::vector<T> out;
    std::vector<std::size_t> count;
    std::map<std::string, std::size_t> last; // name -> its item in out
    for (const auto& item : in) {
        const auto it = last.find(item.name);
        if (it != last.end() && joins(out[it->second], item)) {
            fold(out[it->second], item);
            ++count[it->second];
            continue;
        }
        last[item.name] = out.size();
        out.push_back(item);
        count.push_back(1);
    }
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (count[i] > 1) {
            out[i].name += fmt::format(" ×{}", count[i]);
        }
    }
    return {out, count};
}

std::vector<PhaseBand> merged_bands(const std::vector<PhaseBand>& in, double plot_w) {
    auto [out, count] = merged_by_name(
        in, [&](const PhaseBand& b, const PhaseBand& p) { return (p.x0 - b.x1) * plot_w < 1.0; },
        [](PhaseBand& b, const PhaseBand& p) { b.x1 = std::max(b.x1, p.x1); });
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (count[i] > 1) {
            out[i].title = out[i].name + ": occurrences closer together than a pixel, drawn as "
                                         "one band (the tables give each name's totals)";
        }
    }
    return out;
}

std::vector<PointMark> merged_points(const std::vector<PointMark>& in, double plot_w) {
    return merged_by_name(
               in,
               [&](const PointMark& last, const PointMark& m) {
                   return std::fabs(m.x - last.x) * plot_w < 1.0;
               },
               [](PointMark&, const PointMark&) {})
        .first;
}

// The time axis in the unit that fits the run: s, min beyond 10 min, h beyond 3 h.
std::pair<double, const char*> time_unit(double runtime_s) {
    if (runtime_s > 3 * 3600.0) {
        return {3600.0, "h"};
    }
    if (runtime_s > 600.0) {
        return {60.0, "min"};
    }
    return {1.0, "s"};
}

// A phase name and the lane above the plot it sits in.
struct Label {
    std::size_t phase;
    int lane;
};

// Phase names in lanes above the plot, each over a bar the width of its phase;
// names with no room before the figure's edge are left to the band's tooltip.
std::pair<std::vector<Label>, int>
phase_lanes(const ProfileFigure& f, double left, double plot_w, double right_margin) {
    std::vector<Label> labels;
    std::array<double, k_max_lanes> lane_end{};
    lane_end.fill(-1e9);
    int lanes_used = 0;
    for (std::size_t i = 0; i < f.phases.size(); ++i) {
        const auto& p = f.phases[i];
        const double x0 = left + std::clamp(p.x0, 0.0, 1.0) * plot_w;
        const double tw = text_width(p.name, 11);
        if (x0 + tw > left + plot_w + right_margin) {
            continue;
        }
        for (int lane = 0; lane < k_max_lanes; ++lane) {
            if (lane_end[static_cast<std::size_t>(lane)] <= x0) {
                const double x1 = left + std::clamp(p.x1, 0.0, 1.0) * plot_w;
                lane_end[static_cast<std::size_t>(lane)] = std::max(x0 + tw + 8, x1);
                labels.push_back({i, lane});
                lanes_used = std::max(lanes_used, lane + 1);
                break;
            }
        }
    }
    return {labels, lanes_used};
}

// Phases: shaded bands in the plot, named in lanes above it.
std::string phases_svg(const ProfileFigure& f,
                       const std::vector<Label>& labels,
                       const Scale& sc,
                       double strip_h) {
    const auto& fr = sc.fr;
    std::string out = "<g class=\"phases\">";
    for (const auto& p : f.phases) {
        const double x0 = sc.x(std::clamp(p.x0, 0.0, 1.0));
        const double x1 = sc.x(std::clamp(p.x1, 0.0, 1.0));
        out += fmt::format(R"~(<rect x="{}" y="{}" width="{}" height="{}" fill="{}" )~"
                           R"~(fill-opacity="0.13"><title>{}</title></rect>)~",
                           num(x0), num(fr.top), num(std::max(x1 - x0, 1.0)), num(fr.height),
                           p.color, escape(p.title));
        out += fmt::format(R"~(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="{3}" )~"
                           R"~(stroke-opacity="0.55"/>)~",
                           num(x0), num(fr.top), num(fr.bottom()), p.color);
    }
    for (const auto& lb : labels) {
        const auto& p = f.phases[lb.phase];
        const double x0 = sc.x(std::clamp(p.x0, 0.0, 1.0));
        const double x1 = sc.x(std::clamp(p.x1, 0.0, 1.0));
        const double ly = fr.top - strip_h + 2 + k_lane_h * lb.lane;
        out += fmt::format(R"~(<rect x="{}" y="{}" width="{}" height="3" fill="{}"/>)~", num(x0),
                           num(ly + 12), num(std::max(x1 - x0, 1.0)), p.color);
        out += fmt::format(R"~(<text x="{}" y="{}" class="phase-name">{}<title>{}</title></text>)~",
                           num(x0 + 1), num(ly + 10), escape(p.name), escape(p.title));
    }
    return out + "</g>";
}

// Point markers as vertical lines; names of close ones would overlap: tooltips only.
std::string point_markers_svg(const ProfileFigure& f, const Scale& sc) {
    const auto& fr = sc.fr;
    std::string out;
    double free_from = -1e9;
    for (const auto& m : f.points) {
        const double x = sc.x(std::clamp(m.x, 0.0, 1.0));
        out += fmt::format(R"~(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" class="mark">)~"
                           R"~(<title>{3}</title></line>)~",
                           num(x), num(fr.top), num(fr.bottom()), escape(m.name));
        const double tw = text_width(m.name, 10);
        if (x >= free_from && x + 3 + tw <= fr.right()) {
            out += fmt::format(R"~(<text x="{}" y="{}" class="mark-name">{}</text>)~", num(x + 3),
                               num(fr.top + 11), escape(m.name));
            free_from = x + tw + 8;
        }
    }
    return out;
}

// The series: parts first, the node (thick) last so it stays on top.
std::string series_svg(const ProfileFigure& f, const Scale& sc) {
    std::vector<const SeriesLine*> order;
    for (const auto& l : f.lines) {
        if (!l.thick) {
            order.push_back(&l);
        }
    }
    for (const auto& l : f.lines) {
        if (l.thick) {
            order.push_back(&l);
        }
    }
    std::string out;
    for (const SeriesLine* l : order) {
        if (l->points.empty()) {
            continue;
        }
        std::string pts;
        pts.reserve(l->points.size() * 14);
        if (l->points.size() == 1) { // one window (a run shorter than two): its mean, end to end
            const double y = sc.y(l->points.front().y);
            fmt::format_to(std::back_inserter(pts), "{:.1f},{:.1f} {:.1f},{:.1f} ", sc.x(0), y,
                           sc.x(1), y);
        }
        for (const auto& p : l->points) {
            if (l->points.size() == 1) {
                break;
            }
            fmt::format_to(std::back_inserter(pts), "{:.1f},{:.1f} ", sc.x(p.x), sc.y(p.y));
        }
        pts.pop_back();
        out +=
            fmt::format(R"~(<polyline class="series" fill="none" stroke="{}" stroke-width="{}" )~"
                        R"~(stroke-linejoin="round"{} points="{}"><title>{}</title></polyline>)~",
                        l->color, l->thick ? "2" : "1.4",
                        l->dashed ? R"~( stroke-dasharray="5 3")~" : "", pts, escape(l->name));
    }
    return out;
}

// The node's bound, window by window, as one shaded polygon (values far off the scale are
// held just past it: the plot's clip cuts them).
std::string band_svg(const ProfileFigure& f, const Scale& sc) {
    if (f.band.empty()) {
        return {};
    }
    const double top = sc.ay.hi + (sc.ay.hi - sc.ay.lo);
    const auto y = [&](double w) { return sc.y(std::clamp(w, sc.ay.lo, top)); };
    std::string pts;
    const auto add = [&](double x, double w) {
        fmt::format_to(std::back_inserter(pts), "{:.1f},{:.1f} ", sc.x(x), y(w));
    };
    if (f.band.size() == 1) {
        add(0, f.band.front().hi);
        add(1, f.band.front().hi);
        add(1, f.band.front().lo);
        add(0, f.band.front().lo);
    } else {
        for (const auto& b : f.band) {
            add(b.x, b.hi);
        }
        for (const auto& b : std::views::reverse(f.band)) {
            add(b.x, b.lo);
        }
    }
    pts.pop_back();
    return fmt::format(
        R"~(<polygon class="bound-band" fill="#30363d" fill-opacity="0.12" points="{}"><title>the sensors' bound )~"
        R"~(on the node's power</title></polygon>)~",
        pts);
}

} // namespace

std::string profile_svg(const ProfileFigure& figure) {
    constexpr double ml = 70;
    constexpr double mr = 18;
    const double plot_w = figure.plot_width;
    ProfileFigure f = figure;
    f.phases = merged_bands(figure.phases, plot_w);
    f.points = merged_points(figure.points, plot_w);
    const double width = ml + plot_w + mr;

    std::vector<LegendEntry> entries;
    entries.reserve(f.lines.size());
    for (const auto& l : f.lines) {
        entries.push_back({l.note.empty() ? l.name : l.name + " (" + l.note + ")", l.color, false,
                           l.dashed, true});
    }
    const double legend_h = legend_height(entries, plot_w);
    const auto [labels, lanes_used] = phase_lanes(f, ml, plot_w, mr);
    const double strip_h = f.phases.empty() ? 0 : k_lane_h * std::max(lanes_used, 1) + 4;
    const Frame fr{ml, 8 + legend_h + 6 + strip_h, plot_w, static_cast<double>(f.plot_height)};
    const double height = fr.bottom() + 46;

    double ymax = 0;
    for (const auto& l : f.lines) {
        for (const auto& p : l.points) {
            ymax = std::max(ymax, p.y);
        }
    }
    const Scale sc{fr, nice_axis(0, ymax > 0 ? ymax * 1.04 : 1, 6)};

    std::string out =
        svg_open(f.id, "jp-profile", width, height,
                 fmt::format(R"~( data-left="{}" data-width="{}" data-top="{}" data-bottom="{}" )~"
                             R"~(data-runtime="{:.3f}" aria-label="power over the run's time")~",
                             num(fr.left), num(fr.width), num(fr.top), num(fr.bottom()),
                             std::isfinite(f.runtime_s) ? f.runtime_s : 0.0));
    out += fmt::format(R"~(<defs><clipPath id="{}-clip"><rect x="{}" y="{}" width="{}" )~"
                       R"~(height="{}"/></clipPath></defs>)~",
                       f.id, num(fr.left), num(fr.top - 1), num(fr.width), num(fr.height + 2));
    legend(out, entries, f.id, fr.left, 8, plot_w);
    out += phases_svg(f, labels, sc, strip_h);
    y_axis(out, fr, sc.ay, "Power [W]");
    // Time since the run began, in its unit; x() maps the fraction of the runtime.
    const double runtime = std::isfinite(f.runtime_s) && f.runtime_s > 0 ? f.runtime_s : 1.0;
    const auto [unit_s, unit] = time_unit(runtime);
    x_axis(out, fr, nice_axis(0, runtime / unit_s, 10), 0, runtime / unit_s,
           fmt::format("Time since the run began [{}]", unit), true); // with a vertical grid
    out += fmt::format(R"~(<g clip-path="url(#{}-clip)">)~", f.id);
    out += band_svg(f, sc);
    out += point_markers_svg(f, sc);
    out += series_svg(f, sc);
    out += "</g>";
    out += fmt::format(R"~(<g class="jp-cursor" visibility="hidden"><line x1="0" y1="{0}" )~"
                       R"~(x2="0" y2="{1}"/><text x="0" y="{2}"></text></g>)~",
                       num(fr.top), num(fr.bottom()), num(fr.top + 12));
    out += "</svg>";
    return out;
}

} // namespace jp::report::html
