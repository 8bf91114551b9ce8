// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A fake /proc and sysfs topology for the estimate backend's tests.
#include "fake_sysfs.hpp"
#include "sensor_checks.hpp"
#include "sensors/sensor.hpp"

#include <algorithm>
#include <cstdint>
#include <fmt/format.h>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace jp::test {

// The aggregate "cpu" line of /proc/stat, in USER_HZ ticks (proc(5) field order).
struct Ticks {
    std::uint64_t user = 0;
    std::uint64_t nice = 0;
    std::uint64_t system = 0;
    std::uint64_t idle = 0;
    std::uint64_t iowait = 0;
    std::uint64_t irq = 0;
    std::uint64_t softirq = 0;
    std::uint64_t steal = 0;
    std::uint64_t guest = 0;
    std::uint64_t guest_nice = 0;

    [[nodiscard]] Ticks plus(const Ticks& d) const {
        return {user + d.user,       nice + d.nice,
                system + d.system,   idle + d.idle,
                iowait + d.iowait,   irq + d.irq,
                softirq + d.softirq, steal + d.steal,
                guest + d.guest,     guest_nice + d.guest_nice};
    }
};

// /proc/stat as the kernel writes it: aggregate line, one line per CPU, then the rest.
inline std::string stat_text(const Ticks& t, int cpus) {
    std::string s = fmt::format("cpu  {} {} {} {} {} {} {} {} {} {}\n", t.user, t.nice, t.system,
                                t.idle, t.iowait, t.irq, t.softirq, t.steal, t.guest, t.guest_nice);
    for (int i = 0; i < cpus; ++i) {
        s += fmt::format("cpu{} 10 0 5 100 1 0 0 0 0 0\n", i);
    }
    return s + "intr 123456 0 9 0\nctxt 987654\nbtime 1700000000\nprocesses 4242\n";
}

// /proc/cpuinfo (x86 layout) with `cpus` processors spread over `sockets` packages.
inline std::string cpuinfo_text(std::string_view model, int cpus, bool vm, int sockets = 1) {
    std::string s;
    const std::string_view flags =
        vm ? "fpu vme sse2 ht syscall lm hypervisor lahf_lm" : "fpu vme sse2 ht syscall lm lahf_lm";
    for (int i = 0; i < cpus; ++i) {
        s += fmt::format("processor\t: {}\nvendor_id\t: AuthenticAMD\nmodel name\t: {}\n"
                         "physical id\t: {}\nflags\t\t: {}\n\n",
                         i, model, i % sockets, flags);
    }
    return s;
}

// A node: /proc/stat (writable, so tests can advance it), /proc/cpuinfo, /proc/meminfo.
class FakeNode {
public:
    FakeNode(std::string_view model, int cpus, bool vm, int sockets = 1) : m_cpus(cpus) {
        set_stat(m_ticks);
        fs.add({"/proc/cpuinfo", cpuinfo_text(model, cpus, vm, sockets)});
        fs.add({"/proc/meminfo", "MemTotal:       16777216 kB\nMemFree:         8000000 kB\n"});
    }

    // Adds d to the counters and rewrites /proc/stat in place.
    void advance(const Ticks& d) { set_stat(m_ticks = m_ticks.plus(d)); }
    void set_stat(const Ticks& t) { fs.add({"/proc/stat", stat_text(t, m_cpus), 0644}); }

    FakeSysfs fs;

private:
    int m_cpus;
    Ticks m_ticks{1000, 10, 400, 50000, 300, 20, 30, 5, 0, 0}; // since boot
};

// The sensor whose first channel is named `channel`, or null.
inline sensors::Sensor* find_sensor(sensors::Discovery& d, std::string_view channel) {
    for (auto& s : d.sensors) {
        if (!s->channels().empty() && s->channels()[0].name == channel) {
            return s.get();
        }
    }
    return nullptr;
}

inline sensors::Sensor& sensor_of(sensors::Discovery& d, std::string_view channel) {
    auto* s = find_sensor(d, channel);
    if (s == nullptr) {
        throw std::runtime_error(fmt::format("no {} sensor", channel));
    }
    return *s;
}

inline sensors::Value read_one(sensors::Sensor& s) {
    std::vector<sensors::Value> v(s.channels().size());
    s.read(v);
    return v.at(0);
}

} // namespace jp::test
