// SPDX-License-Identifier: BSD-3-Clause
// Several traces, whole or by label (TRACE:LABEL), summarised as one set of groups.
#include "report/summary.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <iterator>

namespace jp::report {

Result<std::vector<RepeatSummary>> summarize_traces(std::span<const std::filesystem::path> traces,
                                                    const SummaryOptions& options,
                                                    bool by_trace) {
    std::vector<TraceSelection> whole;
    whole.reserve(traces.size());
    for (const auto& t : traces) {
        whole.push_back({t, std::nullopt});
    }
    return summarize_traces(whole, options, by_trace);
}

bool matches(const TraceSelection& s,
             const std::filesystem::path& trace,
             const std::string& label) {
    return s.trace == trace && (!s.label || *s.label == label);
}

Result<std::vector<RepeatSummary>> summarize_traces(std::span<const TraceSelection> selections,
                                                    const SummaryOptions& options,
                                                    bool by_trace) {
    // Each file once (named twice, or through another path): whole, or the labels asked of it.
    struct File {
        std::filesystem::path path;
        std::vector<std::string> labels; // asked for as TRACE:LABEL
        bool whole = false;
    };
    std::vector<File> files;
    for (const auto& s : selections) {
        std::error_code ec;
        auto it = std::ranges::find_if(files, [&](const File& f) {
            return f.path == s.trace || std::filesystem::equivalent(f.path, s.trace, ec);
        });
        if (it == files.end()) {
            files.push_back({s.trace, {}, false});
            it = std::prev(files.end());
        }
        if (!s.label) {
            it->whole = true;
        } else if (std::ranges::find(it->labels, *s.label) == it->labels.end()) {
            it->labels.push_back(*s.label);
        }
    }
    std::vector<RunSummary> all;
    for (const auto& f : files) {
        auto reader = trace::Reader::open(f.path);
        auto runs = reader ? measured_runs(*reader, options)
                           : Result<std::vector<RunSummary>>{std::unexpected(reader.error())};
        if (!runs) {
            auto e = runs.error();
            if (e.message().find(f.path.string()) == std::string::npos) {
                e.where = e.where.empty() ? f.path.string() : f.path.string() + ": " + e.where;
            }
            return std::unexpected(e);
        }
        for (const auto& label : f.labels) {
            if (std::ranges::find(*runs, label, [](const RunSummary& r) { return r.run.label; }) ==
                runs->end()) {
                std::vector<std::string> has;
                for (const auto& r : *runs) {
                    if (std::ranges::find(has, r.run.label) == has.end()) {
                        has.push_back(r.run.label);
                    }
                }
                return fail(ErrorKind::config, f.path.string(),
                            fmt::format("no measured runs labelled '{}'{}", label,
                                        has.empty() ? std::string{" (it holds none)"}
                                                    : fmt::format(" (its labels: {})",
                                                                  fmt::join(has, ", "))));
            }
        }
        for (auto& r : *runs) {
            if (f.whole || std::ranges::find(f.labels, r.run.label) != f.labels.end()) {
                all.push_back(std::move(r));
            }
        }
    }
    return group_runs(std::move(all), by_trace);
}

} // namespace jp::report
