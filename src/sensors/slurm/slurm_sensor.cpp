// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/slurm/slurm_sensor.hpp"

#include "core/log.hpp"
#include "sensors/slurm/scontrol.hpp"
#include "sys/command.hpp"
#include "sys/file.hpp"

namespace jp::sensors::slurm {
namespace {

// A tool's complaint, as one line.
std::string first_line(const std::string& err) {
    const auto line = sys::trim(std::string_view{err}.substr(0, err.find('\n')));
    return line.empty() ? std::string{"failed without a message"} : std::string{line};
}

} // namespace

SlurmSensor::SlurmSensor(std::vector<Channel> channels, Commands commands, Nanos poll)
    : m_channels(std::move(channels)), m_commands(std::move(commands)), m_poll(poll) {
    m_node_is_energy = !m_commands.node.empty() && !m_channels.empty() &&
                       m_channels.front().quantity == Quantity::energy;
}

void SlurmSensor::said(const std::string& what) noexcept {
    if (!m_warned) { // once per run of the tool's failures, not at every poll
        m_warned = true;
        try {
            JP_LOG_WARN("slurm: {}", what);
        } catch (...) { // NOLINT(bugprone-empty-catch): logging must not end the read
        }
    }
}

Value SlurmSensor::read_node() noexcept {
    try {
        auto r = sys::run_command(m_commands.node, m_commands.timeout);
        if (!r || r->exit_code != 0) {
            said(r ? "scontrol show node: " + first_line(r->err) : r.error().message());
            return {0, ReadStatus::retry};
        }
        const auto node = parse_node(r->out);
        const auto v = m_node_is_energy ? node.consumed_joules : node.current_watts;
        if (!v) {
            said("scontrol show node printed no " +
                 std::string{m_node_is_energy ? "ConsumedJoules" : "CurrentWatts"});
            return {0, ReadStatus::retry};
        }
        m_warned = false;
        return {*v, ReadStatus::ok};
    } catch (...) {
        return {0, ReadStatus::retry};
    }
}

Value SlurmSensor::read_step() noexcept {
    try {
        auto r = sys::run_command(m_commands.step, m_commands.timeout);
        if (!r || r->exit_code != 0) {
            said(r ? "sstat: " + first_line(r->err) : r.error().message());
            return {0, ReadStatus::retry};
        }
        const auto j = parse_step_energy(r->out);
        if (!j) {
            said("sstat printed no ConsumedEnergyRaw for the step");
            return {0, ReadStatus::retry};
        }
        return {*j, ReadStatus::ok};
    } catch (...) {
        return {0, ReadStatus::retry};
    }
}

void SlurmSensor::read(std::span<Value> out) noexcept {
    std::size_t i = 0;
    if (!m_commands.node.empty() && i < out.size()) {
        out[i++] = read_node();
    }
    if (!m_commands.step.empty() && i < out.size()) {
        out[i++] = read_step();
    }
}

} // namespace jp::sensors::slurm
