// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/registry.hpp"

#include "bpf/kernel_sampler.hpp"
#include "config/config.hpp"
#include "sensors/estimate/estimate.hpp"
#include "sensors/hwmon/hwmon.hpp"
#include "sensors/ipmi/ipmi.hpp"
#include "sensors/jouleprofd/jouleprofd.hpp"
#include "sensors/nvml/nvml.hpp"
#include "sensors/perf_rapl/perf_rapl.hpp"
#include "sensors/pm_counters/pm_counters.hpp"
#include "sensors/powercap/powercap.hpp"
#include "sensors/redfish/redfish.hpp"
#include "sensors/replay/replay.hpp"
#include "sensors/rocm_smi/rocm_smi.hpp"
#include "sensors/slurm/slurm.hpp"

#include <algorithm>
#include <array>
#include <set>

namespace jp::sensors {
namespace {

// Order is preference: an earlier backend wins when two see the same device.
constexpr std::array k_backends{
    Backend{"replay", "plays a recorded trace back as live channels", replay::discover, false},
    Backend{"powercap", "Intel/AMD RAPL through /sys/class/powercap", powercap::discover, false},
    Backend{"perf_rapl", "RAPL through the perf_event power PMU", perf_rapl::discover, false},
    Backend{"nvml", "NVIDIA GPUs through NVML (dlopen)", nvml::discover, false},
    Backend{"rocm_smi", "AMD GPUs through ROCm SMI (dlopen)", rocm_smi::discover, false},
    Backend{"pm_counters", "HPE Cray /sys/cray/pm_counters", pm_counters::discover, false},
    Backend{"hwmon", "hwmon power/energy (power meters, amdgpu)", hwmon::discover, false},
    Backend{"ipmi", "the BMC over IPMI: Lenovo XCC energy, DCMI power, SDR watts", ipmi::discover,
            false},
    Backend{"redfish", "the BMC over Redfish (HTTPS): chassis power and energy", redfish::discover,
            false},
    Backend{"slurm", "Slurm's own node energy (what sacct bills)", slurm::discover, false},
    Backend{"jouleprofd", "what this user cannot read, served by the node daemon", nullptr, false,
            jouleprofd::discover},
    Backend{"estimate", "CPU/DRAM model from utilisation (no measurement)", estimate::discover,
            true},
};

bool enabled(const Host& host, std::string_view name) {
    if (host.config == nullptr) {
        return true;
    }
    return !host.config->disabled.contains(name);
}

// Domains covered by measured channels: a fallback sensor adds nothing there.
std::set<Domain> measured_domains(const Discovery& d) {
    std::set<Domain> out;
    for (const auto& s : d.sensors) {
        for (const auto& c : s->channels()) {
            if (c.provenance == Provenance::measured && c.quantity != Quantity::utilization) {
                out.insert(c.domain);
            }
        }
    }
    return out;
}

bool has_backend(const Discovery& d, std::string_view name) {
    return std::ranges::any_of(d.sensors, [&](const auto& s) { return s->backend() == name; });
}

void append(Discovery& into, Discovery&& from) {
    for (auto& s : from.sensors) {
        into.sensors.push_back(std::move(s));
    }
    for (auto& f : from.unreadable) {
        into.unreadable.push_back(std::move(f));
    }
    for (auto& n : from.notes) {
        into.notes.push_back(std::move(n));
    }
    into.idle.merge(from.idle);
    if (from.ledger) {
        into.ledger = std::move(from.ledger);
    }
}

// An earlier backend's counted channel that already covers c: the same device
// (a GPU's PCI address, a RAPL domain), or, when c names no device (pm_counters'
// cpu/memory/accel aggregates, a second node meter), the same domain.
const Channel* overlapping(const std::vector<Channel>& table, const Channel& c) {
    if (c.quantity == Quantity::utilization) {
        return nullptr;
    }
    for (const auto& earlier : table) {
        if (!earlier.counted || earlier.backend == c.backend ||
            earlier.quantity == Quantity::utilization) {
            continue;
        }
        const bool same_device = !c.device.empty() && earlier.device == c.device;
        const bool same_domain = c.device.empty() && earlier.domain == c.domain;
        if (same_device || same_domain) {
            return &earlier;
        }
    }
    return nullptr;
}

std::vector<Channel> channels_of(const Discovery& d) {
    std::vector<Channel> out;
    for (const auto& s : d.sensors) {
        out.insert(out.end(), s->channels().begin(), s->channels().end());
    }
    return out;
}

// Unreadable channels that a later backend serves after all.
void mark_served(std::vector<Finding>& unreadable, const Discovery& found, std::string_view by) {
    for (auto& f : unreadable) {
        for (const auto& s : found.sensors) {
            const auto chans = s->channels();
            if (!f.channel.empty() &&
                std::ranges::find(chans, f.channel, &Channel::name) != chans.end()) {
                f.served_by = by;
            }
        }
    }
}

// powercap's RAPL zones are sysfs files, read from the sampler's timer; the same counters
// through perf can be sampled in the kernel (docs/kernel-sampling.md). Where root can do that,
// perf_rapl serves every RAPL counter powercap found instead, and powercap's sensors that
// hold nothing else are dropped. False (nothing changed) where it cannot, with why in why_not
// where perf_rapl's discovery said (a refusal: root, yet no CAP_BPF or a seccomp filter).
bool sampled_in_kernel_instead(const Host& host,
                               const Backend& perf,
                               Discovery& all,
                               std::string& why_not) {
    if (!host.is_root || (host.config != nullptr && !host.config->kernel_sampling) ||
        !bpf::built_in()) {
        return false;
    }
    Discovery found = perf.discover(host);
    if (found.sensors.size() != 1 || !found.sensors.front()->batched()) {
        // Why not, where it said; else what its discovery found (no power PMU, no events).
        why_not = !found.timer_instead.empty() || found.notes.empty() ? found.timer_instead
                                                                      : found.notes.back();
        return false;
    }
    std::set<std::string> served;
    for (const auto& c : found.sensors.front()->channels()) {
        served.insert(c.device);
    }
    const auto covered = [&](const std::unique_ptr<Sensor>& s) {
        return s->backend() == "powercap" &&
               std::ranges::all_of(s->channels(),
                                   [&](const Channel& c) { return served.contains(c.device); });
    };
    if (!std::ranges::any_of(all.sensors, covered)) {
        return false; // powercap found other zones than perf's: keep its view whole
    }
    std::erase_if(all.sensors, covered);
    all.notes.emplace_back(
        "powercap: RAPL read through perf_rapl instead, sampled in the kernel (eBPF)");
    append(all, std::move(found));
    return true;
}

} // namespace

std::span<const Backend> backends() noexcept {
    return k_backends;
}

Discovery discover_all(const Host& host) {
    Discovery all;
    const bool replaying = !host.replay_trace.empty();
    for (const auto& backend : k_backends) {
        if (!enabled(host, backend.name) || (replaying != (backend.name == "replay"))) {
            continue;
        }
        if (backend.name == "perf_rapl" && has_backend(all, "powercap")) {
            if (std::string why; !sampled_in_kernel_instead(host, backend, all, why)) {
                all.notes.push_back(
                    why.empty() ? std::string{"perf_rapl: not needed, powercap RAPL is readable"}
                                : "perf_rapl: not needed, powercap RAPL is readable from a "
                                  "timer; not sampled in the kernel: " +
                                      why);
            }
            continue;
        }
        Discovery found = backend.discover_beside != nullptr
                              ? backend.discover_beside(host, channels_of(all))
                              : backend.discover(host);
        if (backend.fallback) {
            const auto covered = measured_domains(all);
            std::erase_if(found.sensors, [&](const std::unique_ptr<Sensor>& s) {
                return std::ranges::all_of(s->channels(), [&](const Channel& c) {
                    return covered.contains(c.domain) || covered.contains(Domain::psys);
                });
            });
        }
        mark_served(all.unreadable, found, backend.name);
        append(all, std::move(found));
    }
    return all;
}

std::vector<Channel> channel_table(std::span<const std::unique_ptr<Sensor>> sensors) {
    std::vector<Channel> table;
    for (const auto& s : sensors) {
        for (const auto& c : s->channels()) {
            Channel copy = c;
            if (copy.counted) {
                if (const Channel* first = overlapping(table, copy)) {
                    copy.counted = false;
                    copy.parent = first->name;
                }
            }
            table.push_back(std::move(copy));
        }
    }
    // Names must be unique in a trace.
    std::set<std::string> seen;
    for (auto& c : table) {
        std::string name = c.name;
        for (int i = 2; !seen.insert(name).second; ++i) {
            name = c.name + "#" + std::to_string(i);
        }
        c.name = name;
    }
    return table;
}

} // namespace jp::sensors
