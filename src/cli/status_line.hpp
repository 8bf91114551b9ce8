// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The live status line on a terminal: which run it is (study cell 7/24,
// warm-up 1/1, run 2/5), elapsed, current watts, joules so far and whether
// they are measured or estimated:
//   [jouleprof] cell 7/24 lstm/train@fast  run 2/5  12.5 s  231.4 W  2892.1 J  measured
#include "sampler/sampler.hpp"

#include <string>
#include <utility>

namespace jp::cli {

class StatusLine {
public:
    // what: the run's place ("run 2/5"); settle_s: before this much of the run
    // has passed the power is not shown (the first window's figure is an
    // artefact of where the window began).
    StatusLine(bool enabled, std::string what, double settle_s)
        : m_enabled(enabled), m_what(std::move(what)), m_settle_s(settle_s) {}
    StatusLine(const StatusLine&) = delete;
    StatusLine& operator=(const StatusLine&) = delete;
    StatusLine(StatusLine&&) = delete;
    StatusLine& operator=(StatusLine&&) = delete;
    ~StatusLine() { clear(); }

    void update(double elapsed_s, const LiveFigures& live, bool estimated);
    void clear();

private:
    bool m_enabled;
    std::string m_what;
    double m_settle_s;
    bool m_shown = false;
};

} // namespace jp::cli
