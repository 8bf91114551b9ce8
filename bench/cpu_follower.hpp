// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// jp_fake_powercap's --follow-cpu (bench/fake_powercap.cpp): the machine's real CPU use,
// per fake package (real CPU N on package N % 2), from the real /proc/stat, and the CPU
// topology a reader with ROOT as its sysfs root maps CPUs to packages with.
#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace jp::bench {

inline bool write_file(const std::filesystem::path& p, std::string_view text) {
    std::ofstream out{p};
    out << text;
    return static_cast<bool>(out);
}

// The per-CPU lines of the real /proc/stat, read with pread at offset 0 into
// one buffer that grows only when those lines outgrow it.
class ProcStat {
public:
    ProcStat() = default;
    ProcStat(const ProcStat&) = delete;
    ProcStat& operator=(const ProcStat&) = delete;
    ~ProcStat() {
        if (fd_ >= 0) {
            ::close(fd_);
        }
    }

    bool open() {
        fd_ = ::open("/proc/stat", O_RDONLY | O_CLOEXEC);
        buf_.resize(std::size_t{64} * 1024);
        return fd_ >= 0;
    }

    // Calls f(cpu, busy_ticks) for every cpuN line; false if /proc/stat cannot be read.
    template <class F> bool each_cpu(F&& f) {
        for (;;) {
            const ssize_t n = ::pread(fd_, buf_.data(), buf_.size(), 0);
            if (n < 0) {
                if (errno == EINTR) {
                    continue;
                }
                return false;
            }
            const std::string_view text{buf_.data(), static_cast<std::size_t>(n)};
            if (static_cast<std::size_t>(n) == buf_.size() && !cpu_lines_end_in(text)) {
                buf_.resize(buf_.size() * 2); // more CPUs than fit: rare, then stable
                continue;
            }
            for_lines(text, f);
            return true;
        }
    }

private:
    // Whether a line that is not a cpu line starts within text (so all cpu lines are whole).
    static bool cpu_lines_end_in(std::string_view text) {
        std::size_t at = 0;
        for (;;) {
            const auto nl = text.find('\n', at);
            if (nl == std::string_view::npos) {
                return false;
            }
            at = nl + 1;
            if (at < text.size() && !text.substr(at).starts_with("cpu")) {
                return true;
            }
        }
    }

    template <class F> static void for_lines(std::string_view text, F& f) {
        while (!text.empty()) {
            const auto nl = text.find('\n');
            std::string_view line = text.substr(0, nl);
            text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
            if (!line.starts_with("cpu")) {
                return; // the cpu lines come first
            }
            line.remove_prefix(3);
            unsigned cpu = 0;
            const auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), cpu);
            if (ec != std::errc{}) {
                continue; // the "cpu " total line
            }
            line.remove_prefix(static_cast<std::size_t>(p - line.data()));
            // user nice system idle iowait irq softirq steal guest guest_nice
            std::uint64_t busy = 0;
            for (int field = 0; field < 8; ++field) {
                while (!line.empty() && line.front() == ' ') {
                    line.remove_prefix(1);
                }
                std::uint64_t v = 0;
                const auto [q, ec2] = std::from_chars(line.data(), line.data() + line.size(), v);
                if (ec2 != std::errc{}) {
                    break; // an old kernel's shorter line
                }
                line.remove_prefix(static_cast<std::size_t>(q - line.data()));
                if (field != 3 && field != 4) {
                    busy += v;
                }
            }
            f(cpu, busy);
        }
    }

    int fd_ = -1;
    std::vector<char> buf_;
};

// Busy ticks per CPU since the last call, summed per package (CPU N on N % 2).
class CpuFollower {
public:
    // The first reading: the CPUs, and the baseline.
    bool open() {
        std::array<double, 2> ignored{};
        if (!stat_.open() || !sample(ignored)) {
            return false;
        }
        for (unsigned cpu = 0; cpu < seen_.size(); ++cpu) {
            if (seen_[cpu]) {
                cpus_.push_back(cpu);
            }
        }
        return !cpus_.empty();
    }

    // The CPUs of the first reading, in order.
    const std::vector<unsigned>& cpus() const { return cpus_; }

    // Adds each package's busy CPU-seconds since the last call to busy_s.
    bool sample(std::array<double, 2>& busy_s) {
        std::array<std::uint64_t, 2> ticks{};
        const bool ok = stat_.each_cpu([&](unsigned cpu, std::uint64_t busy) {
            if (cpu >= last_.size()) {
                last_.resize(cpu + 1, 0); // the first reading, or a CPU come online
                seen_.resize(cpu + 1, false);
            }
            if (seen_[cpu] && busy >= last_[cpu]) {
                ticks[cpu % 2] += busy - last_[cpu];
            }
            last_[cpu] = busy;
            seen_[cpu] = true;
        });
        for (std::size_t p = 0; p < ticks.size(); ++p) {
            busy_s[p] += static_cast<double>(ticks[p]) / user_hz_;
        }
        return ok;
    }

private:
    ProcStat stat_;
    double user_hz_ = static_cast<double>(::sysconf(_SC_CLK_TCK));
    std::vector<std::uint64_t> last_;
    std::vector<bool> seen_;
    std::vector<unsigned> cpus_;
};

// "0-3,5\n" for the CPUs 0, 1, 2, 3 and 5 (as sysfs writes a CPU list).
inline std::string cpu_list(std::vector<unsigned> cpus) {
    std::ranges::sort(cpus);
    std::string out;
    for (std::size_t i = 0; i < cpus.size();) {
        std::size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) {
            ++j;
        }
        out += out.empty() ? "" : ",";
        out += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
        i = j + 1;
    }
    return out + "\n";
}

// The CPU topology a sysfs-root reader maps CPUs to packages with.
inline bool write_topology(const std::filesystem::path& root, const std::vector<unsigned>& cpus) {
    const auto cpu_dir = root / "sys/devices/system/cpu";
    for (const unsigned cpu : cpus) {
        const auto dir = cpu_dir / fmt::format("cpu{}", cpu) / "topology";
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec || !write_file(dir / "physical_package_id", fmt::format("{}\n", cpu % 2))) {
            std::fprintf(stderr, "jp_fake_powercap: cannot write %s\n", dir.c_str());
            return false;
        }
    }
    const auto list = cpu_list(cpus);
    if (!write_file(cpu_dir / "online", list) || !write_file(cpu_dir / "present", list)) {
        std::fprintf(stderr, "jp_fake_powercap: cannot write %s\n", cpu_dir.c_str());
        return false;
    }
    return true;
}

} // namespace jp::bench
