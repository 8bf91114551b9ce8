// SPDX-License-Identifier: BSD-3-Clause
// Slurm's node energy, read with its own client tools (libslurm is GPL: it is
// not linked). Asked for by [sensors.slurm], or on its own inside a Slurm job.
#include "sensors/slurm/slurm.hpp"

#include "config/config.hpp"
#include "sensors/slurm/scontrol.hpp"
#include "sensors/slurm/slurm_sensor.hpp"
#include "sys/command.hpp"
#include "sys/file.hpp"

#include <cstdlib>
#include <fmt/format.h>
#include <unistd.h>

namespace jp::sensors::slurm {
namespace {

constexpr Nanos k_timeout = std::chrono::seconds{5};

std::string env(const char* name) {
    const char* v = std::getenv(name); // NOLINT(concurrency-mt-unsafe): read at discovery
    return v == nullptr ? std::string{} : std::string{v};
}

// sstat beside the configured scontrol ("/opt/slurm/bin/scontrol" -> ".../sstat").
std::string sibling(const std::string& scontrol, std::string_view tool) {
    const auto slash = scontrol.rfind('/');
    return slash == std::string::npos ? std::string{tool}
                                      : scontrol.substr(0, slash + 1) + std::string{tool};
}

std::string node_name(const SlurmConfig& c) {
    if (c.node) {
        return *c.node;
    }
    if (auto n = env("SLURMD_NODENAME"); !n.empty()) {
        return n;
    }
    std::array<char, 256> host{};
    if (::gethostname(host.data(), host.size() - 1) != 0) {
        return {};
    }
    std::string h{host.data()};
    return h.substr(0, h.find('.'));
}

std::string first_line(const sys::CommandOutput& r) {
    const auto& text = r.err.empty() ? r.out : r.err;
    auto line = std::string{sys::trim(std::string_view{text}.substr(0, text.find('\n')))};
    return line.empty() ? fmt::format("exit status {}", r.exit_code) : line;
}

// Runs a Slurm tool; a failure becomes the reason of a finding.
Result<std::string> ask(const std::vector<std::string>& argv) {
    auto r = sys::run_command(argv, k_timeout);
    if (!r) {
        return std::unexpected(r.error());
    }
    if (r->exit_code != 0) {
        return fail(ErrorKind::io, argv[0] + " " + argv[1] + " " + argv[2], first_line(*r));
    }
    return std::move(r->out);
}

} // namespace

Discovery discover(const Host& host) {
    Discovery out;
    const auto* configured =
        host.config != nullptr && host.config->slurm ? &*host.config->slurm : nullptr;
    const auto job = env("SLURM_JOB_ID");
    if (configured == nullptr && job.empty()) {
        return out; // neither asked for nor inside a job
    }
    const SlurmConfig defaults;
    const auto& c = configured != nullptr ? *configured : defaults;
    const auto fix = std::string{"set [sensors.slurm] scontrol = the path of scontrol, or "
                                 "[sensors.slurm] enabled = false"};

    auto conf = ask({c.scontrol, "show", "config"});
    if (!conf) {
        out.unreadable.emplace_back("slurm", "Slurm's configuration", conf.error().message(), fix);
        return out;
    }
    const auto energy = parse_config(*conf);
    if (energy.plugin.empty() || energy.plugin.ends_with("/none")) {
        out.notes.push_back(fmt::format(
            "slurm: no energy plugin (AcctGatherEnergyType = {}): Slurm bills no energy here",
            energy.plugin.empty() ? "unset" : energy.plugin));
        return out;
    }
    const auto name = node_name(c);
    auto shown = ask({c.scontrol, "show", "node", "-o", name});
    const auto node = shown ? parse_node(*shown) : NodeEnergy{};
    const auto what = fmt::format("Slurm node {}", name);
    if (!shown || !node.found) {
        out.unreadable.emplace_back(
            "slurm", what, shown ? "scontrol show node printed no node" : shown.error().message(),
            "set [sensors.slurm] node = the node's Slurm name (sinfo -N lists them)");
        return out;
    }

    std::vector<Channel> channels;
    Commands commands;
    commands.timeout = k_timeout;
    if (node.consumed_joules || node.current_watts) {
        Channel ch;
        ch.name = "slurm.node";
        ch.domain = Domain::node;
        ch.quantity = node.consumed_joules ? Quantity::energy : Quantity::power;
        ch.backend = "slurm";
        ch.source = fmt::format("slurm:scontrol node {} ({})", name, energy.plugin);
        ch.update_ns = energy.node_ns;
        ch.counted = false; // Slurm's view, beside jouleprof's: compared, never summed
        channels.push_back(std::move(ch));
        commands.node = {c.scontrol, "show", "node", "-o", name};
    } else {
        out.unreadable.emplace_back("slurm", what,
                                    "scontrol shows neither CurrentWatts nor ConsumedJoules",
                                    "slurmd has not polled the energy plugin yet, or the plugin "
                                    "reads nothing on this node (its log says why)");
    }
    if (const auto step = step_name(job, env("SLURM_STEP_ID")); !step.empty()) {
        Channel ch;
        ch.name = "slurm.step";
        ch.domain = Domain::node;
        ch.quantity = Quantity::energy;
        ch.backend = "slurm";
        ch.source = fmt::format("slurm:sstat {} ({})", step, energy.plugin);
        ch.update_ns = energy.node_ns;
        ch.counted = false;
        channels.push_back(std::move(ch));
        commands.step = {sibling(c.scontrol, "sstat"), "-n", "-P", "--noconvert", "-o",
                         "ConsumedEnergyRaw",          "-j", step};
    }
    if (!channels.empty()) {
        const Nanos poll = energy.node_ns ? Nanos{*energy.node_ns} : Nanos{std::chrono::seconds{5}};
        out.sensors.push_back(
            std::make_unique<SlurmSensor>(std::move(channels), std::move(commands), poll));
    }
    return out;
}

} // namespace jp::sensors::slurm
