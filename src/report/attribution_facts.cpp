// SPDX-License-Identifier: BSD-3-Clause
#include "report/attribution_facts.hpp"

#include "sys/file.hpp"

#include <nlohmann/json.hpp>

namespace jp::report {
namespace {

// Integers of a JSON array within [lo, hi] (a crafted trace must not reach a float-to-int
// conversion out of range, nor make us allocate without bound).
std::optional<std::vector<int>> ints(const nlohmann::json& j, int lo, int hi) {
    if (!j.is_array() || j.size() > 65536) {
        return std::nullopt;
    }
    std::vector<int> out;
    for (const auto& v : j) {
        if (!v.is_number_integer() || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi) {
            return std::nullopt;
        }
        out.push_back(static_cast<int>(v.get<std::int64_t>()));
    }
    return out;
}

std::optional<std::optional<std::uint64_t>> bytes(const nlohmann::json& j) {
    if (j.is_null()) {
        return std::optional<std::uint64_t>{};
    }
    if (!j.is_number_unsigned()) {
        return std::nullopt;
    }
    return std::optional{j.get<std::uint64_t>()};
}

} // namespace

std::optional<attrib::Allocation> allocation_from(const nlohmann::json& j) {
    constexpr int k_cpus = 65535;
    attrib::Allocation a;
    const auto cpus = ints(j.value("cpus", nlohmann::json{}), 0, k_cpus);
    const auto given = ints(j.value("given_cpus", nlohmann::json{}), 0, k_cpus);
    const auto total = bytes(j.value("memory_total", nlohmann::json{}));
    const auto mem = bytes(j.value("memory_given", nlohmann::json{}));
    const auto& gpus = j.value("gpus_given", nlohmann::json{});
    const auto gpu_list = gpus.is_null() ? std::optional<std::vector<int>>{} : ints(gpus, 0, 4096);
    const auto& packages = j.value("package_of", nlohmann::json::object());
    if (!cpus || !given || !total || !mem || (!gpus.is_null() && !gpu_list) ||
        !packages.is_object() || packages.size() > 65536) {
        return std::nullopt;
    }
    a.node_cpus = *cpus;
    a.given_cpus = *given;
    if (const auto& n = j.value("cpus_counted", nlohmann::json{}); !n.is_null()) {
        if (!n.is_number_unsigned() || n.get<std::uint64_t>() == 0 ||
            n.get<std::uint64_t>() > k_cpus) {
            return std::nullopt;
        }
        a.cpus_counted = static_cast<std::size_t>(n.get<std::uint64_t>());
    }
    a.memory_total = *total;
    a.memory_given = *mem;
    if (!gpus.is_null()) {
        a.gpus_given = *gpu_list;
    }
    for (const auto& [cpu, pkg] : packages.items()) {
        const auto id = sys::parse_u64(cpu);
        if (!id || *id > k_cpus || !pkg.is_number_integer() || pkg.get<std::int64_t>() < 0 ||
            pkg.get<std::int64_t>() > 4096) {
            return std::nullopt;
        }
        a.package_of[static_cast<int>(*id)] = static_cast<int>(pkg.get<std::int64_t>());
    }
    return a;
}

} // namespace jp::report
