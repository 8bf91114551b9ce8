// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A channel is one measurable quantity exposed by a sensor: passive data, public fields.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jp {

enum class Domain : std::uint8_t {
    node,
    cpu_package,
    cpu_core,
    cpu_uncore,
    dram,
    gpu,
    psys,
    other
};

// energy: a cumulative counter in joules (raw, may wrap); power: watts;
// utilization: percent busy (0..100), used to name idle accelerators.
enum class Quantity : std::uint8_t { energy, power, utilization };

enum class Provenance : std::uint8_t { measured, derived, estimated };

struct Channel {
    std::string name; // stable: "cpu0.package", "cpu0.dram", "gpu1", "node"
    Domain domain = Domain::other;
    Quantity quantity = Quantity::power;
    Provenance provenance = Provenance::measured;
    std::string backend; // "powercap", "nvml", ...
    std::string source;  // path or device id the value comes from
    std::string device;  // identity used for de-duplication across backends (PCI bus id), or ""
    std::optional<double> wrap_joules; // counter range for energy counters that wrap
    std::optional<double> limit_watts; // power limit / rating the sensor reports, if any
    // The most the domain may draw, when the sensor says (RAPL: the highest of its
    // constraints' limits and maxima); bounds what a counter may plausibly gain.
    std::optional<double> max_watts;
    // How often the source itself changes the value, when the backend knows
    // (RAPL ~1 ms, pm_counters 100 ms); reports learn it from the readings otherwise.
    std::optional<std::int64_t> update_ns;
    // The window the source averages each power reading over, when it says
    // (a BMC's DCMI reading: "1 s averages"); the profile cannot be finer.
    std::optional<std::int64_t> averaging_ns;
    // A power reading that is the mean since the previous reading (the CPU
    // estimate's utilisation, a BMC's averaged DCMI reading), not a value at its
    // instant: it holds for the interval before it, and the first reading of a
    // run covers none of the run.
    bool mean_since_previous = false;
    // False when the domain is already contained in another counted channel
    // (core within package, package within psys, a duplicate die counter).
    bool counted = true;
    std::string parent; // name of the containing channel, if any
    // A power channel read often and cheaply as the profile of an energy counter that
    // is read only at anchors (an NVIDIA GPU's power field beside its energy counter,
    // which costs milliseconds per read): the counter's name. Reports scale the profile
    // to the counter's delta over each span between two anchors (report/anchored.hpp).
    std::string profile_of;
};

[[nodiscard]] std::string_view to_string(Domain d);
[[nodiscard]] std::string_view to_string(Quantity q);
[[nodiscard]] std::string_view to_string(Provenance p);
[[nodiscard]] std::optional<Domain> domain_from_string(std::string_view s);
[[nodiscard]] std::optional<Quantity> quantity_from_string(std::string_view s);
[[nodiscard]] std::optional<Provenance> provenance_from_string(std::string_view s);
[[nodiscard]] std::string_view unit_of(Quantity q); // "J", "W", "%"
// Why a channel with counted = false is shown but not added to the node:
// "within cpu0.package", or Slurm's own figure kept for comparison.
[[nodiscard]] std::string not_summed_reason(std::string_view parent, std::string_view backend);
// mean_since_previous for a channel that comes without it (a trace's, the daemon's): the CPU
// estimate's utilisation, and every power reading averaged over a window the source names.
[[nodiscard]] bool is_mean_since_previous(const Channel& c) noexcept;

} // namespace jp
