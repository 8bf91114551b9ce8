// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the plugin does for a step: the site's defaults (plugstack.conf
// arguments) overlaid with the user's `--jouleprof=OPTS`. No Slurm types here.
#include <string>
#include <string_view>

namespace jp::spank {

struct Settings {
    bool enabled = false;    // --jouleprof given, or the site measures every step
    bool user_asked = false; // --jouleprof given
    bool site = false;       // site=yes: every step is measured, without --jouleprof
    std::string site_dir;    // site: traces in <site_dir>/<jobid>/ (the job owner's, 0700)
    bool result = true;      // result=no: no merged table at the step's end (srun)
    std::string jouleprof;   // the jouleprof binary the monitor runs
    std::string dir;         // output directory; empty: <job's working dir>/jouleprof
    std::string interval = "500ms";
    std::string label;            // empty: "slurm"
    std::string sysfs_root;       // site/test: --sysfs-root of the monitor
    std::string socket;           // site: $JOULEPROF_SOCKET of the monitor (jouleprofd)
    std::string config;           // site: --config of the monitor
    int ready_timeout_ms = 20000; // how long a step may wait for the monitor's start edge
    int stop_timeout_ms = 20000;  // how long the step's end waits for the trace to close
};

// Applies one `key=value` of the site (plugstack.conf: every key) or of the
// user (--jouleprof=: interval, dir, label only). Returns an empty string, or
// one line saying what is wrong.
[[nodiscard]] std::string apply_setting(Settings& s, std::string_view item, bool from_site);

// Applies a comma-separated list of the user's OPTS; the first problem, or "".
[[nodiscard]] std::string apply_user_options(Settings& s, std::string_view opts);

} // namespace jp::spank
