// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The monitor process of one step on one node: `jouleprof record` run as the
// job's user (never as root), detached from slurmstepd (a grandchild, so that
// slurmstepd's wait for its tasks never reaps it), told to stop through its
// standard input and followed through its standard output.
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace jp::spank {

struct Launch {
    uid_t uid = 0;
    gid_t gid = 0;
    std::vector<gid_t> groups;
    std::string work_dir;          // the child's working directory (relative paths)
    std::string base_dir;          // created (0700, as the user) when missing
    std::string step_dir;          // base_dir/<job>.<step>, created 0700
    std::string log;               // the monitor's stderr
    std::vector<std::string> argv; // argv[0] is the binary's path
    std::vector<std::string> env;
};

class Monitor {
public:
    Monitor() = default;
    Monitor(const Monitor&) = delete;
    Monitor& operator=(const Monitor&) = delete;
    ~Monitor();

    // Starts the monitor and waits (at most timeout_ms) for its start edge.
    // Returns "" when it measures, else one line saying why not.
    std::string start(const Launch& launch, int timeout_ms);
    [[nodiscard]] bool running() const { return m_ctl >= 0; }
    // What the job's tasks need to mark phases into the run (its marker socket).
    [[nodiscard]] const std::vector<std::pair<std::string, std::string>>& env() const {
        return m_env;
    }
    // Sends one control line ("meta K=V"); ignored when not running.
    void send(const std::string& line);
    // Ends the run with `status`, waits for the trace to be closed; after
    // timeout_ms the monitor is sent SIGTERM, and SIGKILL 2 s later, through its
    // process descriptor: whatever pid it prints, only it is ever signalled.
    // Returns "" or one line saying what went wrong.
    std::string stop(const std::string& status, int timeout_ms);

private:
    // Signals the monitor through m_pidfd; without one (a kernel before 5.3) it is
    // never signalled: closing its stdin is what ends it.
    void signal_monitor(int sig) const;
    // Bounds on what the monitor (the user's process) can make root hold.
    static constexpr std::size_t k_max_pending = std::size_t{64} * 1024;
    static constexpr std::size_t k_max_env = 64;
    // One line from the monitor's stdout; "" at its end or at the deadline.
    std::string read_line(long long deadline_ms);
    void close_all();
    int m_ctl = -1;     // its stdin (we write)
    int m_status = -1;  // its stdout (we read)
    pid_t m_pid = -1;   // from the fork that made it (for messages only)
    int m_pidfd = -1;   // the monitor's process descriptor (pidfd_open by its parent)
    bool m_eof = false; // its stdout ended: it exited
    std::string m_pending;
    std::vector<std::pair<std::string, std::string>> m_env;
};

// Runs args (args[0]: the binary) as the launch's user (groups, gid, uid for
// good) with its environment, stdout and stderr appended to out_path (opened
// as that user: a regular file, no symbolic link), in "/"; waits at most
// timeout_ms (then SIGKILL). Returns "" or why it failed.
std::string run_as_user(const Launch& launch,
                        std::vector<std::string> args,
                        const std::string& out_path,
                        int timeout_ms);

// Milliseconds of CLOCK_MONOTONIC.
[[nodiscard]] long long now_ms();

} // namespace jp::spank
