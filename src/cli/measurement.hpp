#pragma once
// `jouleprof run`: discover sensors, record a trace, run the command (with
// repeats, warm-ups, a baseline and cooldowns), print the summary.
#include "config/config.hpp"
#include "sensors/host.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace jp::cli {

struct RunOptions {
    std::vector<std::string> command;
    Nanos interval{std::chrono::milliseconds{500}};
    int repeat = 1;
    int warmup = 0;
    Nanos cooldown{0};
    Nanos baseline{0};
    std::string label = "default";
    std::filesystem::path output; // empty: a new file in the current directory
    bool json = false;
    bool live = true;          // live status line when stderr is a terminal
    bool print_summary = true; // false: the caller reports (jouleprof sweep)
    // --mark-regex specs ([KIND:][NAME=]REGEX): the job's output is passed
    // through the monitor and matching lines become markers.
    std::vector<std::string> mark_regex;
};

// Returns the command's exit status (128+N if killed by signal N); 126/127
// when it could not be started; 2 for bad options found before starting.
int run_measurement(const RunOptions& options, const sensors::Host& host, const Config& config);

} // namespace jp::cli
