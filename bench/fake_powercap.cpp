// SPDX-License-Identifier: BSD-3-Clause
// jp_fake_powercap: a ticking two-socket intel-rapl tree for the benchmarks that
// run the real jouleprof binary (bench/run_cost.sh), made by the project so a
// clone needs nothing else. It writes the layout a real node has under
// ROOT/sys/class/powercap (package, core and dram zone per socket: six
// counters with name, energy_uj, max_energy_range_uj), then advances every
// energy_uj at --hz in place (pwrite at offset 0 into the same inode, as a
// reader holding the file open sees sysfs change) until the command after --
// exits, and returns its exit status. Point jouleprof at it with
// --sysfs-root ROOT: no namespace, no root.
//
//   jp_fake_powercap [--hz N] [--watts W] ROOT -- COMMAND [ARGS...]
//   jp_fake_powercap --follow-cpu IDLE_W:K_W [--hz N] ROOT -- COMMAND [ARGS...]
//
// The zones are intel-rapl:0 (package-0) with intel-rapl:0:0 (core) and
// intel-rapl:0:1 (dram), and the same under intel-rapl:1 (package-1). By
// default each counter advances by W (default 40 W: packages, 8 W core, 6 W
// dram) per second; the counters start at half their range, so no wrap occurs
// within the ~30 days it would take.
//
// --follow-cpu makes the power follow the machine's real CPU use, so a test
// knows the truth of a job's dynamic energy. Real CPU N (each cpuN line of the
// real /proc/stat) belongs to package N % 2; every tick reads the real
// /proc/stat (pread at offset 0 of one open file) and, with busy =
// user+nice+system+irq+softirq+steal ticks of USER_HZ and dt the real
// CLOCK_MONOTONIC time since the last tick, advances
//   package p   by IDLE_W * dt + K_W * (busy CPU-seconds of p's CPUs in dt)
//   its core    by               K_W * (busy CPU-seconds of p's CPUs in dt)
//   its dram    by 2 W * dt
// so package p's energy over any window is IDLE_W * window + K_W * (CPU-seconds
// busy on p's CPUs in the window), to /proc/stat's 1/USER_HZ (10 ms) per-CPU
// resolution. That busy time is the whole machine's: other processes and this
// program's own ticking (about 8 % of one CPU at 1 kHz in the ci build; --hz 100
// for less) count too. It also writes
// ROOT/sys/devices/system/cpu/cpuN/topology/physical_package_id ("0" or "1")
// for every real CPU N, and ROOT/sys/devices/system/cpu/online and present (the
// real CPUs' list, "0-7"), so a reader using ROOT as its sysfs root maps the
// CPUs to the fake packages. Bad arguments print one line and exit 2.
#include "cpu_follower.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using jp::bench::CpuFollower;
using jp::bench::write_file;
using jp::bench::write_topology;

constexpr std::uint64_t k_range_uj = 262143328850; // a real package's max_energy_range_uj
constexpr double k_max_value = 100000;             // the largest --hz, --watts, IDLE_W, K_W
constexpr double k_follow_dram_watts = 2;          // a dram zone's constant in --follow-cpu

struct Zone {
    const char* id;
    const char* name;
    double watts;      // constant part
    int package = 0;   // whose busy CPU-seconds it follows
    double busy_w = 0; // joules per busy CPU-second (--follow-cpu), else 0
    int fd = -1;
    double uj = static_cast<double>(k_range_uj / 2);
};

int usage(const char* why) {
    std::fprintf(stderr,
                 "jp_fake_powercap: %s (usage: jp_fake_powercap [--hz N] [--watts W | --follow-cpu "
                 "IDLE_W:K_W] ROOT -- COMMAND [ARGS...])\n",
                 why);
    return 2;
}

// The number in [0, k_max_value] that is all of text; nullopt if none.
std::optional<double> parse_number(const std::string& text) {
    if (text.empty()) {
        return std::nullopt;
    }
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !(v >= 0) || v > k_max_value) {
        return std::nullopt;
    }
    return v;
}

// One counter's value written over the same inode, as a sysfs attribute changes.
void store(Zone& z) {
    std::array<char, 32> text{};
    const auto r = fmt::format_to_n(text.data(), text.size(), "{}\n",
                                    static_cast<std::uint64_t>(z.uj) % k_range_uj);
    const auto size = static_cast<std::size_t>(r.out - text.data());
    if (::pwrite(z.fd, text.data(), size, 0) != static_cast<ssize_t>(size)) {
        std::fprintf(stderr, "jp_fake_powercap: write failed: %s\n", std::strerror(errno));
    }
}

struct Args {
    double hz = 1000;
    std::optional<double> package_watts;
    std::optional<std::array<double, 2>> follow; // IDLE_W, K_W
    int root_at = 0;                             // argv[root_at] is ROOT
};

// "IDLE_W:K_W"; nullopt if not two numbers in [0, k_max_value].
std::optional<std::array<double, 2>> parse_follow(const std::string& value) {
    const auto colon = value.find(':');
    if (colon == std::string::npos) {
        return std::nullopt;
    }
    const auto idle = parse_number(value.substr(0, colon));
    const auto k = parse_number(value.substr(colon + 1));
    if (!idle || !k) {
        return std::nullopt;
    }
    return std::array<double, 2>{*idle, *k};
}

// The options before ROOT; nullopt (and the one line said) if they are wrong.
std::optional<Args> parse_args(int argc, char** argv) {
    Args args;
    int i = 1;
    for (; i < argc && std::string_view{argv[i]}.starts_with("--") &&
           std::string_view{argv[i]} != "--";
         i += 2) {
        const std::string_view opt = argv[i];
        if (opt != "--hz" && opt != "--watts" && opt != "--follow-cpu") {
            usage(fmt::format("unknown option {}", opt).c_str());
            return std::nullopt;
        }
        if (i + 1 >= argc) {
            usage(fmt::format("{} needs a value", opt).c_str());
            return std::nullopt;
        }
        const std::string value = argv[i + 1];
        if (opt == "--follow-cpu") {
            args.follow = parse_follow(value);
            if (!args.follow) {
                usage(fmt::format("--follow-cpu takes IDLE_W:K_W, two numbers in [0, {}], not '{}'",
                                  k_max_value, value)
                          .c_str());
                return std::nullopt;
            }
            continue;
        }
        const auto v = parse_number(value);
        if (!v || *v == 0) {
            usage(fmt::format("{} takes a number in (0, {}], not '{}'", opt, k_max_value, value)
                      .c_str());
            return std::nullopt;
        }
        if (opt == "--hz") {
            args.hz = *v;
        } else {
            args.package_watts = v;
        }
    }
    if (args.follow && args.package_watts) {
        usage("--watts and --follow-cpu exclude each other");
        return std::nullopt;
    }
    if (i + 2 >= argc || std::string_view{argv[i + 1]} != "--") {
        usage("ROOT and a command after -- are required");
        return std::nullopt;
    }
    args.root_at = i;
    return args;
}

// A zone's directory with name and max_energy_range_uj, and its energy_uj open for writing.
bool make_zone(const std::filesystem::path& base, Zone& z) {
    const auto dir = base / z.id;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !write_file(dir / "name", fmt::format("{}\n", z.name)) ||
        !write_file(dir / "max_energy_range_uj", fmt::format("{}\n", k_range_uj))) {
        std::fprintf(stderr, "jp_fake_powercap: cannot write %s\n", dir.c_str());
        return false;
    }
    std::filesystem::remove(dir / "energy_uj", ec); // a leftover 0444 file
    z.fd = ::open((dir / "energy_uj").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);
    if (z.fd < 0) {
        std::fprintf(stderr, "jp_fake_powercap: %s: %s\n", dir.c_str(), std::strerror(errno));
        return false;
    }
    store(z);
    return true;
}

// The six zones: constant watts, or following the CPUs (--follow-cpu).
std::vector<Zone> zones_for(const Args& args) {
    const double pw = args.package_watts.value_or(40);
    std::vector<Zone> zones = {
        {"intel-rapl:0", "package-0", pw, 0}, {"intel-rapl:0:0", "core", 8, 0},
        {"intel-rapl:0:1", "dram", 6, 0},     {"intel-rapl:1", "package-1", pw, 1},
        {"intel-rapl:1:0", "core", 8, 1},     {"intel-rapl:1:1", "dram", 6, 1}};
    if (args.follow) {
        const auto [idle_w, k_w] = *args.follow;
        for (auto& z : zones) {
            const std::string_view name = z.name;
            z.watts = name == "core" ? 0 : name == "dram" ? k_follow_dram_watts : idle_w;
            z.busy_w = name == "dram" ? 0 : k_w;
        }
    }
    return zones;
}

} // namespace

int main(int argc, char** argv) {
    const auto args = parse_args(argc, argv);
    if (!args) {
        return 2;
    }
    const int i = args->root_at;
    const double hz = args->hz;
    const auto& follow = args->follow;
    const std::filesystem::path root{argv[i]};
    const std::filesystem::path base = root / "sys/class/powercap";
    std::vector<Zone> zones = zones_for(*args);
    CpuFollower follower;
    if (follow) {
        if (!follower.open()) {
            std::fprintf(stderr, "jp_fake_powercap: cannot read the CPUs of /proc/stat\n");
            return 1;
        }
        if (!write_topology(root, follower.cpus())) {
            return 1;
        }
    }
    for (auto& z : zones) {
        if (!make_zone(base, z)) {
            return 1;
        }
    }

    std::atomic<bool> done{false};
    std::thread ticker{[&] {
        using clock = std::chrono::steady_clock; // CLOCK_MONOTONIC
        const auto period =
            std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>{1.0 / hz});
        auto next = clock::now();
        auto last = next;
        bool stat_failed = false;
        if (follow) {
            std::array<double, 2> ignored{};
            stat_failed = !follower.sample(ignored); // the baseline at `last`
        }
        while (!done.load(std::memory_order_relaxed)) {
            next += period;
            std::this_thread::sleep_until(next);
            std::array<double, 2> busy_s{};
            if (follow && !follower.sample(busy_s) && !stat_failed) {
                std::fprintf(stderr, "jp_fake_powercap: /proc/stat: %s\n", std::strerror(errno));
                stat_failed = true; // said once
            }
            const auto now = clock::now();
            const double dt = std::chrono::duration<double>(now - last).count();
            last = now;
            for (auto& z : zones) {
                z.uj +=
                    (z.watts * dt + z.busy_w * busy_s[static_cast<std::size_t>(z.package)]) * 1e6;
                store(z);
            }
        }
    }};

    const pid_t child = ::fork();
    if (child == 0) {
        ::execvp(argv[i + 2], argv + i + 2);
        std::fprintf(stderr, "jp_fake_powercap: %s: %s\n", argv[i + 2], std::strerror(errno));
        ::_exit(127);
    }
    int status = 0;
    int rc = 1;
    if (child > 0) {
        std::signal(SIGINT, SIG_IGN); // the command decides; we follow it
        while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
        rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    } else {
        std::fprintf(stderr, "jp_fake_powercap: fork: %s\n", std::strerror(errno));
    }
    done = true;
    ticker.join();
    return rc;
}
