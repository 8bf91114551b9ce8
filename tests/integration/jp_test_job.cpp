// SPDX-License-Identifier: BSD-3-Clause
// A job for end-to-end tests: records its own start and end on CLOCK_MONOTONIC.
//   jp_test_job SECONDS OUTFILE [EXIT_CODE]   sleeps, writes "start_ns end_ns", exits
//   jp_test_job --signal SIG                   kills itself with SIG
//   jp_test_job --wait-signal OUTFILE          creates OUTFILE.ready once it waits for
//                                              SIGTERM/SIGUSR1/SIGQUIT, then writes the signal's
//                                              number
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <string_view>
#include <unistd.h>

namespace {
long long mono() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}
} // namespace

int main(int argc, char** argv) {
    const long long start = mono();
    if (argc >= 3 && std::string_view{argv[1]} == "--signal") {
        std::raise(std::atoi(argv[2]));
        return 99;
    }
    if (argc >= 3 && std::string_view{argv[1]} == "--wait-signal") {
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGUSR1);
        sigaddset(&set, SIGQUIT);
        sigprocmask(SIG_BLOCK, &set, nullptr);
        if (FILE* f = std::fopen((std::string{argv[2]} + ".ready").c_str(), "w")) {
            std::fclose(f);
        }
        int sig = 0;
        sigwait(&set, &sig);
        if (FILE* f = std::fopen(argv[2], "w")) {
            std::fprintf(f, "%d\n", sig);
            std::fclose(f);
        }
        return sig == SIGUSR1 ? 10 : 0;
    }
    if (argc < 3) {
        std::fputs("usage: jp_test_job SECONDS OUTFILE [EXIT_CODE]\n", stderr);
        return 2;
    }
    const double seconds = std::atof(argv[1]);
    const long long deadline = start + static_cast<long long>(seconds * 1e9);
    timespec ts{static_cast<time_t>(deadline / 1000000000LL),
                static_cast<long>(deadline % 1000000000LL)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != 0) {
    }
    const long long end = mono();
    if (FILE* f = std::fopen(argv[2], "w")) {
        std::fprintf(f, "%lld %lld\n", start, end);
        std::fclose(f);
    }
    return argc > 3 ? std::atoi(argv[3]) : 0;
}
