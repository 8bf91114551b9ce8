#include "report/summary.hpp"

#include <map>

namespace jp::report {
namespace {

void add_item_stats(RepeatSummary& r) {
    std::vector<std::string> names;
    for (const auto& p : r.runs.front().parts) {
        names.push_back(p.name);
    }
    if (r.runs.front().rest) {
        names.emplace_back("rest");
    }
    for (const auto& name : names) {
        std::vector<double> e;
        std::vector<double> w;
        for (const auto& run : r.runs) {
            const Item* found = run.rest && name == "rest" ? &*run.rest : nullptr;
            for (const auto& p : run.parts) {
                if (p.name == name) {
                    found = &p;
                }
            }
            if (found != nullptr) {
                e.push_back(found->energy_j);
                w.push_back(found->avg_w);
            }
        }
        r.part_energy_j.emplace_back(name, stat_of(e));
        r.part_avg_w.emplace_back(name, stat_of(w));
    }
}

RepeatSummary
aggregate(std::string label, std::vector<RunSummary> runs, std::optional<double> idle_w) {
    RepeatSummary r;
    r.label = std::move(label);
    r.runs = std::move(runs);
    std::vector<double> rt, e, w, pk, dyn;
    for (const auto& run : r.runs) {
        rt.push_back(run.runtime_s);
        e.push_back(run.node.energy_j);
        w.push_back(run.node.avg_w);
        if (run.node.peak_w) {
            pk.push_back(*run.node.peak_w);
        }
        if (idle_w) {
            dyn.push_back(run.node.energy_j - *idle_w * run.runtime_s);
        }
        r.monitor_cpu_s += run.run.monitor_cpu_s;
    }
    r.runtime_s = stat_of(rt);
    r.node_energy_j = stat_of(e);
    r.node_avg_w = stat_of(w);
    r.node_peak_w = stat_of(pk);
    r.idle_w = idle_w;
    if (idle_w) {
        r.dynamic_energy_j = stat_of(dyn);
    }
    add_item_stats(r);
    return r;
}

} // namespace

Result<std::vector<RepeatSummary>> summarize_trace(trace::Reader& reader) {
    std::optional<double> idle_w;
    std::vector<std::string> order;
    std::map<std::string, std::vector<RunSummary>> by_label;
    for (const auto& run : reader.runs()) {
        if (run.kind == "warmup") {
            continue;
        }
        auto s = summarize_run(reader, run);
        if (!s) {
            return std::unexpected(s.error());
        }
        if (run.kind == "baseline") {
            idle_w = s->node.avg_w;
            continue;
        }
        if (!by_label.contains(run.label)) {
            order.push_back(run.label);
        }
        by_label[run.label].push_back(std::move(*s));
    }
    std::vector<RepeatSummary> out;
    for (const auto& label : order) {
        out.push_back(aggregate(label, std::move(by_label[label]), idle_w));
    }
    return out;
}

} // namespace jp::report
