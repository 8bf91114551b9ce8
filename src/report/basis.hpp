// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How a node figure was obtained beyond measured or derived: estimated by a
// model, a lower bound (the sum of its parts while the rest of the node has
// no meter and no model), both or neither; and the one way every table and
// chart marks it: "≥ 0.145 *" with a legend line per mark.
#include <string>
#include <string_view>
#include <vector>

namespace jp::report {

struct Basis {
    bool estimated = false;
    bool lower_bound = false;

    Basis& operator|=(const Basis& o) {
        estimated = estimated || o.estimated;
        lower_bound = lower_bound || o.lower_bound;
        return *this;
    }
    // "estimated", "lower bound", "estimated, lower bound" or "".
    [[nodiscard]] std::string words() const;
    // The figure with "≥" before it for a lower bound and "*" after it for an
    // estimate, `gap` between mark and figure.
    [[nodiscard]] std::string mark(std::string_view figure, std::string_view gap = " ") const;
    // One line per mark in use, saying what it means.
    [[nodiscard]] std::vector<std::string> legend() const;
};

} // namespace jp::report
