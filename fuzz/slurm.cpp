// SPDX-License-Identifier: BSD-3-Clause
// What the Slurm parts read: the output of scontrol and sstat (the slurm
// sensor), and in the SPANK plugin, which runs inside root's slurmstepd, the
// user's --jouleprof=OPTS, plugstack.conf's arguments and the step's node list
// from the job's environment. Every parser gets the whole input; the step name
// takes the first line as the job id and the rest as the step id.
#include "fuzz_input.hpp"
#include "hostlist.hpp"
#include "sensors/slurm/scontrol.hpp"
#include "settings.hpp"

#include <cmath>
#include <cstdlib>
#include <optional>

namespace slurm = jp::sensors::slurm;
namespace spank = jp::spank;

namespace {

constexpr std::size_t k_names = 4096; // hosts the list may name here (the plugin: 100,000)

void require(bool ok) {
    if (!ok) {
        std::abort();
    }
}

bool watts_or_joules(const std::optional<double>& v) {
    return !v || (std::isfinite(*v) && *v >= 0);
}

bool one_line(const std::string& why) {
    return why.find('\n') == std::string::npos && why.size() <= 400;
}

bool plain(const std::string& v) {
    for (const char c : v) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            return false;
        }
    }
    return v.size() <= 1024;
}

void slurm_tools(std::string_view text) {
    const auto config = slurm::parse_config(text);
    // slurmd polls at most every 65,535 s (Slurm keeps the period in 16 bits).
    require(!config.node_ns || (*config.node_ns > 0 && *config.node_ns <= 65535'000'000'000));
    const auto node = slurm::parse_node(text);
    require(watts_or_joules(node.current_watts) && watts_or_joules(node.ave_watts) &&
            watts_or_joules(node.consumed_joules));
    require(node.found || (!node.current_watts && !node.ave_watts && !node.consumed_joules));
    require(watts_or_joules(slurm::parse_step_energy(text)));
    const auto [job, step] = jp::fuzz::split_first_line(text);
    const auto name = slurm::step_name(job, step);
    const auto dot = name.find('.');
    require(name.empty() || (dot > 0 && dot != std::string::npos && dot + 1 < name.size()));
}

void node_list(std::string_view list) {
    const auto names = spank::expand_hostlist(list, k_names);
    if (!names) {
        return;
    }
    require(!names->empty() && names->size() <= k_names);
    for (const auto& n : *names) {
        require(!n.empty() && n.find_first_of(",[]") == std::string::npos);
    }
}

void user_options(std::string_view opts) {
    // The user may set interval, dir, label and result; never what the site set.
    spank::Settings site;
    site.site = true;
    site.site_dir = "/var/lib/jouleprof";
    site.jouleprof = "/usr/bin/jouleprof";
    site.sysfs_root = "/";
    site.socket = "/run/jouleprof/jouleprofd.sock";
    site.config = "/etc/jouleprof/config.toml";
    auto s = site;
    require(one_line(spank::apply_user_options(s, opts)));
    require(s.site == site.site && s.site_dir == site.site_dir && s.jouleprof == site.jouleprof &&
            s.sysfs_root == site.sysfs_root && s.socket == site.socket && s.config == site.config &&
            s.ready_timeout_ms == site.ready_timeout_ms &&
            s.stop_timeout_ms == site.stop_timeout_ms);
    require(plain(s.interval) && plain(s.dir) && plain(s.label));
}

void site_argument(std::string_view item) {
    spank::Settings s;
    require(one_line(spank::apply_setting(s, item, true)));
    require(s.site_dir.empty() || s.site_dir.front() == '/');
    for (const int ms : {s.ready_timeout_ms, s.stop_timeout_ms}) {
        require(ms >= 100 && ms <= 600000);
    }
    for (const auto* v : {&s.site_dir, &s.jouleprof, &s.sysfs_root, &s.socket, &s.config,
                          &s.interval, &s.dir, &s.label}) {
        require(plain(*v));
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = jp::fuzz::bytes(data, size);
    slurm_tools(text);
    node_list(text);
    user_options(text);
    site_argument(text);
    return 0;
}
