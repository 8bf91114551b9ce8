// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The live status line on a terminal: elapsed, current watts, joules so far.
#include "sampler/sampler.hpp"

namespace jp::cli {

class StatusLine {
public:
    explicit StatusLine(bool enabled) : m_enabled(enabled) {}
    StatusLine(const StatusLine&) = delete;
    StatusLine& operator=(const StatusLine&) = delete;
    StatusLine(StatusLine&&) = delete;
    StatusLine& operator=(StatusLine&&) = delete;
    ~StatusLine() { clear(); }

    void update(double elapsed_s, const LiveFigures& live, bool estimated);
    void clear();

private:
    bool m_enabled;
    bool m_shown = false;
};

} // namespace jp::cli
