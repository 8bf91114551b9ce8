// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/hwmon/attributes.hpp"

#include "sys/file.hpp"

#include <array>
#include <charconv>
#include <fmt/format.h>
#include <map>
#include <optional>

namespace jp::sensors::hwmon {
namespace {

// Documentation/hwmon/sysfs-interface.rst: power in µW, energy in µJ (cumulative).
constexpr std::array k_attributes{
    AttributeKind{"energy", "_input", 1e-6, Quantity::energy},
    AttributeKind{"power", "_input", 1e-6, Quantity::power},
    AttributeKind{"power", "_average", 1e-6, Quantity::power},
};

// Lower wins for one index: energy first, then the preferred power attribute.
int rank(const AttributeKind& kind, PowerPreference pref) {
    if (kind.quantity == Quantity::energy) {
        return 0;
    }
    const bool average = kind.suffix == "_average";
    return average == (pref == PowerPreference::average_first) ? 1 : 2;
}

// "power12_average" -> {row, 12}; anything else (power1_average_interval,
// power1_cap, energy1_label) matches no row.
std::optional<Attribute> match(std::string_view file) {
    for (const auto& kind : k_attributes) {
        if (!file.starts_with(kind.prefix) || !file.ends_with(kind.suffix)) {
            continue;
        }
        const auto digits =
            file.substr(kind.prefix.size(), file.size() - kind.prefix.size() - kind.suffix.size());
        unsigned index = 0;
        const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
        if (ec == std::errc{} && ptr == digits.data() + digits.size() && !digits.empty()) {
            return Attribute{&kind, index, std::string{file}, {}};
        }
    }
    return std::nullopt;
}

bool disabled(const std::filesystem::path& dir, const Attribute& a) {
    auto enable = sys::read_u64(dir / (a.base() + "_enable"));
    return enable && *enable == 0;
}

} // namespace

std::string Attribute::base() const {
    return fmt::format("{}{}", kind->prefix, index);
}

std::vector<Attribute> scan_attributes(const std::filesystem::path& dir, PowerPreference pref) {
    std::map<unsigned, Attribute> best; // by index
    for (const auto& file : sys::list_dir(dir)) {
        auto a = match(file);
        if (!a || disabled(dir, *a)) {
            continue;
        }
        auto [it, inserted] = best.try_emplace(a->index, *a);
        if (!inserted && rank(*a->kind, pref) < rank(*it->second.kind, pref)) {
            it->second = std::move(*a);
        }
    }
    std::vector<Attribute> out;
    for (auto& [index, a] : best) {
        if (auto label = sys::read_trimmed(dir / (a.base() + "_label"))) {
            a.label = std::move(*label);
        }
        out.push_back(std::move(a));
    }
    return out;
}

} // namespace jp::sensors::hwmon
