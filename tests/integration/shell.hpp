// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Helpers shared by the integration suites: run a shell command line, read
// the monotonic clock the monitor uses, read a file whole.
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace jp::test {

// Polls `ready` every 10 ms until it holds or `seconds` pass. Tests wait for
// what they need to have happened, never for a fixed time a busy machine may
// not keep.
template <class F> bool wait_until(F ready, double seconds = 60) {
    const auto deadline = static_cast<double>(std::time(nullptr)) + seconds;
    while (!ready()) {
        if (static_cast<double>(std::time(nullptr)) > deadline) {
            return false;
        }
        ::usleep(10'000);
    }
    return true;
}

inline std::int64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

struct Outcome {
    int exit_code = -1;
    std::string out; // stdout, byte for byte
};

// Runs a command line with /bin/sh; exit status 128+N when killed by signal N.
inline Outcome sh(const std::string& cmd) {
    Outcome o;
    FILE* p = ::popen(cmd.c_str(), "r");
    if (p == nullptr) {
        return o;
    }
    char buf[4096];
    ssize_t n = 0;
    while ((n = ::read(::fileno(p), buf, sizeof buf)) > 0) {
        o.out.append(buf, static_cast<std::size_t>(n));
    }
    const int st = ::pclose(p);
    o.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return o;
}

// A file's bytes ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in{p, std::ios::binary};
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace jp::test
