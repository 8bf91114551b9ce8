// SPDX-License-Identifier: BSD-3-Clause
#include "sys/command.hpp"

#include "core/clock.hpp"
#include "sys/fd.hpp"

#include <array>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ; // NOLINT(readability-redundant-declaration): POSIX, for posix_spawnp

namespace jp::sys {
namespace {

constexpr std::size_t k_max_out = std::size_t{1} << 20;
constexpr std::size_t k_max_err = std::size_t{64} << 10;

// Reads what is there; false at end of file or on error.
bool drain(int fd, std::string& into, std::size_t limit) {
    std::array<char, 4096> buf{};
    const auto n = ::read(fd, buf.data(), buf.size());
    if (n > 0) {
        into.append(buf.data(),
                    std::min(static_cast<std::size_t>(n), limit - std::min(limit, into.size())));
        return true;
    }
    return n < 0 && (errno == EINTR || errno == EAGAIN);
}

int reap(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace

namespace {

// Starts argv with stdin from /dev/null and stdout/stderr into the pipes' write ends.
Result<pid_t> spawn(const std::vector<std::string>& argv, int out_w, int err_w) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out_w, 1);
    posix_spawn_file_actions_adddup2(&actions, err_w, 2);
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv) {
        args.push_back(const_cast<char*>(a.c_str())); // NOLINT: posix_spawn's signature
    }
    args.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        auto e = errno_error(rc, argv[0]);
        e.detail = fmt::format("cannot run it: {}", e.detail);
        return std::unexpected(e);
    }
    return pid;
}

Error stopped(pid_t pid, const std::string& program, std::string_view what, Nanos timeout) {
    ::kill(pid, SIGKILL);
    reap(pid);
    return Error{ErrorKind::io,
                 program,
                 fmt::format("{} within {} and was stopped", what, format_duration(timeout)),
                 {}};
}

// Reads both pipes until they close or the deadline passes (the child is then killed).
Result<void> collect(pid_t pid,
                     const std::string& program,
                     std::array<pollfd, 2> fds,
                     CommandOutput& result,
                     std::int64_t deadline,
                     Nanos timeout) {
    int open_fds = 2;
    while (open_fds > 0) {
        const auto left_ms = (deadline - mono_ns()) / 1'000'000;
        if (left_ms <= 0) {
            return std::unexpected(stopped(pid, program, "gave no answer", timeout));
        }
        const int n = ::poll(fds.data(), fds.size(), static_cast<int>(left_ms));
        if (n < 0 && errno != EINTR) {
            const int e = errno;
            ::kill(pid, SIGKILL);
            reap(pid);
            return std::unexpected(errno_error(e, "poll"));
        }
        for (std::size_t i = 0; i < fds.size() && n > 0; ++i) {
            if (fds[i].fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
                if (!drain(fds[i].fd, i == 0 ? result.out : result.err,
                           i == 0 ? k_max_out : k_max_err)) {
                    fds[i].fd = -1;
                    --open_fds;
                }
            }
        }
    }
    return {};
}

// Both pipes closed: it is exiting (or went on without them, which the deadline ends).
Result<int> wait_exit(pid_t pid, const std::string& program, std::int64_t deadline, Nanos timeout) {
    for (;;) {
        int status = 0;
        const pid_t done = ::waitpid(pid, &status, WNOHANG);
        if (done == pid) {
            return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        }
        if (done < 0 && errno != EINTR) {
            return std::unexpected(errno_error(errno, "waitpid"));
        }
        if (mono_ns() >= deadline) {
            return std::unexpected(stopped(pid, program, "did not exit", timeout));
        }
        ::usleep(1000);
    }
}

} // namespace

Result<CommandOutput> run_command(const std::vector<std::string>& argv, Nanos timeout) {
    if (argv.empty()) {
        return fail(ErrorKind::internal, "run_command", "no program");
    }
    std::array<int, 2> out{-1, -1};
    std::array<int, 2> err{-1, -1};
    if (::pipe2(out.data(), O_CLOEXEC) != 0 || ::pipe2(err.data(), O_CLOEXEC) != 0) {
        const int e = errno;
        for (int fd : {out[0], out[1], err[0], err[1]}) {
            if (fd >= 0) {
                ::close(fd);
            }
        }
        return std::unexpected(errno_error(e, "pipe2"));
    }
    const UniqueFd out_r{out[0]};
    const UniqueFd err_r{err[0]};
    UniqueFd out_w{out[1]};
    UniqueFd err_w{err[1]};
    auto pid = spawn(argv, out_w.get(), err_w.get());
    out_w.reset();
    err_w.reset();
    if (!pid) {
        return std::unexpected(pid.error());
    }
    CommandOutput result;
    const auto deadline = mono_ns() + timeout.count();
    const std::array<pollfd, 2> fds{pollfd{out_r.get(), POLLIN, 0}, pollfd{err_r.get(), POLLIN, 0}};
    if (auto read = collect(*pid, argv[0], fds, result, deadline, timeout); !read) {
        return std::unexpected(read.error());
    }
    auto code = wait_exit(*pid, argv[0], deadline, timeout);
    if (!code) {
        return std::unexpected(code.error());
    }
    result.exit_code = *code;
    return result;
}

} // namespace jp::sys
