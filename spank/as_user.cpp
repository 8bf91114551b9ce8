// SPDX-License-Identifier: BSD-3-Clause
#include "as_user.hpp"

#include "monitor.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace jp::spank {

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

// Root regained first (slurmstepd runs user_init with only the effective uid
// dropped), then groups, gid, uid; checked.
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

namespace {

enum class FileOp { take, remove_if_empty };

// In the child, as the user: the operation on path; what it read goes to out.
[[noreturn]] void file_op(FileOp op, const char* path, std::size_t max_bytes, int out) {
    const int fd = ::open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::_exit(1); // missing, a link, a FIFO, a device: left alone
    }
    if (op == FileOp::remove_if_empty) {
        ::_exit(st.st_size == 0 && ::unlink(path) == 0 ? 0 : 1);
    }
    char buf[4096];
    for (std::size_t left = max_bytes; left > 0;) {
        const ssize_t n = ::read(fd, buf, left < sizeof buf ? left : sizeof buf);
        if (n <= 0) {
            break;
        }
        if (::write(out, buf, static_cast<std::size_t>(n)) != n) {
            ::_exit(1);
        }
        left -= static_cast<std::size_t>(n);
    }
    ::_exit(::unlink(path) == 0 ? 0 : 1);
}

// Runs op as the user in a child; its output, or nothing when it failed or ran
// past timeout_ms (then it is killed).
std::optional<std::string> run_file_op(const Launch& launch,
                                       FileOp op,
                                       const std::string& path,
                                       std::size_t max_bytes,
                                       int timeout_ms) {
    int pipe[2];
    if (::pipe2(pipe, O_CLOEXEC) != 0) {
        return std::nullopt;
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(pipe[0]);
        const int devnull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
        become_user(launch, devnull);
        file_op(op, path.c_str(), max_bytes, pipe[1]);
    }
    ::close(pipe[1]);
    if (pid < 0) {
        ::close(pipe[0]);
        return std::nullopt;
    }
    std::string text;
    const long long deadline = now_ms() + timeout_ms;
    bool timed_out = false;
    for (;;) {
        const long long left = deadline - now_ms();
        pollfd p{pipe[0], POLLIN, 0};
        const int ready = left > 0 ? ::poll(&p, 1, static_cast<int>(left)) : 0;
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready <= 0) {
            timed_out = true;
            break;
        }
        char buf[4096];
        const ssize_t n = ::read(pipe[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        text.append(buf, static_cast<std::size_t>(n));
    }
    ::close(pipe[0]);
    if (timed_out) {
        ::kill(pid, SIGKILL); // our own child, not yet reaped: its pid is still its own
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timed_out || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return std::nullopt;
    }
    return text;
}

} // namespace

std::optional<std::string> take_user_file(const Launch& launch,
                                          const std::string& path,
                                          std::size_t max_bytes,
                                          int timeout_ms) {
    return run_file_op(launch, FileOp::take, path, max_bytes, timeout_ms);
}

void remove_if_empty(const Launch& launch, const std::string& path, int timeout_ms) {
    (void)run_file_op(launch, FileOp::remove_if_empty, path, 0, timeout_ms);
}

} // namespace jp::spank
