// SPDX-License-Identifier: BSD-3-Clause
#include "sys/trusted_file.hpp"

#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace jp::sys {
namespace {

bool trusted_owner(uid_t uid) {
    return uid == 0 || uid == ::geteuid();
}

// Why a directory on the way may let another user choose what is read; "" if it cannot.
std::string untrusted_directory(const struct stat& st) {
    if (!trusted_owner(st.st_uid)) {
        return fmt::format("is owned by uid {}", st.st_uid);
    }
    // Sticky (like /tmp): others may add entries but never replace or remove ours.
    const bool sticky = (st.st_mode & S_ISVTX) != 0;
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && !sticky) {
        return fmt::format("is writable by other users (mode {:04o})", st.st_mode & 07777);
    }
    return {};
}

} // namespace

Result<UniqueFd>
open_trusted(const std::filesystem::path& path, std::string_view what, bool final_link_allowed) {
    const auto where = path.string();
    std::filesystem::path start = path;
    if (start.is_relative()) {
        std::error_code ec;
        start = std::filesystem::current_path(ec) / path;
        if (ec) {
            return std::unexpected(errno_error(ec.value(), where));
        }
    }
    // The path is resolved here, one name at a time from /, never by the kernel: each
    // directory is opened by descriptor (O_NOFOLLOW) and checked on that descriptor, and
    // a symbolic link is followed only once the directory holding it, and the link itself,
    // are root's or this user's (so no one else could have put it there or changed it).
    std::vector<UniqueFd> dirs;
    std::vector<std::string> names; // for messages: the directories walked
    const auto walked = [&] {
        std::string w;
        for (const auto& n : names) {
            w += "/" + n;
        }
        return w.empty() ? std::string{"/"} : w;
    };
    const auto enter = [&](UniqueFd fd) -> Result<void> {
        struct stat st {};
        if (::fstat(fd.get(), &st) != 0) {
            return std::unexpected(errno_error(errno, walked()));
        }
        if (auto why = untrusted_directory(st); !why.empty()) {
            return fail(ErrorKind::permission, where,
                        fmt::format("its directory {} {}: another user could choose this {}; "
                                    "refusing it",
                                    walked(), why, what));
        }
        dirs.push_back(std::move(fd));
        return {};
    };
    const auto restart_at_root = [&]() -> Result<void> {
        dirs.clear();
        names.clear();
        UniqueFd root{::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)};
        if (!root) {
            return std::unexpected(errno_error(errno, "/"));
        }
        return enter(std::move(root));
    };
    if (auto r = restart_at_root(); !r) {
        return std::unexpected(r.error());
    }
    std::deque<std::string> todo;
    for (const auto& part : start.relative_path()) {
        todo.push_back(part.string());
    }
    int links = 0;
    while (!todo.empty()) {
        const auto name = std::move(todo.front());
        todo.pop_front();
        if (name.empty() || name == ".") {
            continue;
        }
        if (name == "..") {
            if (dirs.size() > 1) {
                dirs.pop_back();
                names.pop_back();
            }
            continue;
        }
        const bool last = todo.empty();
        struct stat st {};
        if (::fstatat(dirs.back().get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
            const int err = errno;
            return std::unexpected(
                errno_error(err, (std::filesystem::path{walked()} / name).string()));
        }
        if (S_ISLNK(st.st_mode)) {
            if (last && !final_link_allowed) {
                return fail(ErrorKind::permission, where,
                            fmt::format("is a symbolic link (a {} must be a regular file)", what));
            }
            if (!trusted_owner(st.st_uid) || ++links > 40) {
                return fail(ErrorKind::permission, where,
                            links > 40
                                ? fmt::format("too many symbolic links: refusing this {}", what)
                                : fmt::format("the link {}/{} is owned by uid {}: refusing "
                                              "this {}",
                                              walked(), name, st.st_uid, what));
            }
            std::array<char, PATH_MAX> target{};
            const auto n =
                ::readlinkat(dirs.back().get(), name.c_str(), target.data(), target.size() - 1);
            if (n <= 0) {
                return std::unexpected(errno_error(errno, walked() + "/" + name));
            }
            const std::filesystem::path to{std::string{target.data(), static_cast<std::size_t>(n)}};
            if (to.is_absolute()) {
                if (auto r = restart_at_root(); !r) {
                    return std::unexpected(r.error());
                }
            }
            const auto rel = to.relative_path();
            for (auto it = std::make_reverse_iterator(rel.end());
                 it != std::make_reverse_iterator(rel.begin()); ++it) {
                todo.push_front(it->string());
            }
            continue;
        }
        if (!last) {
            UniqueFd next{::openat(dirs.back().get(), name.c_str(),
                                   O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
            if (!next) {
                return fail(ErrorKind::permission, where,
                            fmt::format("{}/{} changed while it was checked ({}): refusing this {}",
                                        walked(), name, std::strerror(errno), what));
            }
            names.push_back(name);
            if (auto r = enter(std::move(next)); !r) {
                return std::unexpected(r.error());
            }
            continue;
        }
        // The file: never opened unless it is a regular file (no device, FIFO or socket
        // is opened at all), then checked again on what was opened.
        if (!S_ISREG(st.st_mode)) {
            return fail(ErrorKind::permission, where,
                        fmt::format("is not a regular file: refusing this {}", what));
        }
        UniqueFd fd{::openat(dirs.back().get(), name.c_str(),
                             O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)};
        if (!fd) {
            const int err = errno;
            if (err == ELOOP) {
                return fail(ErrorKind::permission, where,
                            fmt::format("became a symbolic link while it was checked: refusing "
                                        "this {}",
                                        what));
            }
            return std::unexpected(errno_error(err, where));
        }
        if (::fstat(fd.get(), &st) != 0) {
            return std::unexpected(errno_error(errno, where));
        }
        if (!S_ISREG(st.st_mode)) {
            return fail(ErrorKind::permission, where,
                        fmt::format("is not a regular file: refusing this {}", what));
        }
        if (!trusted_owner(st.st_uid)) {
            return fail(ErrorKind::permission, where,
                        fmt::format("owned by uid {}, not root: refusing this {} (chown root)",
                                    st.st_uid, what));
        }
        if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
            return fail(ErrorKind::permission, where,
                        fmt::format("writable by other users (mode {:04o}): refusing this {} "
                                    "(chmod go-w)",
                                    st.st_mode & 07777, what));
        }
        // Reads block again as usual (a regular file never blocked anyway).
        ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
        return fd;
    }
    return fail(ErrorKind::config, where, fmt::format("names a directory, not a {}", what));
}

Result<std::string>
read_trusted(const std::filesystem::path& path, std::string_view what, std::size_t max_bytes) {
    auto fd = open_trusted(path, what, true);
    if (!fd) {
        return std::unexpected(fd.error());
    }
    std::string out;
    char buf[65536];
    for (;;) {
        const auto n = ::read(fd->get(), buf, sizeof buf);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return std::unexpected(errno_error(errno, path.string()));
        }
        if (n == 0) {
            return out;
        }
        if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
            return fail(ErrorKind::parse, path.string(),
                        fmt::format("larger than {} MiB: not a {}", max_bytes >> 20, what));
        }
        out.append(buf, static_cast<std::size_t>(n));
    }
}

} // namespace jp::sys
