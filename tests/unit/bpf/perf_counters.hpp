// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Real perf counters whose truth is known, for the kernel sampler's tests: these machines
// have no RAPL PMU, but the msr PMU's tsc advances at the TSC's rate and the software
// CPU clock by one per nanosecond.
#include "core/clock.hpp"

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <optional>
#include <string>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>

namespace jp::test {

// A counting event on cpu (pid -1: whatever runs there), or -1 with errno.
inline int open_cpu_counter(std::uint32_t type, std::uint64_t config, int cpu) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = type;
    attr.config = config;
    return static_cast<int>(
        ::syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

// This process's own task clock: a counter any user may open.
inline int open_own_counter() {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.exclude_kernel = 1; // kernel.perf_event_paranoid = 2 allows user space only
    attr.exclude_hv = 1;
    return static_cast<int>(::syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

// Takes caps out of this process's effective, permitted and inheritable sets (a root that a
// container or a systemd unit's bounding set left without them); empty, or what failed.
inline std::string drop_capabilities(std::initializer_list<unsigned> caps) {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    std::array<__user_cap_data_struct, _LINUX_CAPABILITY_U32S_3> data{};
    if (::syscall(SYS_capget, &header, data.data()) != 0) {
        return std::string{"capget: "} + std::strerror(errno);
    }
    for (const unsigned cap : caps) {
        auto& d = data.at(cap / 32);
        const std::uint32_t bit = 1U << (cap % 32);
        d.effective &= ~bit;
        d.permitted &= ~bit;
        d.inheritable &= ~bit;
    }
    if (::syscall(SYS_capset, &header, data.data()) != 0) {
        return std::string{"capset: "} + std::strerror(errno);
    }
    return {};
}

// What a forked child said and how it ended (its waitpid status; -1: it could not run).
struct ChildResult {
    std::string said;
    int status = -1;
};

// Runs body (returning what to say and the exit code) in a forked child, where what it
// changes (its user, its capabilities) stays: the child has one thread, so a change to the
// calling thread's credentials is the whole process's.
template <class Body> ChildResult in_child(Body body) {
    std::array<int, 2> fds{};
    if (::pipe(fds.data()) != 0) {
        return {std::string{"pipe: "} + std::strerror(errno), -1};
    }
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(fds[0]);
        const std::pair<std::string, int> r = body();
        (void)!::write(fds[1], r.first.data(), r.first.size());
        ::_exit(r.second);
    }
    ::close(fds[1]);
    ChildResult out;
    if (child < 0) {
        ::close(fds[0]);
        out.said = std::string{"fork: "} + std::strerror(errno);
        return out;
    }
    std::array<char, 4096> buf{};
    for (ssize_t n = 0; (n = ::read(fds[0], buf.data(), buf.size())) > 0;) {
        out.said.append(buf.data(), static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
    if (::waitpid(child, &out.status, 0) != child) {
        out.status = -1;
    }
    return out;
}

// The msr PMU's type number, where the kernel has it.
inline std::optional<std::uint32_t> msr_pmu_type() {
    std::ifstream in{"/sys/bus/event_source/devices/msr/type"};
    std::uint32_t type = 0;
    if (in >> type) {
        return type;
    }
    return std::nullopt;
}

// A counter's value read from user space, at the middle of the read (CLOCK_MONOTONIC ns).
struct Point {
    std::int64_t t = 0;
    std::uint64_t count = 0;
};

inline std::optional<Point> read_point(int fd) {
    Point p;
    const auto before = mono_ns();
    if (::read(fd, &p.count, sizeof p.count) != static_cast<ssize_t>(sizeof p.count)) {
        return std::nullopt;
    }
    const auto after = mono_ns();
    p.t = before + (after - before) / 2;
    return p;
}

} // namespace jp::test
