// SPDX-License-Identifier: BSD-3-Clause
// `jouleprof mark begin|end|point NAME`: marks a phase from inside a job run
// by `jouleprof run` (over the socket named in JOULEPROF_MARKER_SOCKET).
#include "cli/command.hpp"
#include "markers/client.hpp"

#include <cstdio>
#include <cstring>
#include <memory>

namespace jp::cli {
namespace {

struct MarkOptions {
    std::string kind;
    std::string name;
    bool strict = false;
};

int mark(const MarkOptions& o) {
    const auto kind = markers::parse_kind(o.kind);
    if (!kind) { // validate() already refused it
        return 2;
    }
    const int r = markers::send_mark(*kind, o.name);
    if (r == markers::k_inactive) {
        if (o.strict) {
            std::fputs("jouleprof: error: not under `jouleprof run`; mark not recorded\n", stderr);
            return 2;
        }
        std::fputs("jouleprof: note: not under `jouleprof run`; mark ignored\n", stderr);
        return 0;
    }
    if (r < 0) {
        // The job comes first: a monitor that went away does not fail the job's script.
        std::fprintf(stderr, "jouleprof: %s: mark '%s' not recorded: %s\n",
                     o.strict ? "error" : "warning", o.name.c_str(), std::strerror(-r));
        return o.strict ? 1 : 0;
    }
    return 0;
}

} // namespace

void register_mark(CLI::App& app, Commands& out) {
    auto o = std::make_shared<MarkOptions>();
    auto* cmd = app.add_subcommand("mark", "Mark a phase from inside a job run by `jouleprof run`");
    cmd->add_option("kind", o->kind, "begin, end or point")->required();
    cmd->add_option("name", o->name, "Phase name (at most 200 bytes, one line)")->required();
    cmd->add_flag("--strict", o->strict,
                  "Exit 2 when not under `jouleprof run` (and 1 when the mark cannot be sent)");
    out.push_back(Command{cmd,
                          [o] {
                              if (!markers::parse_kind(o->kind)) {
                                  throw CLI::ValidationError(
                                      "mark",
                                      "kind must be begin, end or point, not '" + o->kind + "'");
                              }
                              if (const char* problem = markers::name_problem(o->name)) {
                                  throw CLI::ValidationError("mark", problem);
                              }
                          },
                          [o](const Context&) { return mark(*o); }});
}

} // namespace jp::cli
