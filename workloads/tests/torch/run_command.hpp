// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Runs a shell command and returns its exit status and output.
#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace jp::workload::test {

struct Output {
    int code = -1;    // exit status; -1 when killed by a signal or not started
    std::string text; // what it printed on stdout (add 2>&1 for stderr)
};

inline Output run_command(const std::string& cmd) {
    Output o;
    std::FILE* p = ::popen(cmd.c_str(), "r");
    std::array<char, 4096> buf{};
    while (p != nullptr && std::fgets(buf.data(), buf.size(), p) != nullptr) {
        o.text += buf.data();
    }
    const int status = p != nullptr ? ::pclose(p) : -1;
    o.code = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return o;
}

} // namespace jp::workload::test
