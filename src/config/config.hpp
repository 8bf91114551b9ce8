// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// User configuration (TOML): the node model and per-backend overrides.
#include "config/sources_config.hpp"
#include "core/duration.hpp"
#include "core/error.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace jp {

// What we know of the node that no sensor tells.
struct NodeModel {
    std::optional<std::string> name;           // node type, e.g. "gpu-node" (`jouleprof study`)
    std::optional<double> rated_watts;         // nameplate / PSU rating of the whole node
    std::optional<double> rest_watts;          // constant power of the parts no sensor sees
    std::optional<std::string> cpu_model;      // overrides /proc/cpuinfo's model name
    std::optional<double> cpu_tdp_watts;       // per socket, overrides the model table
    std::optional<double> cpu_idle_fraction;   // idle power as a fraction of TDP
    std::optional<int> cpu_threads_per_socket; // threads of a full socket, to scale VMs
    std::optional<double> dram_watts_per_gib;  // DRAM power per GiB of memory
};

// Converting energy into emissions and cost; nothing is printed unless set.
struct CarbonConfig {
    std::optional<double> intensity_g_per_kwh; // grid carbon intensity, g CO2e per kWh
    std::optional<double> pue;                 // facility power usage effectiveness (>= 1)
    std::optional<double> price_per_kwh;       // energy price per kWh, in `currency`
    std::optional<std::string> currency;       // e.g. "EUR"; printed after the cost
    [[nodiscard]] bool any() const noexcept { return intensity_g_per_kwh || pue || price_per_kwh; }
};

// Report defaults; command-line options override them.
struct ReportConfig {
    std::optional<double> idle_util_percent; // a GPU at or below this mean utilisation is idle
    std::optional<double> threshold_watts;   // report time with node power above this
};

// Splitting a shared node's energy between jobs (docs/attribution.md).
struct AttributionConfig {
    bool enabled = true; // false: node figures only, no cgroup made for the job
    // How the job's CPU time is read: "auto" (attrib/job_cpu.hpp's order), "cgroup-v1",
    // "cgroup-v2" or "process-tree" (the one asked for, else the process tree).
    std::string job_cpu = "auto";
    // Idle power per channel ("cpu0.package", "gpu1") and "rest" (the node's parts no
    // sensor sees), in watts: the part of each channel's power given out by allocation.
    std::map<std::string, double, std::less<>> idle_watts;
};

struct Config {
    NodeModel node;
    AttributionConfig attribution;
    CarbonConfig carbon;
    ReportConfig report;
    std::map<std::string, Nanos, std::less<>> intervals; // backend name -> sampling interval
    // [sensors.nvml] anchor: how often a GPU's energy counter is read between the job's
    // edges when its cheap power field profiles the time in between; 0 ("off"): the
    // counter at the sampling interval, no field. Absent: the backend's default (10 s).
    std::optional<Nanos> nvml_anchor;
    // [sensors.perf_rapl] kernel_sampling: sample its counters in the kernel with eBPF where
    // that works (root, jouleprofd); drain: how often those readings are collected.
    bool kernel_sampling = true;
    std::optional<Nanos> kernel_drain;
    std::set<std::string, std::less<>> disabled; // backend names not to use
    std::optional<std::string> nvml_library;
    std::optional<std::string> rocm_library;
    std::optional<std::filesystem::path> sysfs_root;
    std::optional<std::filesystem::path> daemon_socket; // [sensors.jouleprofd] socket
    std::optional<IpmiConfig> ipmi;                     // [sensors.ipmi], when present
    std::optional<RedfishConfig> redfish;               // [sensors.redfish], when present
    std::optional<SlurmConfig> slurm;                   // [sensors.slurm], when present
    std::filesystem::path source;                       // file it came from, for messages
};

// Parses a TOML config file; errors name the file, line, table, key and
// problem. Unknown tables and keys, wrong types, NaN and infinities are errors.
[[nodiscard]] Result<Config> load_config(const std::filesystem::path& path);
[[nodiscard]] Result<Config> parse_config(std::string_view toml_text, std::string_view origin);

} // namespace jp
