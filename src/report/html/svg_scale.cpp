// SPDX-License-Identifier: BSD-3-Clause
#include "report/html/svg.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <utility>

namespace jp::report::html {

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

} // namespace jp::report::html
