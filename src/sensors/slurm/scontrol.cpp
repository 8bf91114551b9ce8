// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/slurm/scontrol.hpp"

#include "sys/file.hpp"

#include <charconv>
#include <cmath>

namespace jp::sensors::slurm {
namespace {

constexpr std::int64_t k_max_node_freq_s = 65535; // AcctGatherNodeFreq is a uint16_t

// The value of `key=` in a line of space-separated key=value pairs.
std::optional<std::string_view> field(std::string_view text, std::string_view key) {
    std::size_t at = 0;
    while ((at = text.find(key, at)) != std::string_view::npos) {
        const bool starts = at == 0 || text[at - 1] == ' ' || text[at - 1] == '\n';
        const auto after = at + key.size();
        if (starts && after < text.size() && text[after] == '=') {
            const auto end = text.find_first_of(" \n", after + 1);
            return text.substr(after + 1, end == std::string_view::npos ? std::string_view::npos
                                                                        : end - after - 1);
        }
        at = after;
    }
    return std::nullopt;
}

std::optional<double> number(std::optional<std::string_view> v) {
    if (!v || v->empty()) {
        return std::nullopt;
    }
    double d = 0;
    const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), d);
    if (ec != std::errc{} || end != v->data() + v->size() || !std::isfinite(d) || d < 0) {
        return std::nullopt; // "n/a", "n/s", garbage
    }
    return d;
}

} // namespace

EnergyConfig parse_config(std::string_view text) {
    EnergyConfig out;
    // Lines "AcctGatherEnergyType    = acct_gather_energy/rapl".
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto eol = text.find('\n', pos);
        const auto line =
            text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
        pos = eol == std::string_view::npos ? text.size() : eol + 1;
        const auto eq = line.find('=');
        if (eq == std::string_view::npos) {
            continue;
        }
        const auto key = sys::trim(line.substr(0, eq));
        const auto value = sys::trim(line.substr(eq + 1));
        if (key == "AcctGatherEnergyType") {
            out.plugin = std::string{value};
        } else if (key == "AcctGatherNodeFreq") {
            // "5 sec"; 0 means slurmd does not poll the node on its own. Slurm keeps
            // the period in 16 bits: a larger figure is not Slurm's (and would overflow).
            std::int64_t s = 0;
            const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), s);
            if (ec == std::errc{} && s > 0 && s <= k_max_node_freq_s && end != value.data()) {
                out.node_ns = s * 1'000'000'000;
            }
        }
    }
    return out;
}

NodeEnergy parse_node(std::string_view text) {
    NodeEnergy out;
    out.found = field(text, "NodeName").has_value();
    if (!out.found) {
        return out;
    }
    out.current_watts = number(field(text, "CurrentWatts"));
    out.ave_watts = number(field(text, "AveWatts"));
    out.consumed_joules = number(field(text, "ConsumedJoules"));
    return out;
}

std::optional<double> parse_step_energy(std::string_view text) {
    // One line per step; the first non-empty one is ours (sstat was given one step).
    const auto line = sys::trim(text.substr(0, text.find('\n')));
    return number(line);
}

std::string step_name(std::string_view job_id, std::string_view step_id) {
    const auto job = sys::parse_u64(job_id);
    const auto step = sys::parse_u64(step_id);
    if (!job || !step || *job == 0) {
        return {};
    }
    // Slurm's special step ids (slurm.h): SLURM_BATCH_SCRIPT, SLURM_EXTERN_CONT.
    if (*step == 0xFFFFFFFBULL) {
        return std::to_string(*job) + ".batch";
    }
    if (*step == 0xFFFFFFFCULL) {
        return std::to_string(*job) + ".extern";
    }
    if (*step >= 0xFFFFFFF0ULL) {
        return {};
    }
    return std::to_string(*job) + "." + std::to_string(*step);
}

} // namespace jp::sensors::slurm
