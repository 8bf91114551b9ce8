// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Spawns the measured command so that its start can be timed exactly: the
// child is forked and waits at a gate; the caller reads every counter and
// then releases it into exec. Signals sent to the monitor by other processes
// are forwarded; the command's exit status is returned as a shell would.
#include "core/error.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace jp::process {

struct ExitStatus {
    int code = 0;              // exit code when it exited
    std::optional<int> signal; // the signal that killed it
    // 128+N when killed by signal N, as shells report it.
    [[nodiscard]] int shell_code() const noexcept { return signal ? 128 + *signal : code; }
};

// Blocks the signals the monitor forwards (and SIGCHLD) in the calling thread;
// call in main() before any other thread starts so every thread inherits it.
// Forwarded: every catchable signal whose default action ends a process and
// that another process sends (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM,
// SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ, ...), so the monitor is never killed
// before its job and the job never orphaned. SIGPIPE is ignored in the monitor
// (a closed stdout is an error it reports) and default again in the job.
void block_forwarded_signals();

// Whether a forwarded signal ends the measurement (a series stops, the run is
// "interrupted"): all of them but SIGUSR1 and SIGUSR2, which jobs use to be told things.
[[nodiscard]] bool is_interrupting(int sig) noexcept;

// Sleeps until the CLOCK_MONOTONIC deadline unless an interrupting signal
// arrives first (the signals are blocked, so this is how the monitor notices
// them outside a job: a baseline, a cooldown). Returns that signal, if any.
[[nodiscard]] std::optional<int> sleep_unless_signalled(std::int64_t deadline_mono_ns);

// Finds an executable on PATH (or checks a path with a slash); not_found/permission.
[[nodiscard]] Result<std::string> resolve_program(const std::string& name);

// resolve_program, then, for a name without a slash that PATH does not have,
// each of fallback_dirs in turn (e.g. executable_dir(), where jouleprof's
// companion programs are built and installed). not_found names every place looked in.
[[nodiscard]] Result<std::string>
find_program(const std::string& name, const std::vector<std::filesystem::path>& fallback_dirs);

// The directory of the running executable (/proc/self/exe); empty when unknown.
[[nodiscard]] std::filesystem::path executable_dir();

// Descriptors the child gets as its stdout/stderr (-1: the monitor's own).
struct Stdio {
    int out = -1;
    int err = -1;
};

class Child {
public:
    // Forks; the child waits at the gate with the caller's signal mask restored.
    // env entries replace or add variables of the monitor's environment.
    static Result<Child> spawn(const std::vector<std::string>& argv,
                               const std::vector<std::pair<std::string, std::string>>& env,
                               Stdio stdio = {});
    Child(Child&& other) noexcept;
    Child& operator=(Child&&) = delete;
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;
    ~Child();

    // Lets the child exec. Fails if exec failed (the child then exits 126/127).
    Result<void> release();
    // Waits for the child, forwarding the signals above sent by other processes; calls tick every
    // tick_ms while waiting. The status is returned right after the child is reaped.
    ExitStatus wait(int tick_ms, const std::function<void()>& tick);
    [[nodiscard]] pid_t pid() const noexcept { return m_pid; }

private:
    Child(pid_t pid, int gate_fd, int error_fd) : m_pid(pid), m_gate(gate_fd), m_error(error_fd) {}
    pid_t m_pid = -1;
    int m_gate = -1;  // write end: one byte releases the child
    int m_error = -1; // read end: errno from a failed exec, EOF on success
    bool m_reaped = false;
};

} // namespace jp::process
