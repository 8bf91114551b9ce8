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
//
// Each counter advances by W (default 40 W: packages, 8 W core, 6 W dram) per
// second; the counters start at half their range, so no wrap occurs within the
// ~30 days it would take.
#include <atomic>
#include <cerrno>
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
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

constexpr std::uint64_t k_range_uj = 262143328850; // a real package's max_energy_range_uj

struct Zone {
    const char* id;
    const char* name;
    double watts;
    int fd = -1;
    double uj = static_cast<double>(k_range_uj / 2);
};

int usage(const char* why) {
    std::fprintf(stderr,
                 "jp_fake_powercap: %s\nusage: jp_fake_powercap [--hz N] [--watts W] ROOT -- "
                 "COMMAND [ARGS...]\n",
                 why);
    return 2;
}

bool write_text(const std::filesystem::path& p, std::string_view text) {
    std::ofstream out{p};
    out << text;
    return static_cast<bool>(out);
}

// One counter's value written over the same inode, as a sysfs attribute changes.
void store(Zone& z) {
    const auto text = fmt::format("{}\n", static_cast<std::uint64_t>(z.uj) % k_range_uj);
    if (::pwrite(z.fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size())) {
        std::fprintf(stderr, "jp_fake_powercap: write failed: %s\n", std::strerror(errno));
    }
}

} // namespace

int main(int argc, char** argv) {
    double hz = 1000;
    double package_watts = 40;
    int i = 1;
    for (; i < argc && std::string_view{argv[i]}.starts_with("--") &&
           std::string_view{argv[i]} != "--";
         i += 2) {
        const std::string_view opt = argv[i];
        if (i + 1 >= argc) {
            return usage("an option needs a value");
        }
        char* end = nullptr;
        const double v = std::strtod(argv[i + 1], &end);
        if (end == argv[i + 1] || *end != '\0' || !(v > 0) || v > 100000) {
            return usage("--hz and --watts take a number in (0, 100000]");
        }
        if (opt == "--hz") {
            hz = v;
        } else if (opt == "--watts") {
            package_watts = v;
        } else {
            return usage("unknown option");
        }
    }
    if (i + 2 >= argc || std::string_view{argv[i + 1]} != "--") {
        return usage("ROOT and a command after -- are required");
    }
    const std::filesystem::path base = std::filesystem::path{argv[i]} / "sys/class/powercap";
    std::vector<Zone> zones = {{"intel-rapl:0", "package-0", package_watts},
                               {"intel-rapl:0:0", "core", 8},
                               {"intel-rapl:0:1", "dram", 6},
                               {"intel-rapl:1", "package-1", package_watts},
                               {"intel-rapl:1:0", "core", 8},
                               {"intel-rapl:1:1", "dram", 6}};
    for (auto& z : zones) {
        const auto dir = base / z.id;
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec || !write_text(dir / "name", fmt::format("{}\n", z.name)) ||
            !write_text(dir / "max_energy_range_uj", fmt::format("{}\n", k_range_uj))) {
            std::fprintf(stderr, "jp_fake_powercap: cannot write %s\n", dir.c_str());
            return 1;
        }
        std::filesystem::remove(dir / "energy_uj", ec); // a leftover 0444 file
        z.fd = ::open((dir / "energy_uj").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);
        if (z.fd < 0) {
            std::fprintf(stderr, "jp_fake_powercap: %s: %s\n", dir.c_str(), std::strerror(errno));
            return 1;
        }
        store(z);
    }

    std::atomic<bool> done{false};
    std::thread ticker{[&] {
        using clock = std::chrono::steady_clock;
        const auto period =
            std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>{1.0 / hz});
        auto next = clock::now();
        auto last = next;
        while (!done.load(std::memory_order_relaxed)) {
            next += period;
            std::this_thread::sleep_until(next);
            const auto now = clock::now();
            const double dt = std::chrono::duration<double>(now - last).count();
            last = now;
            for (auto& z : zones) {
                z.uj += z.watts * dt * 1e6;
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
