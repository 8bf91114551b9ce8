// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Slurm's own figures, read through its client tools: the node's power
// (scontrol show node) and the running step's energy (sstat), i.e. what
// sacct will bill, beside jouleprof's own measurement.
#include "sensors/sensor.hpp"

#include <string>
#include <vector>

namespace jp::sensors::slurm {

struct Commands {
    std::vector<std::string> node; // scontrol show node -o NAME; empty: no node channel
    std::vector<std::string> step; // sstat ... -j JOB.STEP; empty: no step channel
    Nanos timeout{std::chrono::seconds{5}};
};

class SlurmSensor final : public Sensor {
public:
    // channels: the node channel first (when commands.node is set), then the step's.
    SlurmSensor(std::vector<Channel> channels, Commands commands, Nanos poll);

    std::string_view backend() const noexcept override { return "slurm"; }
    std::span<const Channel> channels() const noexcept override { return m_channels; }
    bool slow() const noexcept override { return true; }
    Nanos min_interval() const noexcept override { return m_poll; }
    // Runs the tools (each within the timeout); a failure or an answer without
    // the value is retry for that channel, said once in the log.
    void read(std::span<Value> out) noexcept override;

private:
    Value read_node() noexcept;
    Value read_step() noexcept;
    void said(const std::string& what) noexcept;

    std::vector<Channel> m_channels;
    Commands m_commands;
    Nanos m_poll;
    bool m_node_is_energy = false;
    bool m_warned = false;
};

} // namespace jp::sensors::slurm
