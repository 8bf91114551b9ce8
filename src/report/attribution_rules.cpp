// SPDX-License-Identifier: BSD-3-Clause
#include "report/attribution_rules.hpp"

#include <charconv>
#include <fmt/format.h>
#include <optional>
#include <string_view>

namespace jp::report {
namespace {

// "cpu3.package" -> 3, "gpu2" -> 2 for prefix "gpu"; nullopt otherwise.
std::optional<int> index_after(std::string_view name, std::string_view prefix) {
    if (!name.starts_with(prefix)) {
        return std::nullopt;
    }
    name.remove_prefix(prefix.size());
    int v = -1;
    const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), v);
    if (ec != std::errc{} || end == name.data() ||
        (end != name.data() + name.size() && *end != '.')) {
        return std::nullopt;
    }
    return v;
}

} // namespace

ChannelRule rule_for(const Channel& c, const attrib::Allocation& a) {
    ChannelRule r;
    if (c.domain == Domain::gpu) {
        if (const auto idx = index_after(c.name, "gpu")) {
            r.gpu = true;
            r.gpu_index = *idx;
            r.given = a.holds_gpu(*idx) ? 1.0 : 0.0;
            r.by = r.given > 0 ? "the job's GPU" : "not the job's GPU";
            return r;
        }
        // A GPU without an index (hwmon's gpu.amdgpu.<pci>): never the job's by default.
        r.given = a.cpu_share(-1);
        r.by = "a GPU not matched to an index: split like the rest of the node";
        r.by_cpus = true;
        return r;
    }
    const auto pkg = index_after(c.name, "cpu");
    const bool on_package =
        pkg && (c.domain == Domain::cpu_package || c.domain == Domain::cpu_core ||
                c.domain == Domain::cpu_uncore || c.domain == Domain::dram);
    r.package = on_package ? *pkg : -1;
    if (c.domain == Domain::dram) {
        r.given = a.memory_share();
        r.by = on_package ? fmt::format("memory given; use by package {}'s CPU time", *pkg)
                          : "memory given; use by CPU time";
    } else {
        r.given = a.cpu_share(r.package);
        r.by = on_package ? fmt::format("package {}'s cores", *pkg) : "the node's cores";
        r.by_cpus = true;
    }
    return r;
}

} // namespace jp::report
