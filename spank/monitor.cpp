// SPDX-License-Identifier: BSD-3-Clause
#include "monitor.hpp"

#include "as_user.hpp"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <tuple>
#include <unistd.h>
#include <utility>

namespace jp::spank {
namespace {

// A process descriptor for pid, which must be the caller's child and not yet reaped
// (so the pid cannot have been reused); -1 where the kernel has none (before 5.3).
int pidfd_of_child(pid_t pid) {
    return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
}

// Hands pid and its descriptor (when there is one) to the other end of sock.
void send_pid(int sock, pid_t pid, int pidfd) {
    iovec data{&pid, sizeof pid};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &data;
    msg.msg_iovlen = 1;
    if (pidfd >= 0) {
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(c), &pidfd, sizeof pidfd);
    }
    (void)::sendmsg(sock, &msg, MSG_NOSIGNAL);
}

// What send_pid sent, if it was sent: the pid and its descriptor (-1 if none).
std::pair<pid_t, int> receive_pid(int sock) {
    pid_t pid = -1;
    iovec data{&pid, sizeof pid};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr msg{};
    msg.msg_iov = &data;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (::recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != sizeof pid) {
        return {-1, -1};
    }
    int fd = -1;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
        }
    }
    return {pid, fd};
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
    // A regular file only: a FIFO put there would block (O_NONBLOCK: ENXIO instead).
    const int log =
        ::open(l.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK, 0600);
    struct stat st {};
    if (log < 0 || ::fstat(log, &st) != 0 || !S_ISREG(st.st_mode)) {
        child_fail(out, "cannot write a log file in ", l.step_dir.c_str(),
                   log < 0 ? errno : EINVAL);
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
    for (int* fd : {&m_ctl, &m_status, &m_pidfd}) {
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
    // The monitor's pid and a descriptor for it come from the fork that made it, over
    // this socket: never from what the monitor (the user's process) says.
    int pid_channel[2];
    if (::socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, pid_channel) != 0) {
        const int err = errno;
        for (int fd : {ctl[0], ctl[1], status[0], status[1]}) {
            ::close(fd);
        }
        return std::string{"cannot make a socket pair: "} + std::strerror(err);
    }
    const pid_t middle = ::fork();
    if (middle == 0) {
        ::setsid();
        const pid_t monitor = ::fork();
        if (monitor == 0) {
            run_child(launch, base.data(), argv.data(), envp.data(), ctl[0], status[1]);
        }
        if (monitor > 0) {
            send_pid(pid_channel[1], monitor, pidfd_of_child(monitor));
        }
        ::_exit(0);
    }
    ::close(ctl[0]);
    ::close(status[1]);
    ::close(pid_channel[1]);
    m_ctl = ctl[1];
    m_status = status[0];
    if (middle < 0) {
        const int err = errno;
        ::close(pid_channel[0]);
        close_all();
        return std::string{"cannot fork: "} + std::strerror(err);
    }
    int ignored = 0;
    while (::waitpid(middle, &ignored, 0) < 0 && errno == EINTR) {
    }
    std::tie(m_pid, m_pidfd) = receive_pid(pid_channel[0]);
    ::close(pid_channel[0]);
    const long long deadline = now_ms() + timeout_ms;
    auto line = read_line(deadline);
    m_env.clear();
    for (; line.starts_with("env ") && line.find('=') != std::string::npos &&
           m_env.size() < k_max_env;
         line = read_line(deadline)) {
        const auto eq = line.find('=');
        m_env.emplace_back(line.substr(4, eq - 4), line.substr(eq + 1));
    }
    if (line.starts_with("ready ")) { // the pid it prints is not used: see m_pidfd
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
        ::close_range(3, ~0U, 0); // slurmstepd's descriptors stay with slurmstepd
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
        why = "the monitor (pid " + std::to_string(m_pid) +
              ") did not close the trace in time: stopped by SIGTERM";
        signal_monitor(SIGTERM);
        line = read_line(now_ms() + 2000);
        if (!line.starts_with("done ") && !m_eof) {
            signal_monitor(SIGKILL);
            why = "the monitor did not stop: killed; the trace holds what it committed";
        }
    }
    close_all();
    return why;
}

void Monitor::signal_monitor(int sig) const {
    // Through the process descriptor only: it names the process the fork made, even
    // after that process has ended and its pid is someone else's (then: ESRCH).
    if (m_pidfd >= 0) {
        (void)::syscall(SYS_pidfd_send_signal, m_pidfd, sig, nullptr, 0);
    }
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
        const int ready = left > 0 ? ::poll(&p, 1, static_cast<int>(left)) : 0;
        if (ready < 0 && errno == EINTR) {
            continue; // never on to a read that could block past the deadline
        }
        if (ready <= 0) {
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
        if (m_pending.size() >
            k_max_pending) { // the user's process talks; root's memory is bounded
            m_pending.clear();
            return "the monitor said more than 64 KiB without a line's end";
        }
    }
}

} // namespace jp::spank
