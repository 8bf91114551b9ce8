// SPDX-License-Identifier: BSD-3-Clause
#include "core/channel.hpp"

#include <array>
#include <string>
#include <utility>

namespace jp {
namespace {

constexpr std::array k_domains{
    std::pair{Domain::node, std::string_view{"node"}},
    std::pair{Domain::cpu_package, std::string_view{"cpu_package"}},
    std::pair{Domain::cpu_core, std::string_view{"cpu_core"}},
    std::pair{Domain::cpu_uncore, std::string_view{"cpu_uncore"}},
    std::pair{Domain::dram, std::string_view{"dram"}},
    std::pair{Domain::gpu, std::string_view{"gpu"}},
    std::pair{Domain::psys, std::string_view{"psys"}},
    std::pair{Domain::other, std::string_view{"other"}},
};
constexpr std::array k_quantities{
    std::pair{Quantity::energy, std::string_view{"energy"}},
    std::pair{Quantity::power, std::string_view{"power"}},
    std::pair{Quantity::utilization, std::string_view{"utilization"}},
};
constexpr std::array k_provenances{
    std::pair{Provenance::measured, std::string_view{"measured"}},
    std::pair{Provenance::derived, std::string_view{"derived"}},
    std::pair{Provenance::estimated, std::string_view{"estimated"}},
};

template <class Table, class E> std::string_view name_of(const Table& table, E value) {
    for (const auto& [v, n] : table) {
        if (v == value) {
            return n;
        }
    }
    return "?";
}

template <class E, class Table> std::optional<E> value_of(const Table& table, std::string_view s) {
    for (const auto& [v, n] : table) {
        if (n == s) {
            return v;
        }
    }
    return std::nullopt;
}

} // namespace

std::string_view to_string(Domain d) {
    return name_of(k_domains, d);
}
std::string_view to_string(Quantity q) {
    return name_of(k_quantities, q);
}
std::string_view to_string(Provenance p) {
    return name_of(k_provenances, p);
}
std::optional<Domain> domain_from_string(std::string_view s) {
    return value_of<Domain>(k_domains, s);
}
std::optional<Quantity> quantity_from_string(std::string_view s) {
    return value_of<Quantity>(k_quantities, s);
}
std::optional<Provenance> provenance_from_string(std::string_view s) {
    return value_of<Provenance>(k_provenances, s);
}

std::string_view unit_of(Quantity q) {
    switch (q) {
    case Quantity::energy:
        return "J";
    case Quantity::power:
        return "W";
    case Quantity::utilization:
        return "%";
    }
    return "?";
}

bool is_mean_since_previous(const Channel& c) noexcept {
    return c.quantity == Quantity::power &&
           ((c.backend == "estimate" && c.domain == Domain::cpu_package) ||
            c.averaging_ns.has_value());
}

std::string not_summed_reason(std::string_view parent, std::string_view backend) {
    if (!parent.empty()) {
        return "within " + std::string{parent};
    }
    if (backend == "slurm") {
        return "Slurm's own figure, for comparison";
    }
    return "another channel covers it";
}

} // namespace jp
