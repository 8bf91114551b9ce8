// SPDX-License-Identifier: BSD-3-Clause
// `jouleprof export TRACE --format csv|json [-o FILE]`.
//   csv, -o FILE.csv: FILE.csv (samples), FILE.markers.csv, FILE.summary.csv
//   csv, no -o: the samples on stdout
//   json: one nested document, to FILE or stdout
#include "cli/command.hpp"
#include "cli/usage_hints.hpp"
#include "core/log.hpp"
#include "report/export.hpp"
#include "sys/output.hpp"

#include <array>
#include <iostream>
#include <memory>
#include <vector>

namespace jp::cli {
namespace {

struct ExportOptions {
    std::filesystem::path trace;
    std::string format;
    std::filesystem::path output;
    bool force = false;
};

std::filesystem::path beside(const std::filesystem::path& out, const std::string& what) {
    auto p = out;
    p.replace_extension();
    return p.string() + "." + what + ".csv";
}

// The files -o names: for CSV the samples, markers and summary, in that order.
std::vector<std::filesystem::path> outputs_of(const ExportOptions& o) {
    if (o.format != "csv") {
        return {o.output};
    }
    return {o.output, beside(o.output, "markers"), beside(o.output, "summary")};
}

// The three CSV files (all three checked by run_export before any is written).
Result<void> write_csv(trace::Reader& reader, const ExportOptions& o) {
    if (o.output.empty()) {
        return report::write_samples_csv(reader, std::cout);
    }
    using Writer = Result<void> (*)(trace::Reader&, std::ostream&);
    const auto paths = outputs_of(o);
    const std::array<std::pair<std::filesystem::path, Writer>, 3> files{
        {{paths.at(0), report::write_samples_csv},
         {paths.at(1), report::write_markers_csv},
         {paths.at(2), report::write_summary_csv}}};
    const sys::OutputRules rules{{o.trace}, o.force};
    for (const auto& [path, write] : files) {
        auto r = sys::write_output(path, rules,
                                   [&, w = write](std::ostream& out) { return w(reader, out); });
        if (!r) {
            return r;
        }
    }
    return {};
}

Result<void> write_json(trace::Reader& reader, const ExportOptions& o) {
    auto j = report::trace_json(reader);
    if (!j) {
        return std::unexpected(j.error());
    }
    const auto text = j->dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    if (o.output.empty()) {
        std::cout << text << "\n";
        return {};
    }
    return sys::write_output(o.output, {{o.trace}, o.force},
                             [&](std::ostream& out) -> Result<void> {
                                 out << text << "\n";
                                 return {};
                             });
}

// Every file the export would write, checked before the trace is read: an output it may not
// write is the caller's to change (exit 2, as `run -o` and `report --json/--html`), and a
// large trace is not read for nothing.
int run_export(const ExportOptions& o) {
    if (!o.output.empty()) {
        const sys::OutputRules rules{{o.trace}, o.force};
        for (const auto& path : outputs_of(o)) {
            if (auto ok = sys::check_output(path, rules); !ok) {
                JP_LOG_ERROR("{}", ok.error().message());
                return 2;
            }
        }
    }
    auto reader = trace::Reader::open(o.trace);
    if (!reader) {
        JP_LOG_ERROR("{}", reader.error().message());
        return 1;
    }
    auto r = o.format == "csv" ? write_csv(*reader, o) : write_json(*reader, o);
    if (!r) {
        JP_LOG_ERROR("{}", r.error().message());
        return 1;
    }
    std::cout.flush();
    return 0;
}

} // namespace

void register_export(CLI::App& app, Commands& out) {
    auto o = std::make_shared<ExportOptions>();
    auto* cmd = app.add_subcommand("export", "Write a trace's samples, markers and summary as "
                                             "CSV or JSON");
    cmd->add_option("trace", o->trace, "Trace file")->required()->check(CLI::ExistingFile);
    cmd->add_option("-f,--format", o->format, "csv or json")->required();
    cmd->add_option("-o,--output", o->output,
                    "Output file (csv: also FILE.markers.csv and FILE.summary.csv beside it)")
        ->check(non_empty_path());
    cmd->add_flag("--force", o->force, "Replace output files that exist");
    out.push_back(Command{cmd,
                          [o] {
                              if (o->format != "csv" && o->format != "json") {
                                  throw CLI::ValidationError(
                                      "--format", "'" + o->format + "' is not csv or json");
                              }
                          },
                          [o](const Context&) { return run_export(*o); }});
}

} // namespace jp::cli
