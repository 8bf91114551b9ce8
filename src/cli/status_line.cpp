// SPDX-License-Identifier: BSD-3-Clause
#include "cli/status_line.hpp"

#include "core/text.hpp"

#include <cstdio>
#include <fmt/format.h>
#include <string>
#include <sys/ioctl.h>
#include <unistd.h>

namespace jp::cli {

void StatusLine::update(double elapsed_s, const LiveFigures& live, bool estimated) {
    if (!m_enabled) {
        return;
    }
    const auto watts =
        elapsed_s < m_settle_s ? std::string{"… W"} : fmt::format("{:.1f} W", live.watts);
    // Labels and sweep values come from the user: escaped, and the line cut to the
    // terminal's width (a wrapped line would leave its first rows behind at each redraw).
    const auto text = fmt::format("[jouleprof] {}  {:.1f} s  {}  {:.1f} J  {}", m_what, elapsed_s,
                                  watts, live.joules, estimated ? "estimated" : "measured");
    winsize ws{};
    const std::size_t cols =
        ::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col - 1U : 200U;
    const auto line = "\r\033[K" + one_line(text, cols);
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
