// SPDX-License-Identifier: BSD-3-Clause
// The step's share of its nodes, summed: what each node's monitor attributed to
// the step (report/attribution.hpp), and the nodes' figures beside it.
#include "report/job/detail.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace jp::report::job {

void sum_shares(JobResult& job) {
    const bool any = std::ranges::any_of(
        job.nodes, [](const NodeResult& n) { return n.run.attribution.has_value(); });
    if (!any) {
        return;
    }
    ShareAcross s;
    s.share.job_bound = Bound{0, 0, "quantum", false, false, {}}; // none once a node has none
    bool same_method = true;
    for (const auto& n : job.nodes) {
        if (!n.run.attribution) {
            s.whole_j += n.run.node.energy_j;
            s.whole.push_back(n.node);
            continue;
        }
        const auto& a = *n.run.attribution;
        s.share += a.node;
        s.share.job_bound = sum_of(s.share.job_bound, a.node.job_bound);
        s.exclusive += a.exclusive ? 1U : 0U;
        if (s.attributed == 0) {
            s.method = a.method;
        } else if (a.method != s.method) {
            same_method = false;
        }
        ++s.attributed;
    }
    if (!same_method) {
        s.method.clear();
    }
    if (!s.whole.empty()) {
        s.share.job_bound.reset(); // a whole node's figure is not the step's share
        job.notes.push_back(
            fmt::format("{} node{} recorded no share ({}): {} counted whole as the step's, which "
                        "overstates it where others ran on {}",
                        s.whole.size(), s.whole.size() == 1 ? "" : "s", fmt::join(s.whole, ", "),
                        s.whole.size() == 1 ? "its figure is" : "their figures are",
                        s.whole.size() == 1 ? "it" : "them"));
    }
    job.share = std::move(s);
}

} // namespace jp::report::job
