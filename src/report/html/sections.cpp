// SPDX-License-Identifier: BSD-3-Clause
#include "report/html/sections.hpp"

#include "core/duration.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace jp::report::html {

std::string Colors::of(const std::string& name) {
    auto [it, added] = m_map.try_emplace(name, "");
    if (added) {
        it->second = part_color(m_map.size() - 1);
    }
    return it->second;
}

std::string Page::next_id(std::string_view kind) {
    return fmt::format("{}-{}", kind, ++svg_no);
}

int plot_width(const HtmlOptions& o) {
    return std::clamp(o.plot_width_px, 200, 4000);
}

std::string mean_pm(const Stat& s, double scale, int digits) {
    if (s.n > 1) {
        return fmt::format("{:.{}f} ± {:.{}f}", s.mean * scale, digits, s.std * scale, digits);
    }
    return fmt::format("{:.{}f}", s.mean * scale, digits);
}

std::string badge(Provenance p) {
    return fmt::format(R"~(<span class="prov {0}">{0}</span>)~", to_string(p));
}

std::string swatch(const std::string& color, bool hatched) {
    return fmt::format(R"~(<span class="swatch" style="background:{}{}"></span>)~", color,
                       hatched ? ";background-image:repeating-linear-gradient(45deg,transparent "
                                 "0 3px,rgba(255,255,255,.8) 3px 5px)"
                               : "");
}

std::string seconds_text(double s) {
    if (s >= 3600) {
        return format_hms(s);
    }
    if (s >= 10) {
        return fmt::format("{:.1f} s", s);
    }
    return fmt::format("{:.3f} s", s);
}

std::string step_text(std::int64_t ns) {
    if (ns >= 1'000'000'000 && ns % 1'000'000'000 == 0) {
        return fmt::format("{} s", ns / 1'000'000'000);
    }
    if (ns >= 1'000'000) {
        return fmt::format("{:g} ms", static_cast<double>(ns) * 1e-6);
    }
    return fmt::format("{:g} µs", static_cast<double>(ns) * 1e-3);
}

} // namespace jp::report::html
