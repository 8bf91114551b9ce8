// SPDX-License-Identifier: BSD-3-Clause
#include "monitor.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <utility>

namespace jp::spank {
namespace {

// Between fork and exec only async-signal-safe calls: these write with write(2).
void put(int fd, const char* text) {
    for (std::size_t left = std::strlen(text); left > 0;) {
        const ssize_t n = ::write(fd, text, left);
        if (n <= 0) {
            return;
        }
        text += n;
        left -= static_cast<std::size_t>(n);
    }
}

[[noreturn]] void child_fail(int fd, const char* what, const char* path, int err) {
    put(fd, "error: ");
    put(fd, what);
    put(fd, path);
    put(fd, ": ");
    const char* why = ::strerrordesc_np(err); // no locale, no allocation
    put(fd, why != nullptr ? why : "unknown error");
    put(fd, "\n");
    ::_exit(127);
}

// The job's user for good: root regained first (slurmstepd runs user_init
// with only the effective uid dropped), then groups, gid, uid; checked.
void become_user(const Launch& l, int out) {
    if (::geteuid() != 0 && ::seteuid(0) != 0) {
        child_fail(out, "cannot regain root to become the job's user", "", errno);
    }
    if (::setgroups(l.groups.size(), l.groups.data()) != 0 || ::setgid(l.gid) != 0 ||
        ::setuid(l.uid) != 0) {
        child_fail(out, "cannot become the job's user", "", errno);
    }
    if (::getuid() != l.uid || ::geteuid() != l.uid || ::getgid() != l.gid ||
        ::getegid() != l.gid || (l.uid != 0 && ::setuid(0) == 0)) {
        child_fail(out, "the job's user could not be taken for good", "", EPERM);
    }
}

// mkdir -p with mode 0700 for what is created; path is a writable copy.
void make_dirs(char* path, int out) {
    for (char* p = path + 1;; ++p) {
        const bool last = *p == '\0';
        if (*p == '/' || last) {
            *p = '\0';
            if (::mkdir(path, 0700) != 0 && errno != EEXIST) {
                child_fail(out, "cannot create ", path, errno);
            }
            if (last) {
                return;
            }
            *p = '/';
        }
    }
}

[[noreturn]] void
run_child(const Launch& l, char* base, char* const* argv, char* const* envp, int ctl, int out) {
    become_user(l, out);
    if (::chdir(l.work_dir.c_str()) != 0 && ::chdir("/") != 0) {
        child_fail(out, "cannot enter ", l.work_dir.c_str(), errno);
    }
    make_dirs(base, out);
    if (::mkdir(l.step_dir.c_str(), 0700) != 0 && errno != EEXIST) {
        child_fail(out, "cannot create ", l.step_dir.c_str(), errno);
    }
    const int log = ::open(l.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
    if (log < 0) {
        child_fail(out, "cannot write in ", l.step_dir.c_str(), errno);
    }
    if (::dup2(ctl, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(log, 2) < 0) {
        child_fail(out, "cannot set up the monitor's standard streams", "", errno);
    }
    ::close_range(3, ~0U, 0);
    // slurmstepd's blocked and ignored signals would survive exec: SIGTERM must stop the monitor.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) {
        ::sigaction(sig, &dfl, nullptr);
    }
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(argv[0], argv, envp);
    child_fail(1, "cannot run ", argv[0], errno);
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (auto& s : strings) {
        out.push_back(s.data());
    }
    out.push_back(nullptr);
    return out;
}

} // namespace

long long now_ms() {
    timespec t{};
    ::clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<long long>(t.tv_sec) * 1000 + t.tv_nsec / 1'000'000;
}

Monitor::~Monitor() {
    close_all();
}

void Monitor::close_all() {
    for (int* fd : {&m_ctl, &m_status}) {
        if (*fd >= 0) {
            ::close(*fd);
            *fd = -1;
        }
    }
}

std::string Monitor::start(const Launch& launch, int timeout_ms) {
    int ctl[2];
    int status[2];
    if (::pipe2(ctl, O_CLOEXEC) != 0) {
        return std::string{"cannot make a pipe: "} + std::strerror(errno);
    }
    if (::pipe2(status, O_CLOEXEC) != 0) {
        ::close(ctl[0]);
        ::close(ctl[1]);
        return std::string{"cannot make a pipe: "} + std::strerror(errno);
    }
    // Everything the child needs is allocated before fork (slurmstepd has threads).
    auto argv_s = launch.argv;
    auto env_s = launch.env;
    auto argv = pointers(argv_s);
    auto envp = pointers(env_s);
    std::string base = launch.base_dir;
    const pid_t middle = ::fork();
    if (middle == 0) {
        ::setsid();
        if (::fork() == 0) {
            run_child(launch, base.data(), argv.data(), envp.data(), ctl[0], status[1]);
        }
        ::_exit(0);
    }
    ::close(ctl[0]);
    ::close(status[1]);
    m_ctl = ctl[1];
    m_status = status[0];
    if (middle < 0) {
        const int err = errno;
        close_all();
        return std::string{"cannot fork: "} + std::strerror(err);
    }
    int ignored = 0;
    ::waitpid(middle, &ignored, 0);
    const long long deadline = now_ms() + timeout_ms;
    auto line = read_line(deadline);
    m_env.clear();
    for (; line.starts_with("env ") && line.find('=') != std::string::npos;
         line = read_line(deadline)) {
        const auto eq = line.find('=');
        m_env.emplace_back(line.substr(4, eq - 4), line.substr(eq + 1));
    }
    if (line.starts_with("ready ")) {
        m_pid = static_cast<pid_t>(std::atoi(line.c_str() + 6));
        return {};
    }
    close_all();
    if (line.starts_with("error: ")) {
        return line.substr(7);
    }
    return line.empty()
               ? "jouleprof record did not start measuring in time (see " + launch.log + ")"
               : "jouleprof record: " + line;
}

void Monitor::send(const std::string& line) {
    if (m_ctl >= 0) {
        const auto text = line + "\n";
        put(m_ctl, text.c_str());
    }
}

std::string run_as_user(const Launch& launch,
                        std::vector<std::string> args,
                        const std::string& out_path,
                        int timeout_ms) {
    auto env_s = launch.env;
    auto argv = pointers(args);
    auto envp = pointers(env_s);
    const char* out = out_path.c_str();
    const pid_t pid = ::fork();
    if (pid == 0) {
        become_user(launch, STDERR_FILENO);
        // Opened as the user: only a regular file the user may write, no link followed.
        const int fd =
            ::open(out, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        struct stat st {};
        if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
            ::dup2(fd, STDOUT_FILENO) < 0 || ::dup2(fd, STDERR_FILENO) < 0 || ::chdir("/") != 0) {
            ::_exit(126);
        }
        ::execve(argv[0], argv.data(), envp.data());
        child_fail(STDERR_FILENO, "cannot run ", argv[0], errno);
    }
    if (pid < 0) {
        return std::string{"cannot fork: "} + std::strerror(errno);
    }
    const long long deadline = now_ms() + timeout_ms;
    int status = 0;
    for (;;) {
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            break;
        }
        if (r < 0 && errno != EINTR) {
            return std::string{"cannot wait: "} + std::strerror(errno);
        }
        if (now_ms() >= deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            return "jouleprof report did not finish in time: killed";
        }
        ::usleep(10'000);
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "" : "jouleprof report failed";
}

std::string Monitor::stop(const std::string& status, int timeout_ms) {
    if (!running()) {
        return {};
    }
    send("end " + status);
    ::close(m_ctl);
    m_ctl = -1;
    auto line = read_line(now_ms() + timeout_ms);
    std::string why;
    if (!line.starts_with("done ") && m_eof) {
        why = "the monitor ended before closing the trace (see its log)";
    } else if (!line.starts_with("done ")) {
        why = "the monitor did not close the trace in time: stopped by SIGTERM";
        ::kill(m_pid, SIGTERM);
        line = read_line(now_ms() + 2000);
        if (!line.starts_with("done ") && !m_eof) {
            ::kill(m_pid, SIGKILL);
            why = "the monitor did not stop: killed; the trace holds what it committed";
        }
    }
    close_all();
    return why;
}

std::string Monitor::read_line(long long deadline_ms) {
    for (;;) {
        if (const auto nl = m_pending.find('\n'); nl != std::string::npos) {
            auto line = m_pending.substr(0, nl);
            m_pending.erase(0, nl + 1);
            return line;
        }
        if (m_status < 0 || m_eof) {
            return std::exchange(m_pending, {});
        }
        const long long left = deadline_ms - now_ms();
        pollfd p{m_status, POLLIN, 0};
        if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) == 0) {
            return {};
        }
        char buf[512];
        const ssize_t n = ::read(m_status, buf, sizeof buf);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            m_eof = true;
            continue;
        }
        m_pending.append(buf, static_cast<std::size_t>(n));
    }
}

} // namespace jp::spank
