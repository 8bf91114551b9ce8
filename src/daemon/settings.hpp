// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// jouleprofd's configuration (/etc/jouleprof/jouleprofd.toml): its own tables
// [daemon], [access] and [prometheus], plus jouleprof's [node], [sensors.*] and
// sysfs_root. Validated whole at start; [access] is read again on SIGHUP.
#include "config/config.hpp"
#include "core/duration.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace jp::daemon {

inline constexpr std::string_view k_default_config = "/etc/jouleprof/jouleprofd.toml";

// Who gets what (docs/security.md explains each default).
struct AccessRules {
    std::vector<std::string> full_resolution_groups; // Unix groups with full resolution
    std::vector<gid_t> full_resolution_gids;         // the same, resolved at load
    bool others_allowed = true;                      // others = "floor" (true) or "deny"
    Nanos floor{std::chrono::seconds{1}};            // shortest window others see
    Nanos jitter{std::chrono::seconds{1}};           // each window lasts floor + U(0, jitter)
    int edge_reads_burst = 16;                       // exact reads a user may make at once...
    double edge_reads_per_minute = 6;                // ...and how fast they come back
    std::vector<std::string> unrestricted_backends{"nvml", "rocm_smi"}; // users read these anyway
};

// Idle power learned from the daemon's history (daemon/idle.hpp).
struct IdleSettings {
    Nanos period{std::chrono::seconds{60}};   // one mean power per period
    Nanos window{std::chrono::hours{24}};     // periods kept
    Nanos min_history{std::chrono::hours{1}}; // periods needed before a value is given
    double percentile = 5;                    // of the periods' means, 0..50
    // A period in which the node's CPUs were at most this busy (percent of all their time)
    // is quiet: where enough exist, a CPU-driven channel learns from those alone.
    int quiet_busy_percent = 10;
};

struct DaemonSettings {
    std::filesystem::path socket{"/run/jouleprof/jouleprofd.sock"};
    Nanos interval{std::chrono::milliseconds{100}}; // sampling interval of every sensor
    Nanos history{std::chrono::minutes{10}};        // readings kept per channel
    int max_clients = 1024;                         // connections at once, all users together
    int max_clients_per_user = 32; // connections at once of one uid (root: not counted)
    int max_sessions_per_user = 64;
    Nanos client_timeout{std::chrono::seconds{10}}; // to finish a request once begun
    std::optional<std::string> prometheus_listen;   // "127.0.0.1:9940"; absent: off
    int prometheus_max_connections = 8;
    int prometheus_max_per_peer = 2; // one local user (by uid) or remote address at most
    // Every job's share of the node's energy on /metrics (daemon/accounts.hpp): off by
    // default, since it tells anyone who reaches /metrics who runs what, and when.
    bool prometheus_per_job = false;
    int prometheus_per_job_max = 1000;                       // jobs kept, open and ended
    Nanos prometheus_per_job_keep{std::chrono::minutes{10}}; // an ended job's series stay
    IdleSettings idle;
    // Where the idle history is kept across restarts (daemon/idle_store.hpp): absent, the
    // first of systemd's $STATE_DIRECTORY where set, else nowhere; "" nowhere.
    std::optional<std::filesystem::path> state_dir;
};

struct DaemonConfig {
    Config sensors; // [node], [sensors.*], sysfs_root, as in jouleprof's config
    DaemonSettings daemon;
    AccessRules access;
    std::filesystem::path source; // the file, or empty for the built-in defaults
    std::string text;             // the file's text as read ("" for the built-in defaults)
};

// Parses the text; group names are resolved by resolve_groups().
[[nodiscard]] Result<DaemonConfig> parse_daemon_config(std::string_view text,
                                                       std::string_view origin);
// Reads the file after checking that no other user may change it (owned by
// root or by the daemon's user, not writable by group or others, in a
// directory others cannot write into), parses it and resolves its groups.
[[nodiscard]] Result<DaemonConfig> load_daemon_config(const std::filesystem::path& path);
// The keys ("[daemon] idle_period", "sysfs_root") whose values differ between the
// config the daemon runs on and the file's text now, [access] aside: what a SIGHUP,
// which applies [access] alone, leaves for the next start. Both texts parsed before.
[[nodiscard]] std::vector<std::string> changed_until_restart(std::string_view running,
                                                             std::string_view file);
// Turns full_resolution_groups into gids; an unknown group is an error.
[[nodiscard]] Result<void> resolve_groups(AccessRules& rules, std::string_view origin);

} // namespace jp::daemon
