// `jouleprof export TRACE --format csv|json [-o FILE]`.
//   csv, -o FILE.csv: FILE.csv (samples), FILE.markers.csv, FILE.summary.csv
//   csv, no -o: the samples on stdout
//   json: one nested document, to FILE or stdout
#include "cli/command.hpp"
#include "core/log.hpp"
#include "report/export.hpp"

#include <fstream>
#include <iostream>
#include <memory>

namespace jp::cli {
namespace {

struct ExportOptions {
    std::filesystem::path trace;
    std::string format;
    std::filesystem::path output;
};

std::filesystem::path beside(const std::filesystem::path& out, const std::string& what) {
    auto p = out;
    p.replace_extension();
    return p.string() + "." + what + ".csv";
}

Result<void> write_csv(trace::Reader& reader, const std::filesystem::path& out) {
    if (out.empty()) {
        return report::write_samples_csv(reader, std::cout);
    }
    using Writer = Result<void> (*)(trace::Reader&, std::ostream&);
    for (auto [path, write] :
         {std::pair<std::filesystem::path, Writer>{out, report::write_samples_csv},
          {beside(out, "markers"), report::write_markers_csv},
          {beside(out, "summary"), report::write_summary_csv}}) {
        std::ofstream f{path};
        if (!f) {
            return fail(ErrorKind::io, path.string(), "cannot be written");
        }
        if (auto r = write(reader, f); !r) {
            return r;
        }
        if (!f.flush()) {
            return fail(ErrorKind::io, path.string(), "write failed");
        }
    }
    return {};
}

Result<void> write_json(trace::Reader& reader, const std::filesystem::path& out) {
    auto j = report::trace_json(reader);
    if (!j) {
        return std::unexpected(j.error());
    }
    if (out.empty()) {
        std::cout << j->dump(2) << "\n";
        return {};
    }
    std::ofstream f{out};
    if (!(f << j->dump(2) << "\n") || !f.flush()) {
        return fail(ErrorKind::io, out.string(), "cannot be written");
    }
    return {};
}

int run_export(const ExportOptions& o) {
    auto reader = trace::Reader::open(o.trace);
    if (!reader) {
        JP_LOG_ERROR("{}", reader.error().message());
        return 1;
    }
    auto r = o.format == "csv" ? write_csv(*reader, o.output) : write_json(*reader, o.output);
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
                    "Output file (csv: also FILE.markers.csv and FILE.summary.csv beside it)");
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
