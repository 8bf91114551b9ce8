#include "cli/command.hpp"
#include "cli/commands.hpp"
#include "core/log.hpp"
#include "report/format.hpp"

#include <cstdio>

namespace jp::cli {

namespace {

Result<nlohmann::json> summary_json(const std::filesystem::path& path, std::string* text) {
    auto reader = trace::Reader::open(path);
    if (!reader) {
        return std::unexpected(reader.error());
    }
    auto summaries = report::summarize_trace(*reader);
    if (!summaries) {
        return std::unexpected(summaries.error());
    }
    const auto facts = report::node_facts(*reader);
    if (text != nullptr) {
        *text = report::format_text(*summaries, facts) + "  trace: " + path.string() + "\n";
        return nlohmann::json{};
    }
    auto j = report::to_json(*summaries, facts);
    j["trace"] = path.string();
    return j;
}

} // namespace

int print_trace_summary(const std::filesystem::path& trace, bool json, std::FILE* text_out) {
    std::string text;
    auto j = summary_json(trace, json ? nullptr : &text);
    if (!j) {
        JP_LOG_ERROR("{}", j.error().message());
        return 1;
    }
    std::fputs(json ? (j->dump(2) + "\n").c_str() : text.c_str(), json ? stdout : text_out);
    std::fflush(json ? stdout : text_out);
    return 0;
}

int report_traces(const std::vector<std::filesystem::path>& traces, bool json) {
    if (!json) {
        for (const auto& path : traces) {
            if (print_trace_summary(path, false, stdout) != 0) {
                return 1;
            }
        }
        return 0;
    }
    nlohmann::json all = nlohmann::json::array();
    for (const auto& path : traces) {
        auto j = summary_json(path, nullptr);
        if (!j) {
            JP_LOG_ERROR("{}", j.error().message());
            return 1;
        }
        all.push_back(std::move(*j));
    }
    std::puts((traces.size() == 1 ? all[0] : all).dump(2).c_str());
    return 0;
}

} // namespace jp::cli

namespace jp::cli {

void register_report(CLI::App& app, Commands& out) {
    struct Options {
        std::vector<std::filesystem::path> traces;
        bool json = false;
    };
    auto o = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("report", "Summarise trace files");
    cmd->add_option("traces", o->traces, "Trace files")->required()->check(CLI::ExistingFile);
    cmd->add_flag("--json", o->json, "JSON output");
    out.push_back(
        Command{cmd, {}, [o](const Context&) { return report_traces(o->traces, o->json); }});
}

} // namespace jp::cli
