#pragma once
// Turns one run of a trace into the figures users act on: runtime, node
// energy, average and peak power, each part, the rest of the node, with the
// provenance of every figure. Also aggregates repeats as mean ± sample std.
#include "trace/reader.hpp"

#include <optional>
#include <string>
#include <vector>

namespace jp::report {

struct Item {
    std::string name;
    Domain domain = Domain::other;
    Provenance provenance = Provenance::measured;
    std::string backend;
    double energy_j = 0;
    double avg_w = 0;
    std::optional<double> peak_w;
    std::optional<double> mean_util; // GPUs: mean utilisation in %, when known
    bool counted = true;
    std::string parent;
};

struct RunSummary {
    trace::RunInfo run;
    double runtime_s = 0;
    bool complete = true; // false when the monitor stopped before the end edge
    Item node;
    std::optional<Item> rest;
    std::vector<Item> parts;  // counted parts that add up to the node
    std::vector<Item> others; // sub-domains and duplicates, shown but not summed
    std::string node_basis;   // how the node figure was obtained, in words
    std::vector<std::string> notes;
    std::vector<trace::Event> events;
};

// Node model figures recorded in the trace's meta at measurement time.
struct NodeFacts {
    std::optional<double> rest_watts;
    std::optional<double> rated_watts;
};
[[nodiscard]] NodeFacts node_facts(const trace::Reader& reader);

[[nodiscard]] Result<RunSummary> summarize_run(trace::Reader& reader, const trace::RunInfo& run);

struct Stat {
    double mean = 0;
    double std = 0; // sample standard deviation (n-1); 0 for one value
    std::size_t n = 0;
};
[[nodiscard]] Stat stat_of(const std::vector<double>& values);

struct RepeatSummary {
    std::string label;
    std::vector<RunSummary> runs; // measured runs only
    Stat runtime_s, node_energy_j, node_avg_w, node_peak_w;
    std::vector<std::pair<std::string, Stat>> part_energy_j; // parts then rest, in order
    std::vector<std::pair<std::string, Stat>> part_avg_w;
    std::optional<double> idle_w;         // from a baseline run
    std::optional<Stat> dynamic_energy_j; // node energy − idle power × runtime
    double monitor_cpu_s = 0;             // summed over runs
};

// Summarises every run of a trace; measured runs grouped by label.
[[nodiscard]] Result<std::vector<RepeatSummary>> summarize_trace(trace::Reader& reader);

} // namespace jp::report
