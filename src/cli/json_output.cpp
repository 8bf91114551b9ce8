// SPDX-License-Identifier: BSD-3-Clause
#include "cli/json_output.hpp"

#include "cli/usage_hints.hpp"
#include "core/log.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <ostream>
#include <unistd.h>

namespace jp::cli {

void add_json_options(CLI::App* cmd, JsonOutput& out) {
    cmd->add_flag("--json", out.to_stdout, "Print JSON on stdout, and nothing else there");
    cmd->add_option("--json-file", out.file, "Also write the JSON to FILE ('-': stdout)")
        ->type_name("FILE")
        ->check(non_empty_path());
}

Result<void> check_json_output(const JsonOutput& out,
                               const std::vector<std::filesystem::path>& inputs) {
    if (!out.to_file()) {
        return {};
    }
    if (auto ok = sys::check_output(out.file, {inputs, true}); !ok) {
        return fail(ok.error().kind, "--json-file " + out.file.string(), ok.error().detail);
    }
    const auto dir = out.file.has_parent_path() ? out.file.parent_path() : ".";
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
        return fail(ErrorKind::permission, "--json-file " + out.file.string(),
                    "cannot create a file in " + dir.string() + ": " + std::strerror(errno));
    }
    return {};
}

Result<void> check_html_output(const std::filesystem::path& html,
                               const std::vector<std::filesystem::path>& inputs,
                               bool force,
                               const JsonOutput& json) {
    if (html.empty()) {
        return {};
    }
    if (json.to_file() && sys::same_file(html, json.file)) {
        return fail(ErrorKind::config, "--html " + html.string(),
                    "is also the --json-file: name two files");
    }
    if (auto ok = sys::check_output(html, {inputs, force}); !ok) {
        return fail(ok.error().kind, "--html " + html.string(), ok.error().detail);
    }
    return {};
}

Result<void> check_report_outputs(const JsonOutput& json,
                                  const std::filesystem::path& html,
                                  const std::vector<std::filesystem::path>& inputs,
                                  bool force) {
    if (auto ok = check_json_output(json, inputs); !ok) {
        return ok;
    }
    return check_html_output(html, inputs, force, json);
}

int emit_json(const JsonOutput& out,
              const nlohmann::json& j,
              const std::vector<std::filesystem::path>& inputs) {
    const auto text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    if (out.on_stdout()) {
        std::fputs(text.c_str(), stdout);
        std::fflush(stdout);
    }
    if (!out.to_file()) {
        return 0;
    }
    auto saved = sys::write_output(out.file, {inputs, true}, [&](std::ostream& f) -> Result<void> {
        f << text;
        return {};
    });
    if (!saved) {
        JP_LOG_ERROR("--json-file {}", saved.error().message());
        return 1;
    }
    return 0;
}

} // namespace jp::cli
