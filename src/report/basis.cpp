// SPDX-License-Identifier: BSD-3-Clause
#include "report/basis.hpp"

namespace jp::report {

std::string Basis::words() const {
    std::string s = estimated ? "estimated" : "";
    return lower_bound ? s + (s.empty() ? "" : ", ") + "lower bound" : s;
}

std::string Basis::mark(std::string_view figure, std::string_view gap) const {
    std::string s;
    if (lower_bound) {
        s.append("≥").append(gap);
    }
    s.append(figure);
    if (estimated) {
        s.append(gap).append("*");
    }
    return s;
}

std::vector<std::string> Basis::legend() const {
    std::vector<std::string> out;
    if (lower_bound) {
        out.emplace_back("≥: a lower bound: the sum of the node's parts; the rest of the node has "
                         "no meter and no model ([node] rest_watts)");
    }
    if (estimated) {
        out.emplace_back("*: estimated by a model, not measured (see `jouleprof sensors`)");
    }
    return out;
}

} // namespace jp::report
