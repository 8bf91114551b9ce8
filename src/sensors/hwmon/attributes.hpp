// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The hwmon attributes this backend reads, described as a table (file pattern,
// scale to SI, quantity) rather than in if-chains; see README.md beside this file.
#include "core/channel.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace jp::sensors::hwmon {

// One row of the table: files named "<prefix><N><suffix>", e.g. "power1_average".
struct AttributeKind {
    std::string_view prefix; // "power", "energy"
    std::string_view suffix; // "_input", "_average"
    double scale;            // raw integer × scale = SI unit (µW → W, µJ → J)
    Quantity quantity;
};

// Which power attribute wins when a device has both for one index.
enum class PowerPreference : std::uint8_t { input_first, average_first };

// A value file found in one device directory.
struct Attribute {
    const AttributeKind* kind = nullptr;
    unsigned index = 0; // N in "power<N>_input"
    std::string file;   // "power1_average"
    std::string label;  // content of "<prefix><N>_label", or ""

    // "power1": the stem shared with _label, _enable, _cap.
    [[nodiscard]] std::string base() const;
};

// The power/energy attributes of dir, at most one per index N, ordered by N.
// For one N an energy counter wins over power (a counter needs no integration);
// between power<N>_input and power<N>_average, pref decides. Attributes whose
// "<base>_enable" reads 0 are left out (they would return ENODATA).
[[nodiscard]] std::vector<Attribute> scan_attributes(const std::filesystem::path& dir,
                                                     PowerPreference pref);

} // namespace jp::sensors::hwmon
