#include "report/html_svg.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <iterator>
#include <utility>

namespace jp::report::html {
namespace {

constexpr std::string_view k_replacement = "\xEF\xBF\xBD"; // U+FFFD

// Length of the valid UTF-8 sequence starting at s[i], or 0.
std::size_t utf8_length(std::string_view s, std::size_t i) {
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

struct Frame {
    double left = 0;
    double top = 0;
    double width = 0;
    double height = 0;
    [[nodiscard]] double right() const { return left + width; }
    [[nodiscard]] double bottom() const { return top + height; }
};

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

std::string svg_open(
    const std::string& id, std::string_view cls, double w, double h, std::string_view extra = {}) {
    return fmt::format(R"~(<svg id="{}" class="{}" viewBox="0 0 {} {}" width="{}" height="{}" )~"
                       R"~(role="img"{}>)~",
                       id, cls, num(w), num(h), num(w), num(h), extra);
}

} // namespace

int significant_decimals(double v) {
    const double a = std::abs(v);
    return a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
}

std::string fit_text(const std::string& s, double font_px, double width) {
    if (text_width(s, font_px) <= width) {
        return s;
    }
    std::string cut = s;
    while (!cut.empty() && text_width(cut + "…", font_px) > width) {
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
                out += k_replacement;
                break;
            }
            const std::size_t n = utf8_length(s, i);
            if (n == 0) {
                out += k_replacement;
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

// --- decimation ---

MinMaxDecimator::MinMaxDecimator(double x0, double x1, int columns)
    : m_x0(x0), m_columns(std::max(columns, 1)) {
    m_scale = x1 > x0 ? static_cast<double>(m_columns) / (x1 - x0) : 0.0;
}

void MinMaxDecimator::add(double x, double y) {
    if (!std::isfinite(x) || !std::isfinite(y)) {
        return;
    }
    const double c = (x - m_x0) * m_scale;
    long column = 0;
    if (c >= static_cast<double>(m_columns)) {
        column = m_columns - 1;
    } else if (c > 0) {
        column = static_cast<long>(c);
    }
    column = std::max(column, m_column);
    if (column != m_column) {
        flush();
        m_column = column;
        m_min = m_max = {x, y};
        m_min_first = true;
        return;
    }
    if (y < m_min.y) {
        m_min = {x, y};
        m_min_first = false; // the newest point is the minimum: the maximum came first
    } else if (y > m_max.y) {
        m_max = {x, y};
        m_min_first = true;
    }
}

void MinMaxDecimator::flush() {
    if (m_column < 0) {
        return;
    }
    const bool one = m_min.x == m_max.x && m_min.y == m_max.y;
    if (one) {
        m_out.push_back(m_min);
    } else if (m_min_first) {
        m_out.push_back(m_min);
        m_out.push_back(m_max);
    } else {
        m_out.push_back(m_max);
        m_out.push_back(m_min);
    }
}

std::vector<Point> MinMaxDecimator::finish() {
    flush();
    m_column = -1;
    return std::exchange(m_out, {});
}

std::vector<Point>
decimate_min_max(std::span<const Point> points, double x0, double x1, int columns) {
    MinMaxDecimator d{x0, x1, columns};
    for (const auto& p : points) {
        d.add(p.x, p.y);
    }
    return d.finish();
}

// --- axes and colours ---

std::vector<double> Axis::ticks() const {
    std::vector<double> out;
    if (!(step > 0) || !(hi > lo)) {
        return out;
    }
    const auto n = static_cast<long>(std::floor((hi - lo) / step + 1e-9));
    for (long i = 0; i <= n && i < 1000; ++i) {
        out.push_back(lo + static_cast<double>(i) * step);
    }
    return out;
}

std::string Axis::label(double v) const {
    int decimals = 0;
    while (decimals < 6) {
        const double scaled = step * std::pow(10.0, decimals);
        if (std::abs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled)) {
            break;
        }
        ++decimals;
    }
    if (std::abs(v) < step * 1e-9) {
        v = 0; // no "-0"
    }
    return fmt::format("{:.{}f}", v, decimals);
}

Axis nice_axis(double lo, double hi, int target_ticks) {
    if (!std::isfinite(lo) || !std::isfinite(hi)) {
        return {};
    }
    if (hi <= lo) {
        hi = lo + (lo == 0 ? 1.0 : std::abs(lo) * 0.1);
    }
    const double raw = (hi - lo) / std::max(target_ticks, 1);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double step = mag * 10;
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        if (m * mag >= raw * (1 - 1e-9)) {
            step = m * mag;
            break;
        }
    }
    Axis a;
    a.step = step;
    a.lo = std::floor(lo / step + 1e-9) * step;
    a.hi = std::ceil(hi / step - 1e-9) * step;
    if (a.hi <= a.lo) {
        a.hi = a.lo + step;
    }
    return a;
}

std::string part_color(std::size_t i) {
    // Tableau 10, then darker companions for nodes with many parts.
    static constexpr std::array<std::string_view, 16> palette{
        "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948", "#9c755f",
        "#ff9da7", "#2f4b7c", "#a05195", "#3d8c40", "#c44e00", "#665191", "#008b8b", "#8c6d1f"};
    return std::string{palette[i % palette.size()]};
}

// --- power over fractional runtime ---

std::string profile_svg(const ProfileFigure& f) {
    constexpr double ml = 70;
    constexpr double mr = 18;
    const double plot_w = f.plot_width;
    const double width = ml + plot_w + mr;

    std::vector<LegendEntry> entries;
    for (const auto& l : f.lines) {
        entries.push_back({l.note.empty() ? l.name : l.name + " (" + l.note + ")", l.color, false,
                           l.dashed, true});
    }
    const double legend_h = legend_height(entries, plot_w);

    // Phase names sit in lanes above the plot, each over a bar the width of its phase.
    constexpr double lane_h = 16;
    constexpr int max_lanes = 3;
    struct Label {
        std::size_t phase;
        int lane;
    };
    std::vector<Label> labels;
    std::array<double, max_lanes> lane_end{};
    lane_end.fill(-1e9);
    int lanes_used = 0;
    for (std::size_t i = 0; i < f.phases.size(); ++i) {
        const auto& p = f.phases[i];
        const double x0 = ml + std::clamp(p.x0, 0.0, 1.0) * plot_w;
        const double tw = text_width(p.name, 11);
        if (x0 + tw > ml + plot_w + mr) {
            continue; // no room before the figure's edge: the band's tooltip names it
        }
        for (int lane = 0; lane < max_lanes; ++lane) {
            if (lane_end[static_cast<std::size_t>(lane)] <= x0) {
                const double x1 = ml + std::clamp(p.x1, 0.0, 1.0) * plot_w;
                lane_end[static_cast<std::size_t>(lane)] = std::max(x0 + tw + 8, x1);
                labels.push_back({i, lane});
                lanes_used = std::max(lanes_used, lane + 1);
                break;
            }
        }
    }
    const double strip_h = f.phases.empty() ? 0 : lane_h * std::max(lanes_used, 1) + 4;
    const Frame fr{ml, 8 + legend_h + 6 + strip_h, plot_w, static_cast<double>(f.plot_height)};
    const double height = fr.bottom() + 46;

    double ymax = 0;
    for (const auto& l : f.lines) {
        for (const auto& p : l.points) {
            ymax = std::max(ymax, p.y);
        }
    }
    const Axis ay = nice_axis(0, ymax > 0 ? ymax * 1.04 : 1, 6);
    const auto X = [&](double x) { return fr.left + x * fr.width; };
    const auto Y = [&](double y) {
        return fr.bottom() - (y - ay.lo) / (ay.hi - ay.lo) * fr.height;
    };

    std::string out = svg_open(
        f.id, "jp-profile", width, height,
        fmt::format(R"~( data-left="{}" data-width="{}" data-top="{}" data-bottom="{}" )~"
                    R"~(data-runtime="{:.3f}" aria-label="power over fractional runtime")~",
                    num(fr.left), num(fr.width), num(fr.top), num(fr.bottom()),
                    std::isfinite(f.runtime_s) ? f.runtime_s : 0.0));
    out += fmt::format(R"~(<defs><clipPath id="{}-clip"><rect x="{}" y="{}" width="{}" )~"
                       R"~(height="{}"/></clipPath></defs>)~",
                       f.id, num(fr.left), num(fr.top - 1), num(fr.width), num(fr.height + 2));
    legend(out, entries, f.id, fr.left, 8, plot_w);

    // Phases: shaded bands in the plot, named in lanes above it.
    out += "<g class=\"phases\">";
    for (const auto& p : f.phases) {
        const double x0 = X(std::clamp(p.x0, 0.0, 1.0));
        const double x1 = X(std::clamp(p.x1, 0.0, 1.0));
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
        const double x0 = X(std::clamp(p.x0, 0.0, 1.0));
        const double x1 = X(std::clamp(p.x1, 0.0, 1.0));
        const double ly = fr.top - strip_h + 2 + lane_h * lb.lane;
        out += fmt::format(R"~(<rect x="{}" y="{}" width="{}" height="3" fill="{}"/>)~", num(x0),
                           num(ly + 12), num(std::max(x1 - x0, 1.0)), p.color);
        out += fmt::format(R"~(<text x="{}" y="{}" class="phase-name">{}<title>{}</title></text>)~",
                           num(x0 + 1), num(ly + 10), escape(p.name), escape(p.title));
    }
    out += "</g>";

    y_axis(out, fr, ay, "Power [W]");
    Axis ax{0, 1, 0.1};
    for (double t : ax.ticks()) {
        const double x = X(t);
        out += fmt::format(R"~(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" class="grid-v"/>)~",
                           num(x), num(fr.top), num(fr.bottom()));
        out += fmt::format(R"~(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" class="axis"/>)~", num(x),
                           num(fr.bottom()), num(fr.bottom() + 4));
        out += fmt::format(R"~(<text x="{}" y="{}" class="tick" text-anchor="middle">{}</text>)~",
                           num(x), num(fr.bottom() + 17), ax.label(t));
    }
    out += fmt::format(R"~(<text x="{}" y="{}" class="axis-title" text-anchor="middle">)~"
                       R"~(Fraction of runtime</text>)~",
                       num(fr.left + fr.width / 2), num(fr.bottom() + 36));

    out += fmt::format(R"~(<g clip-path="url(#{}-clip)">)~", f.id);
    double free_from = -1e9; // names of close point markers would overlap: tooltips only
    for (const auto& m : f.points) {
        const double x = X(std::clamp(m.x, 0.0, 1.0));
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
    // Parts first, the node (thick) last so it stays on top.
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
    for (const SeriesLine* l : order) {
        if (l->points.empty()) {
            continue;
        }
        std::string pts;
        pts.reserve(l->points.size() * 14);
        for (const auto& p : l->points) {
            fmt::format_to(std::back_inserter(pts), "{:.1f},{:.1f} ", X(p.x), Y(p.y));
        }
        pts.pop_back();
        out +=
            fmt::format(R"~(<polyline class="series" fill="none" stroke="{}" stroke-width="{}" )~"
                        R"~(stroke-linejoin="round"{} points="{}"><title>{}</title></polyline>)~",
                        l->color, l->thick ? "2" : "1.4",
                        l->dashed ? R"~( stroke-dasharray="5 3")~" : "", pts, escape(l->name));
    }
    out += "</g>";
    out += fmt::format(R"~(<g class="jp-cursor" visibility="hidden"><line x1="0" y1="{0}" )~"
                       R"~(x2="0" y2="{1}"/><text x="0" y="{2}"></text></g>)~",
                       num(fr.top), num(fr.bottom()), num(fr.top + 12));
    out += "</svg>";
    return out;
}

// --- stacked energy bars ---

std::string stacked_bars_svg(const BarsFigure& f) {
    constexpr double ml = 70;
    constexpr double mr = 18;
    const double plot_w = f.width - ml - mr;
    const double legend_h = legend_height(f.legend, plot_w);
    const Frame fr{ml, 8 + legend_h + 16, plot_w, static_cast<double>(f.plot_height)};

    double ymax = 0;
    std::size_t groups = 0;
    for (std::size_t i = 0; i < f.bars.size(); ++i) {
        double sum = 0;
        for (const auto& s : f.bars[i].segments) {
            sum += std::isfinite(s.value) ? std::max(s.value, 0.0) : 0.0;
        }
        ymax = std::max({ymax, sum, std::isfinite(f.bars[i].total) ? f.bars[i].total : 0.0});
        if (i == 0 || f.bars[i].group != f.bars[i - 1].group) {
            ++groups;
        }
    }
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
        double acc = 0;
        out += "<g class=\"bar\">";
        for (const auto& s : b.segments) {
            if (!std::isfinite(s.value) || s.value <= 0) {
                continue;
            }
            const double y0 = Y(acc);
            const double y1 = Y(acc + s.value);
            out += fmt::format(R"~(<rect x="{}" y="{}" width="{}" height="{}" fill="{}">)~"
                               R"~(<title>{}</title></rect>)~",
                               num(cx - bar_w / 2), num(y1), num(bar_w), num(y0 - y1), s.color,
                               escape(s.title));
            if (s.hatched) {
                out += fmt::format(R"~(<rect x="{}" y="{}" width="{}" height="{}" )~"
                                   R"~(fill="url(#{}-hatch)"><title>{}</title></rect>)~",
                                   num(cx - bar_w / 2), num(y1), num(bar_w), num(y0 - y1), f.id,
                                   escape(s.title));
            }
            acc += s.value;
        }
        const double top = std::max(acc, std::isfinite(b.total) ? b.total : 0.0);
        const bool at_least = b.total_note.find("lower bound") != std::string::npos;
        const bool est = b.total_note.find("estimated") != std::string::npos;
        out += fmt::format(R"~(<text x="{}" y="{}" class="bar-total" text-anchor="middle">)~"
                           R"~({}{:.{}f}{}</text>)~",
                           num(cx), num(Y(top) - 5), at_least ? "≥" : "", b.total,
                           significant_decimals(b.total), est ? "*" : "");
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

// --- power distribution ---

std::string histogram_svg(const HistogramFigure& f) {
    constexpr double ml = 70;
    constexpr double mr = 18;
    const double plot_w = f.plot_width;
    std::vector<LegendEntry> entries;
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
    const Axis ay = nice_axis(0, smax > 0 ? smax * 100 * 1.08 : 1, 5);
    const auto X = [&](double w) { return fr.left + (w - lo) / (hi - lo) * fr.width; };
    const auto Y = [&](double pct) {
        return fr.bottom() - (pct - ay.lo) / (ay.hi - ay.lo) * fr.height;
    };

    std::string out =
        svg_open(f.id, "jp-hist", width, height, R"~( aria-label="distribution of node power")~");
    legend(out, entries, f.id, fr.left, 8, plot_w);
    y_axis(out, fr, ay, "Share of runtime [%]");
    const Axis ax = nice_axis(lo, hi, 10);
    for (double t : ax.ticks()) {
        if (t < lo - 1e-9 || t > hi + 1e-9) {
            continue;
        }
        const double x = X(t);
        out += fmt::format(R"~(<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" class="axis"/>)~", num(x),
                           num(fr.bottom()), num(fr.bottom() + 4));
        out += fmt::format(R"~(<text x="{}" y="{}" class="tick" text-anchor="middle">{}</text>)~",
                           num(x), num(fr.bottom() + 17), ax.label(t));
    }
    out += fmt::format(R"~(<text x="{}" y="{}" class="axis-title" text-anchor="middle">)~"
                       R"~(Node power [W]</text>)~",
                       num(fr.left + fr.width / 2), num(fr.bottom() + 36));
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
        out += fmt::format(R"~(<rect x="{}" y="{}" width="{}" height="{}" class="bin">)~"
                           R"~(<title>{:.0f}–{:.0f} W: {:.2f} % of the time</title></rect>)~",
                           num(x0 + 0.5), num(y), num(std::max(x1 - x0 - 1, 0.8)),
                           num(fr.bottom() - y), a, a + bw, s * 100);
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
