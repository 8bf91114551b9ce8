// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/perf_rapl/perf_rapl.hpp"

#include "config/config.hpp"
#include "core/update_period.hpp"
#include "sensors/perf_rapl/kernel_sensor.hpp"
#include "sensors/perf_rapl/perf_sensor.hpp"
#include "sensors/perf_rapl/pmu.hpp"
#include "sys/file.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace jp::sensors::perf_rapl {
namespace {

// The RAPL events of the power PMU (arch/x86/events/rapl.c) and what they measure.
struct EventRow {
    std::string_view event; // sysfs events/<event>
    std::string_view part;  // channel "cpuN.<part>", identity "rapl:<part>:N"
    Domain domain;
    bool per_package; // false: one platform counter (psys), opened on the first CPU
};
constexpr std::array k_events{
    EventRow{"energy-pkg", "package", Domain::cpu_package, true},
    EventRow{"energy-cores", "core", Domain::cpu_core, true},
    EventRow{"energy-gpu", "uncore", Domain::cpu_uncore, true}, // PP1, the client iGPU
    EventRow{"energy-ram", "dram", Domain::dram, true},
    EventRow{"energy-psys", "psys", Domain::psys, false},
};

const EventRow& row_of(std::string_view event) {
    for (const auto& row : k_events) {
        if (row.event == event) {
            return row;
        }
    }
    return k_events[0]; // read_pmu only returns events named in k_events
}

// Package N is the position of its CPU in cpumask. Cores and the uncore sit
// inside their package; psys contains the packages and DRAM.
Channel make_channel(const EventRow& row, std::size_t package, int cpu, bool has_psys) {
    Channel c;
    c.domain = row.domain;
    c.quantity = Quantity::energy;
    c.backend = "perf_rapl";
    c.update_ns = k_rapl_update_ns;
    c.source = fmt::format("perf power/{}/ cpu {}", row.event, cpu);
    if (!row.per_package) {
        c.name = std::string{row.part};
        c.device = fmt::format("rapl:{}", row.part);
        return c;
    }
    c.name = fmt::format("cpu{}.{}", package, row.part);
    c.device = fmt::format("rapl:{}:{}", row.part, package);
    if (row.domain == Domain::cpu_core || row.domain == Domain::cpu_uncore) {
        c.counted = false;
        c.parent = fmt::format("cpu{}.package", package);
    } else if (has_psys) {
        c.counted = false;
        c.parent = "psys";
    }
    return c;
}

std::string paranoid_hint(const Host& host) {
    const auto path = sys::under_root(host.sysfs_root, "/proc/sys/kernel/perf_event_paranoid");
    auto level = sys::read_i64(path);
    return fmt::format("perf RAPL needs kernel.perf_event_paranoid <= 0 (now {}, read from {}) or "
                       "CAP_PERFMON (setcap cap_perfmon+ep on the jouleprof binary), or run "
                       "jouleprofd",
                       level ? std::to_string(*level) : std::string{"unknown"}, path.string());
}

// Opens the counters one by one; stops at the first EACCES/EPERM.
class Opener {
public:
    Opener(const PerfApi& api, const Pmu& pmu, const Host& host, Discovery& out)
        : m_api(api), m_pmu(pmu), m_host(host), m_out(out) {}

    // Every (event, package) counter, package by package; psys once.
    void open_all() {
        const bool has_psys = std::ranges::any_of(
            m_pmu.events, [](const PmuEvent& e) { return row_of(e.name).domain == Domain::psys; });
        for (std::size_t package = 0; package < m_pmu.cpus.size() && !m_denied; ++package) {
            const int cpu = m_pmu.cpus[package];
            for (const auto& event : m_pmu.events) {
                const auto& row = row_of(event.name);
                if ((row.per_package || package == 0) && !m_denied) {
                    open_one(event, make_channel(row, package, cpu, has_psys), cpu);
                }
            }
        }
        if (m_denied) {
            close_all(m_api, m_counters); // every other open would be denied as well
            m_channels.clear();
            m_counters.clear();
        }
    }

    [[nodiscard]] std::unique_ptr<PerfRaplSensor> sensor() {
        if (m_channels.empty()) {
            return nullptr;
        }
        return std::make_unique<PerfRaplSensor>(std::move(m_channels), std::move(m_counters),
                                                m_api);
    }

private:
    // One counting event on cpu (pid -1: everything that runs on that CPU).
    void open_one(const PmuEvent& event, Channel channel, int cpu) {
        perf_event_attr attr{};
        attr.size = sizeof attr;
        attr.type = m_pmu.type;
        attr.config = event.config;
        const int fd = m_api.open(&attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd >= 0) {
            m_channels.push_back(std::move(channel));
            m_counters.push_back(Counter{fd, event.joules_per_count, cpu});
            return;
        }
        const int err = errno;
        if (err == EACCES || err == EPERM) {
            m_denied = true;
            m_out.unreadable.emplace_back("perf_rapl",
                                          fmt::format("power PMU ({} on cpu {})", event.name, cpu),
                                          std::strerror(err), paranoid_hint(m_host), channel.name);
            return;
        }
        m_out.notes.push_back(
            fmt::format("perf_rapl: {} on cpu {}: {}", event.name, cpu, std::strerror(err)));
    }

    const PerfApi& m_api;
    const Pmu& m_pmu;
    const Host& m_host;
    Discovery& m_out;
    std::vector<Channel> m_channels;
    std::vector<Counter> m_counters;
    bool m_denied = false;
};

// The counters sampled in the kernel where that works and is not turned off, else read from
// the sampler's timer; a note says which, and out.timer_instead why not in the kernel.
std::unique_ptr<Sensor>
reader_for(std::unique_ptr<PerfRaplSensor> counters, const Host& host, Discovery& out) {
    if (host.config != nullptr && !host.config->kernel_sampling) {
        out.timer_instead = "[sensors.perf_rapl] kernel_sampling = false";
    } else if (host.perf != nullptr) {
        out.timer_instead = "a stand-in perf API";
    }
    if (!out.timer_instead.empty()) {
        out.notes.push_back(fmt::format("perf_rapl: read from a timer ({})", out.timer_instead));
        return counters;
    }
    auto sensor = sample_in_kernel(std::move(counters), 0, out.timer_instead);
    out.notes.push_back(out.timer_instead.empty()
                            ? std::string{"perf_rapl: sampled in the kernel (eBPF)"}
                            : "perf_rapl: read from a timer: " + out.timer_instead);
    return sensor;
}

std::vector<std::string_view> event_names() {
    std::vector<std::string_view> names;
    names.reserve(k_events.size());
    for (const auto& row : k_events) {
        names.push_back(row.event);
    }
    return names;
}

} // namespace

Discovery discover(const Host& host) {
    Discovery out;
    const auto dir = sys::under_root(host.sysfs_root, "/sys/bus/event_source/devices/power");
    auto pmu = read_pmu(dir, event_names(), out.notes);
    if (!pmu) {
        out.notes.push_back(pmu.error().kind == ErrorKind::not_found
                                ? fmt::format("perf_rapl: no power PMU ({})", dir.string())
                                : "perf_rapl: " + pmu.error().message());
        return out;
    }
    if (pmu->events.empty()) {
        out.notes.push_back(fmt::format("perf_rapl: no energy events in {}/events", dir.string()));
        return out;
    }
    const PerfApi& api = host.perf != nullptr ? *host.perf : real_perf_api();
    Opener opener{api, *pmu, host, out};
    opener.open_all();
    if (auto sensor = opener.sensor()) {
        out.sensors.push_back(reader_for(std::move(sensor), host, out));
    }
    return out;
}

} // namespace jp::sensors::perf_rapl

namespace jp::sensors {
namespace {

int real_open(perf_event_attr* attr, int pid, int cpu, int group_fd, unsigned long flags) {
    return static_cast<int>(::syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags));
}

// A counting event without read_format flags reads as one u64.
int real_read_count(int fd, std::uint64_t* count) {
    ssize_t n = 0;
    do {
        n = ::read(fd, count, sizeof *count);
    } while (n < 0 && errno == EINTR);
    if (n == static_cast<ssize_t>(sizeof *count)) {
        return 0;
    }
    if (n >= 0) {
        errno = EIO; // a short read
    }
    return -1;
}

int real_close(int fd) {
    return ::close(fd);
}

} // namespace

const PerfApi& real_perf_api() noexcept {
    static const PerfApi api{real_open, real_read_count, real_close};
    return api;
}

} // namespace jp::sensors
