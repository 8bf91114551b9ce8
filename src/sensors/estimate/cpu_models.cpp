// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/estimate/cpu_models.hpp"

#include <algorithm>
#include <array>

namespace jp::sensors::estimate {
namespace {

constexpr std::string_view k_intel = "Intel specification";
constexpr std::string_view k_amd = "AMD specification";
constexpr std::string_view k_ampere = "Ampere specification";
constexpr std::string_view k_grace = "NVIDIA specification: 500 W per 2-CPU Superchip incl. memory";

// Keep in step with docs/cpu-models.md. A row's match must not match another row's
// product (tests check every row finds itself); suffixed variants with other
// figures (8380H, 7543P) need rows of their own.
constexpr std::array k_table{
    // Intel Xeon Scalable, 3rd generation (Ice Lake-SP); the 8368 is HoreKa's CPU.
    CpuModelRow{"Platinum 8368", "Intel Xeon Platinum 8368", 270, 76, k_intel},
    CpuModelRow{"Platinum 8368Q", "Intel Xeon Platinum 8368Q", 270, 76, k_intel},
    CpuModelRow{"Platinum 8380", "Intel Xeon Platinum 8380", 270, 80, k_intel},
    CpuModelRow{"Platinum 8360Y", "Intel Xeon Platinum 8360Y", 250, 72, k_intel},
    CpuModelRow{"Platinum 8358", "Intel Xeon Platinum 8358", 250, 64, k_intel},
    CpuModelRow{"Gold 6348", "Intel Xeon Gold 6348", 235, 56, k_intel},
    CpuModelRow{"Gold 6330", "Intel Xeon Gold 6330", 205, 56, k_intel},
    // 4th generation (Sapphire Rapids); the 8480C is the DGX H100's CPU.
    CpuModelRow{"Platinum 8480+", "Intel Xeon Platinum 8480+", 350, 112, k_intel},
    CpuModelRow{"Platinum 8480C", "Intel Xeon Platinum 8480C", 350, 112, k_intel},
    CpuModelRow{"Platinum 8470", "Intel Xeon Platinum 8470", 350, 104, k_intel},
    CpuModelRow{"Platinum 8490H", "Intel Xeon Platinum 8490H", 350, 120, k_intel},
    // 1st and 2nd generation (Skylake-SP, Cascade Lake-SP).
    CpuModelRow{"Platinum 8280", "Intel Xeon Platinum 8280", 205, 56, k_intel},
    CpuModelRow{"Platinum 8268", "Intel Xeon Platinum 8268", 205, 48, k_intel},
    CpuModelRow{"Platinum 8180", "Intel Xeon Platinum 8180", 205, 56, k_intel},
    CpuModelRow{"Gold 6248", "Intel Xeon Gold 6248", 150, 40, k_intel},
    CpuModelRow{"Gold 6230", "Intel Xeon Gold 6230", 125, 40, k_intel},
    CpuModelRow{"Gold 6154", "Intel Xeon Gold 6154", 200, 36, k_intel},
    // Broadwell-EP, still common in older clusters.
    CpuModelRow{"E5-2680 v4", "Intel Xeon E5-2680 v4", 120, 28, k_intel},
    // AMD EPYC 7002 (Rome) and 7003 (Milan).
    CpuModelRow{"EPYC 7763", "AMD EPYC 7763", 280, 128, k_amd},
    CpuModelRow{"EPYC 7713", "AMD EPYC 7713", 225, 128, k_amd},
    CpuModelRow{"EPYC 7713P", "AMD EPYC 7713P", 225, 128, k_amd},
    CpuModelRow{"EPYC 7543", "AMD EPYC 7543", 225, 64, k_amd},
    CpuModelRow{"EPYC 7H12", "AMD EPYC 7H12", 280, 128, k_amd},
    CpuModelRow{"EPYC 7742", "AMD EPYC 7742", 225, 128, k_amd},
    CpuModelRow{"EPYC 7702", "AMD EPYC 7702", 200, 128, k_amd},
    CpuModelRow{"EPYC 7502", "AMD EPYC 7502", 180, 64, k_amd},
    CpuModelRow{"EPYC 7502P", "AMD EPYC 7502P", 180, 64, k_amd},
    CpuModelRow{"EPYC 7452", "AMD EPYC 7452", 155, 64, k_amd},
    // AMD EPYC 9004 (Genoa).
    CpuModelRow{"EPYC 9654", "AMD EPYC 9654", 360, 192, k_amd},
    CpuModelRow{"EPYC 9554", "AMD EPYC 9554", 360, 128, k_amd},
    CpuModelRow{"EPYC 9534", "AMD EPYC 9534", 280, 128, k_amd},
    CpuModelRow{"EPYC 9454", "AMD EPYC 9454", 290, 96, k_amd},
    // Arm: the kernel prints no model name on arm64, so these rows are reached through
    // the config's cpu_model (see README.md).
    CpuModelRow{"Altra Q80-30", "Ampere Altra Q80-30", 210, 80, k_ampere},
    CpuModelRow{"Altra Max M128-30", "Ampere Altra Max M128-30", 250, 128, k_ampere},
    CpuModelRow{"Grace", "NVIDIA Grace (72 cores)", 250, 72, k_grace},
};

static_assert(k_table.size() >= 20 && k_table.size() <= 40);

constexpr bool plausible(const CpuModelRow& r) {
    return r.tdp_watts > 0 && r.threads_per_socket > 0 && !r.match.empty() && !r.source.empty();
}
static_assert([] { return std::ranges::all_of(k_table, plausible); }());

constexpr char lower(char c) noexcept {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
}

constexpr bool word_char(char c) noexcept {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '+';
}

bool equal_at(std::string_view text, std::size_t pos, std::string_view word) noexcept {
    for (std::size_t i = 0; i < word.size(); ++i) {
        if (lower(text[pos + i]) != lower(word[i])) {
            return false;
        }
    }
    return true;
}

// True when word occurs in text with no letter, digit or '+' right before or after it.
bool contains_word(std::string_view text, std::string_view word) noexcept {
    if (word.empty() || word.size() > text.size()) {
        return false;
    }
    for (std::size_t pos = 0; pos + word.size() <= text.size(); ++pos) {
        const bool starts = pos == 0 || !word_char(text[pos - 1]);
        const std::size_t end = pos + word.size();
        const bool ends = end == text.size() || !word_char(text[end]);
        if (starts && ends && equal_at(text, pos, word)) {
            return true;
        }
    }
    return false;
}

} // namespace

std::span<const CpuModelRow> cpu_model_table() noexcept {
    return k_table;
}

const CpuModelRow* find_cpu_model(std::string_view model_name) noexcept {
    for (const auto& row : k_table) {
        if (contains_word(model_name, row.match)) {
            return &row;
        }
    }
    return nullptr;
}

} // namespace jp::sensors::estimate
