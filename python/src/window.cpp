// SPDX-License-Identifier: BSD-3-Clause
#include "window.hpp"

#include "bindings.hpp"

namespace jp::python {
namespace {

bool within(std::int64_t b, std::int64_t e, std::int64_t t0, std::int64_t t1) {
    return b >= t0 && e <= t1;
}

// [t0, t1] of a run as a run of its own: a measurement nested in another.
report::RunSummary window_of(trace::Reader& reader,
                             const report::RunSummary& whole,
                             const std::string& label,
                             std::int64_t t0,
                             std::int64_t t1) {
    auto figures = value_or_raise(report::summarize_window(reader, whole.run, t0, t1));
    report::RunSummary s;
    static_cast<report::Figures&>(s) = std::move(figures);
    s.run = whole.run;
    s.run.label = label;
    s.run.start_ns = t0;
    s.run.end_ns = t1;
    s.run.monitor_cpu_s = 0;
    s.trace = whole.trace;
    s.node_basis = whole.node_basis;
    for (const auto& p : whole.phases) {
        if (within(p.begin_ns, p.end_ns, t0, t1) && !(p.begin_ns == t0 && p.end_ns == t1)) {
            s.phases.push_back(p);
        }
    }
    for (const auto& p : whole.phase_totals) {
        if (within(p.begin_ns, p.end_ns, t0, t1) && !(p.begin_ns == t0 && p.end_ns == t1)) {
            s.phase_totals.push_back(p);
        }
    }
    for (const auto& m : whole.points) {
        if (within(m.t_ns, m.t_ns, t0, t1)) {
            s.points.push_back(m);
        }
    }
    return s;
}

} // namespace

report::RunSummary window_summary(trace::Reader& reader,
                                  std::int64_t run_id,
                                  const std::string& label,
                                  std::int64_t t0,
                                  std::int64_t t1,
                                  const std::string& status) {
    for (const auto& run : reader.runs()) {
        if (run.id == run_id) {
            auto whole = value_or_raise(report::summarize_run(reader, run));
            auto s = window_of(reader, whole, label, t0, t1);
            s.run.status = status;
            s.run.exit_code = status == "complete" ? 0 : 1;
            return s;
        }
    }
    throw TraceFailure(reader.path().string() + ": no run " + std::to_string(run_id));
}

} // namespace jp::python
