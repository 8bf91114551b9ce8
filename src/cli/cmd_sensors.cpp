// SPDX-License-Identifier: BSD-3-Clause
#include "cli/command.hpp"
#include "cli/commands.hpp"
#include "core/log.hpp"
#include "core/text.hpp"
#include "sensors/registry.hpp"

#include <cstdio>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace jp::cli {
namespace {

std::string status_text(sensors::ReadStatus s) {
    switch (s) {
    case sensors::ReadStatus::ok:
        return "readable";
    case sensors::ReadStatus::retry:
        return "no value right now (retry)";
    case sensors::ReadStatus::gone:
        return "gone";
    case sensors::ReadStatus::fatal:
        return "cannot be read";
    }
    return "?";
}

} // namespace

int list_sensors(const sensors::Host& host, const JsonOutput& json) {
    if (auto ok = check_json_output(json, {}); !ok) {
        JP_LOG_ERROR("{}", ok.error().message());
        return 2;
    }
    auto found = sensors::discover_all(host);
    auto table = sensors::channel_table(found.sensors);
    nlohmann::json channels = nlohmann::json::array();
    std::string text;
    std::size_t index = 0;
    for (const auto& s : found.sensors) {
        std::vector<sensors::Value> values(s->channels().size());
        s->read(values);
        for (std::size_t i = 0; i < values.size(); ++i, ++index) {
            const auto& c = table[index];
            const auto status = status_text(values[i].status);
            channels.push_back({{"name", c.name},
                                {"backend", c.backend},
                                {"domain", to_string(c.domain)},
                                {"quantity", to_string(c.quantity)},
                                {"provenance", to_string(c.provenance)},
                                {"source", c.source},
                                {"device", c.device},
                                {"counted", c.counted},
                                {"parent", c.parent},
                                {"status", status},
                                {"value", values[i].value},
                                {"unit", unit_of(c.quantity)}});
            text += fmt::format(
                "  {:<22} {:<11} {:<12} {:<9} {:<10} {}{}\n", c.name, c.backend,
                to_string(c.domain), to_string(c.quantity), to_string(c.provenance), status,
                c.counted ? "" : " (not summed: " + not_summed_reason(c.parent, c.backend) + ")");
            text += fmt::format("  {:<22} source: {}\n", "", c.source);
        }
    }
    nlohmann::json unreadable = nlohmann::json::array();
    for (const auto& f : found.unreadable) {
        unreadable.push_back({{"backend", f.backend},
                              {"what", f.what},
                              {"reason", f.reason},
                              {"hint", f.hint},
                              {"served_by", f.served_by}});
        if (!f.served_by.empty()) {
            text += fmt::format("  unreadable here, served by {}: {} {} ({})\n", f.served_by,
                                f.backend, f.what, f.reason);
            continue;
        }
        text += fmt::format("  UNREADABLE {} {}: {}\n", f.backend, f.what, f.reason);
        if (!f.hint.empty()) {
            text += fmt::format("    fix: {}\n", f.hint);
        }
    }
    if (json.wanted()) {
        const nlohmann::json j{{"channels", channels},
                               {"unreadable", unreadable},
                               {"notes", found.notes},
                               {"sysfs_root", host.sysfs_root.string()}};
        if (const int rc = emit_json(json, j); rc != 0 || json.on_stdout()) {
            return rc;
        }
    }
    std::printf("jouleprof sensors (root %s): %zu channel%s\n", host.sysfs_root.c_str(),
                table.size(), table.size() == 1 ? "" : "s");
    std::printf("  %-22s %-11s %-12s %-9s %-10s %s\n", "CHANNEL", "BACKEND", "DOMAIN", "QUANTITY",
                "PROVENANCE", "STATUS");
    std::fputs(terminal_safe(text).c_str(), stdout);
    for (const auto& n : found.notes) {
        std::printf("  note: %s\n", n.c_str());
    }
    return 0;
}

} // namespace jp::cli

namespace jp::cli {

void register_sensors(CLI::App& app, Commands& out) {
    auto json = std::make_shared<JsonOutput>();
    auto* cmd = app.add_subcommand("sensors", "List every sensor and whether it is readable");
    add_json_options(cmd, *json);
    out.push_back(
        Command{cmd, {}, [json](const Context& ctx) { return list_sensors(ctx.host, *json); }});
}

} // namespace jp::cli
