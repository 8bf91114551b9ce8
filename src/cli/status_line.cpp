// SPDX-License-Identifier: BSD-3-Clause
#include "cli/status_line.hpp"

#include <cstdio>
#include <fmt/format.h>

namespace jp::cli {

void StatusLine::update(double elapsed_s, const LiveFigures& live, bool estimated) {
    if (!m_enabled) {
        return;
    }
    const auto line = fmt::format("\r\033[K[jouleprof] {:.1f} s  {:.1f} W  {:.1f} J{}", elapsed_s,
                                  live.watts, live.joules, estimated ? "  (estimated)" : "");
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
    m_shown = true;
}

void StatusLine::clear() {
    if (m_shown) {
        std::fputs("\r\033[K", stderr);
        std::fflush(stderr);
        m_shown = false;
    }
}

} // namespace jp::cli
