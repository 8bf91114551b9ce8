// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Where a command's JSON goes, the same in every command (docs/reports.md):
// `--json` puts it on stdout and nothing else goes there (a measured job's own
// stdout is sent to stderr); `--json-file FILE` writes it to FILE (`-`:
// stdout) and leaves the text output as it was.
#include "sys/output.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <vector>

namespace jp::cli {

struct JsonOutput {
    bool to_stdout = false;     // --json
    std::filesystem::path file; // --json-file FILE; "-" is stdout

    [[nodiscard]] bool wanted() const { return to_stdout || !file.empty(); }
    // stdout carries the JSON only: no text there, and a job's stdout goes to stderr.
    [[nodiscard]] bool on_stdout() const { return to_stdout || file == "-"; }
    [[nodiscard]] bool to_file() const { return !file.empty() && file != "-"; }
};

// Adds --json and --json-file to cmd.
void add_json_options(CLI::App* cmd, JsonOutput& out);

// Before anything runs: whether the --json-file may be written (an existing
// file is replaced, as perf -o and hyperfine --export-json do: it is derived,
// `report --json-file` makes it again; but never one of the command's inputs,
// and its directory must exist). The error names the option.
[[nodiscard]] Result<void> check_json_output(const JsonOutput& out,
                                             const std::vector<std::filesystem::path>& inputs);
// Whether --html may write `html` (none given: yes): never an input, nor the --json-file
// (`json`), an existing file only with --force. Checked before anything is read; a refusal is
// the caller's to change (exit 2).
[[nodiscard]] Result<void> check_html_output(const std::filesystem::path& html,
                                             const std::vector<std::filesystem::path>& inputs,
                                             bool force,
                                             const JsonOutput& json);
// Both a report's outputs, the JSON's first (report, study, merge).
[[nodiscard]] Result<void> check_report_outputs(const JsonOutput& json,
                                                const std::filesystem::path& html,
                                                const std::vector<std::filesystem::path>& inputs,
                                                bool force);

// Writes j where `out` says (both stdout and a file when both were asked);
// the file through a temporary one, so a failed write leaves nothing half.
// Returns 0, or 1 with the error logged when the file could not be written.
int emit_json(const JsonOutput& out,
              const nlohmann::json& j,
              const std::vector<std::filesystem::path>& inputs = {});

} // namespace jp::cli
