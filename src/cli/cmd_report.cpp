#include "cli/commands.hpp"
#include "core/log.hpp"
#include "report/format.hpp"

#include <cstdio>

namespace jp::cli {

int report_traces(const std::vector<std::filesystem::path>& traces, bool json) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& path : traces) {
        auto reader = trace::Reader::open(path);
        if (!reader) {
            JP_LOG_ERROR("{}", reader.error().message());
            return 1;
        }
        auto summaries = report::summarize_trace(*reader);
        if (!summaries) {
            JP_LOG_ERROR("{}", summaries.error().message());
            return 1;
        }
        const auto facts = report::node_facts(*reader);
        if (json) {
            auto j = report::to_json(*summaries, facts);
            j["trace"] = path.string();
            all.push_back(std::move(j));
        } else {
            std::printf("%s  trace: %s\n", report::format_text(*summaries, facts).c_str(),
                        path.c_str());
        }
    }
    if (json) {
        std::puts((traces.size() == 1 ? all[0] : all).dump(2).c_str());
    }
    return 0;
}

} // namespace jp::cli
