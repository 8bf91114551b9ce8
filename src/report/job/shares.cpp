// SPDX-License-Identifier: BSD-3-Clause
// The step's share of its nodes, summed: what each node's monitor attributed to
// the step (report/attribution.hpp), and the nodes' figures beside it.
#include "report/job/detail.hpp"
#include "report/job/format.hpp"

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
    s.share.job_bound = Bound{0, 0, "quantum", {}, {}}; // none once a node has none
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
        s.other_jobs.emplace_back(n.node, a.other_jobs);
        if (a.other_jobs) {
            s.other_jobs_at_once = std::max(s.other_jobs_at_once, a.jobs_at_once);
        }
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

std::string other_jobs_text(const ShareAcross& s) {
    std::vector<std::string> with;
    std::vector<std::string> without;
    std::size_t known = 0;
    for (const auto& [node, n] : s.other_jobs) {
        if (!n) {
            without.push_back(node);
        } else if (++known; *n > 0) {
            with.push_back(fmt::format("{}: {}", node, *n));
        }
    }
    if (known == 0 || (with.empty() && without.empty())) {
        return {}; // no jouleprofd anywhere (nothing to say), or alone on every node
    }
    std::string out =
        with.empty()
            ? fmt::format("no other jobs on the {} node{} with a ledger", known,
                          known == 1 ? "" : "s")
            : fmt::format("other jobs on {} of {} node{} ({}{})", with.size(), known,
                          known == 1 ? "" : "s", fmt::join(with, ", "),
                          s.other_jobs_at_once > 0 ? fmt::format("; at most {} at once on one node",
                                                                 s.other_jobs_at_once)
                                                   : std::string{});
    if (!without.empty()) {
        out += fmt::format("; no ledger on {}: unknown there", fmt::join(without, ", "));
    }
    return out;
}

} // namespace jp::report::job
