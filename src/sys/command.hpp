// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Runs a helper program (scontrol, sstat) and captures what it prints: no
// shell, a time limit after which it is killed, and bounded output.
#include "core/duration.hpp"
#include "core/error.hpp"

#include <string>
#include <vector>

namespace jp::sys {

struct CommandOutput {
    int exit_code = -1; // -1 when it died by a signal
    std::string out;    // stdout (at most 1 MiB)
    std::string err;    // stderr (at most 64 KiB)
};

// argv[0] is looked up in PATH. An error when it cannot start, or when it runs
// longer than timeout (it is then killed and reaped). A non-zero exit is not an error.
[[nodiscard]] Result<CommandOutput> run_command(const std::vector<std::string>& argv,
                                                Nanos timeout);

} // namespace jp::sys
