// SPDX-License-Identifier: BSD-3-Clause
#include "process/runner.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <optional>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ; // NOLINT(readability-redundant-declaration)

namespace jp::process {
namespace {

constexpr std::array k_forwarded{SIGINT,    SIGTERM, SIGHUP,  SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
                                 SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGPWR,  SIGIO,   SIGSTKFLT};

sigset_t monitored_set() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : k_forwarded) {
        sigaddset(&set, s);
    }
    sigaddset(&set, SIGCHLD);
    return set;
}

bool executable(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
}

// Why a path that exists cannot be run (the shell's 126); nothing when it
// does not exist (127). A path in a directory this user may not search is
// one that cannot run when named with a slash (exec fails with EACCES); a
// PATH search skips it, as the shell's does.
std::optional<std::string> why_not_executable(const std::string& path, bool named) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        const int err = errno;
        if (!named || err == ENOENT || err == ENOTDIR) {
            return std::nullopt;
        }
        return std::string{"cannot be reached: "} + std::strerror(err);
    }
    return S_ISDIR(st.st_mode) ? "is a directory" : "is not an executable file";
}

// Child side, between fork and exec: async-signal-safe calls only.
void redirect(int fd, int target) {
    if (fd < 0) {
        return;
    }
    if (fd == target) {
        ::fcntl(fd, F_SETFD, 0); // keep it across exec
    } else {
        ::dup2(fd, target); // the copy is not close-on-exec
    }
}

[[noreturn]] void
child_main(int gate, int error, Stdio stdio, const char* path, char** argv, char** envp) {
    redirect(stdio.out, STDOUT_FILENO);
    redirect(stdio.err, STDERR_FILENO);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGPIPE, SIG_DFL); // ignored in the monitor; the job gets the default
    char byte = 0;
    ssize_t n = 0;
    do {
        n = ::read(gate, &byte, 1);
    } while (n < 0 && errno == EINTR);
    if (n != 1) {
        ::_exit(125); // the monitor went away before releasing us: do not run
    }
    ::execve(path, argv, envp);
    const int err = errno;
    (void)(::write(error, &err, sizeof err) == 0);
    ::_exit(err == ENOENT ? 127 : 126);
}

} // namespace

void block_forwarded_signals() {
    const sigset_t set = monitored_set();
    ::pthread_sigmask(SIG_BLOCK, &set, nullptr);
    ::signal(SIGPIPE, SIG_IGN);
}

bool is_interrupting(int sig) noexcept {
    return sig != SIGUSR1 && sig != SIGUSR2 &&
           std::ranges::find(k_forwarded, sig) != k_forwarded.end();
}

std::optional<int> sleep_unless_signalled(std::int64_t deadline_mono_ns) {
    const sigset_t set = monitored_set();
    for (;;) {
        timespec now{};
        clock_gettime(CLOCK_MONOTONIC, &now);
        const std::int64_t left =
            deadline_mono_ns -
            (static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec);
        if (left <= 0) {
            return std::nullopt;
        }
        timespec timeout{static_cast<time_t>(left / 1'000'000'000),
                         static_cast<long>(left % 1'000'000'000)};
        siginfo_t info{};
        const int sig = ::sigtimedwait(&set, &info, &timeout);
        if (sig > 0 && is_interrupting(sig)) {
            return sig;
        }
    }
}

Result<std::string> resolve_program(const std::string& name) {
    if (name.empty()) {
        return fail(ErrorKind::config, "command", "empty command");
    }
    if (name.find('/') != std::string::npos) {
        if (executable(name)) {
            return name;
        }
        if (auto why = why_not_executable(name, true)) {
            return fail(ErrorKind::permission, name, *why);
        }
        return fail(ErrorKind::not_found, name, "no such file");
    }
    const char* path_env = std::getenv("PATH");
    const std::string path = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
    std::optional<Error> unrunnable; // the first match that exists but cannot run
    std::size_t start = 0;
    while (start <= path.size()) {
        const auto end = std::min(path.find(':', start), path.size());
        std::string dir = path.substr(start, end - start);
        auto candidate = (dir.empty() ? std::string{"."} : dir) + "/" + name;
        if (executable(candidate)) {
            return candidate;
        }
        if (auto why = why_not_executable(candidate, false); why && !unrunnable) {
            unrunnable = Error{ErrorKind::permission, candidate, *why, {}};
        }
        start = end + 1;
    }
    // As the shell does: a name PATH has only as files that cannot run is 126, not 127.
    if (unrunnable) {
        return std::unexpected(*unrunnable);
    }
    return fail(ErrorKind::not_found, name, "command not found in PATH");
}

Result<std::string> find_program(const std::string& name,
                                 const std::vector<std::filesystem::path>& fallback_dirs) {
    auto found = resolve_program(name);
    if (found || found.error().kind != ErrorKind::not_found ||
        name.find('/') != std::string::npos) {
        return found;
    }
    std::string looked;
    for (const auto& dir : fallback_dirs) {
        if (dir.empty()) {
            continue;
        }
        auto candidate = (dir / name).string();
        if (executable(candidate)) {
            return candidate;
        }
        looked += (looked.empty() ? "" : ", ") + dir.string();
    }
    return fail(ErrorKind::not_found, name,
                looked.empty() ? "command not found in PATH"
                               : "command not found in PATH nor in " + looked);
}

std::filesystem::path executable_dir() {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::filesystem::path{} : exe.parent_path();
}

Result<Child> Child::spawn(const std::vector<std::string>& argv,
                           const std::vector<std::pair<std::string, std::string>>& env,
                           Stdio stdio) {
    auto path = resolve_program(argv.at(0));
    if (!path) {
        return std::unexpected(path.error());
    }
    // Everything the child needs is built before fork.
    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string_view entry{*e};
        const bool replaced = std::ranges::any_of(
            env, [&](const auto& kv) { return entry.starts_with(kv.first + "="); });
        if (!replaced) {
            env_strings.emplace_back(entry);
        }
    }
    for (const auto& [k, v] : env) {
        env_strings.push_back(k);
        env_strings.back().append("=").append(v);
    }
    std::vector<char*> envp;
    envp.reserve(env_strings.size());
    for (auto& s : env_strings) {
        envp.push_back(s.data());
    }
    envp.push_back(nullptr);
    std::vector<std::string> args = argv;
    std::vector<char*> c_argv;
    c_argv.reserve(args.size());
    for (auto& a : args) {
        c_argv.push_back(a.data());
    }
    c_argv.push_back(nullptr);

    int gate[2];
    int error[2];
    if (::pipe2(gate, O_CLOEXEC) != 0 || ::pipe2(error, O_CLOEXEC) != 0) {
        return std::unexpected(errno_error(errno, "pipe2"));
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
        const int err = errno;
        for (int fd : {gate[0], gate[1], error[0], error[1]}) {
            ::close(fd);
        }
        return std::unexpected(errno_error(err, "fork"));
    }
    if (pid == 0) {
        child_main(gate[0], error[1], stdio, path->c_str(), c_argv.data(), envp.data());
    }
    ::close(gate[0]);
    ::close(error[1]);
    return Child{pid, gate[1], error[0]};
}

Child::Child(Child&& other) noexcept
    : m_pid(std::exchange(other.m_pid, -1)), m_gate(std::exchange(other.m_gate, -1)),
      m_error(std::exchange(other.m_error, -1)), m_reaped(other.m_reaped) {}

Child::~Child() {
    if (m_gate >= 0) {
        ::close(m_gate); // an unreleased child sees EOF and exits 125
    }
    if (m_error >= 0) {
        ::close(m_error);
    }
    if (m_pid > 0 && !m_reaped) {
        int status = 0;
        ::waitpid(m_pid, &status, 0);
    }
}

Result<void> Child::release() {
    const char go = 1;
    if (::write(m_gate, &go, 1) != 1) {
        return std::unexpected(errno_error(errno, "release child"));
    }
    ::close(m_gate);
    m_gate = -1;
    int err = 0;
    ssize_t n = 0;
    do {
        n = ::read(m_error, &err, sizeof err); // EOF once exec closed the CLOEXEC pipe
    } while (n < 0 && errno == EINTR);
    ::close(m_error);
    m_error = -1;
    if (n == static_cast<ssize_t>(sizeof err)) {
        return std::unexpected(errno_error(err, "exec"));
    }
    return {};
}

ExitStatus Child::wait(int tick_ms, const std::function<void()>& tick) {
    const sigset_t set = monitored_set();
    for (;;) {
        int status = 0;
        const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
        if (r == m_pid) {
            m_reaped = true;
            if (WIFSIGNALED(status)) {
                return ExitStatus{0, WTERMSIG(status)};
            }
            return ExitStatus{WEXITSTATUS(status), std::nullopt};
        }
        if (r < 0 && errno == ECHILD) {
            m_reaped = true;
            return ExitStatus{255, std::nullopt};
        }
        siginfo_t info{};
        timespec timeout{tick_ms / 1000, static_cast<long>(tick_ms % 1000) * 1'000'000L};
        const int sig = ::sigtimedwait(&set, &info, &timeout);
        if (sig < 0) {
            if (errno == EAGAIN && tick) {
                tick();
            }
            continue;
        }
        // A terminal's Ctrl-C reaches the child directly (same process group):
        // forward only what another process sent to the monitor.
        if (sig != SIGCHLD && (info.si_code == SI_USER || info.si_code == SI_QUEUE)) {
            ::kill(m_pid, sig);
        }
    }
}

} // namespace jp::process
