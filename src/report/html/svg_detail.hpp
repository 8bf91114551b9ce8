// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the SVG figures share inside the HTML writer: text measures, number
// formatting, the plot frame, axes and legends. Not part of svg.hpp's API.
#include "report/html/svg.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace jp::report::html::detail {

// Code points in valid UTF-8 text (for width estimates).
[[nodiscard]] std::size_t code_points(std::string_view s);
// Width of a text in px, estimated for DejaVu Sans-like fonts.
[[nodiscard]] double text_width(std::string_view s, double font_px);
// A coordinate with one decimal; "0" for NaN and infinities.
[[nodiscard]] std::string num(double v);

// Appends a legend (swatches or line samples, then names) that wraps to rows
// inside [x, x + width]; returns its height.
double legend(std::string& out,
              std::span<const LegendEntry> entries,
              const std::string& id,
              double x,
              double y,
              double width);
// Height the legend above will take (same layout, nothing written).
[[nodiscard]] double legend_height(std::span<const LegendEntry> entries, double width);
// The white diagonal hatching drawn over estimated parts.
[[nodiscard]] std::string hatch_pattern(const std::string& id);

struct Frame {
    double left = 0;
    double top = 0;
    double width = 0;
    double height = 0;
    [[nodiscard]] double right() const { return left + width; }
    [[nodiscard]] double bottom() const { return top + height; }
};

// Horizontal grid, y tick labels, the y title and the two axis lines.
void y_axis(std::string& out, const Frame& fr, const Axis& ax, std::string_view title);
// Tick marks and labels of ax below the frame, for values lo..hi across its
// width (ticks outside left out), the x title, and a vertical grid line per tick if grid.
void x_axis(std::string& out,
            const Frame& fr,
            const Axis& ax,
            double lo,
            double hi,
            std::string_view title,
            bool grid);
// The figure's <svg> element with its viewBox and size.
[[nodiscard]] std::string svg_open(
    const std::string& id, std::string_view cls, double w, double h, std::string_view extra = {});

} // namespace jp::report::html::detail
