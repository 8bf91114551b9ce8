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

// The file's own checks, on the descriptor that was opened.
Result<void> check_file(int fd, const std::string& where, std::string_view what) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
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
    return {};
}

// The path resolved one name at a time from /, never by the kernel: each directory is
// opened by descriptor (O_NOFOLLOW) and checked on that descriptor, and a symbolic link
// is followed only once the directory holding it, and the link itself, are root's or
// this user's (so no one else could have put it there or changed it).
class Walk {
public:
    Walk(std::string where, std::string_view what, bool directory = false)
        : m_where(std::move(where)), m_what(what), m_directory(directory) {}

    Result<UniqueFd> open(const std::filesystem::path& start, bool final_link_allowed) {
        if (auto r = restart_at_root(); !r) {
            return std::unexpected(r.error());
        }
        for (const auto& part : start.relative_path()) {
            m_todo.push_back(part.string());
        }
        while (!m_todo.empty()) {
            auto name = std::move(m_todo.front());
            m_todo.pop_front();
            if (name.empty() || name == ".") {
                continue;
            }
            if (name == "..") {
                if (m_dirs.size() > 1) {
                    m_dirs.pop_back();
                    m_names.pop_back();
                }
                continue;
            }
            auto r = step(name, m_todo.empty(), final_link_allowed);
            if (!r) {
                return std::unexpected(r.error());
            }
            if (*r) {
                return std::move(*r);
            }
        }
        if (m_directory) { // the last directory entered, checked as every one on the way
            return std::move(m_dirs.back());
        }
        return fail(ErrorKind::config, m_where, fmt::format("names a directory, not a {}", m_what));
    }

private:
    [[nodiscard]] std::string walked() const {
        std::string w;
        for (const auto& n : m_names) {
            w += "/" + n;
        }
        return w.empty() ? std::string{"/"} : w;
    }
    // The path of `name` in the directory walked so far (no "//" at the root).
    [[nodiscard]] std::string walked(const std::string& name) const {
        return m_names.empty() ? "/" + name : walked() + "/" + name;
    }

    Result<void> enter(UniqueFd fd) {
        struct stat st {};
        if (::fstat(fd.get(), &st) != 0) {
            return std::unexpected(errno_error(errno, walked()));
        }
        if (auto why = untrusted_directory(st); !why.empty()) {
            return fail(ErrorKind::permission, m_where,
                        fmt::format("its directory {} {}: another user could choose this {}; "
                                    "refusing it",
                                    walked(), why, m_what));
        }
        m_dirs.push_back(std::move(fd));
        return {};
    }

    Result<void> restart_at_root() {
        m_dirs.clear();
        m_names.clear();
        UniqueFd root{::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)};
        if (!root) {
            return std::unexpected(errno_error(errno, "/"));
        }
        return enter(std::move(root));
    }

    // A link owned by root or this user, in a checked directory: its target's names
    // go first in what is left to walk.
    Result<void> follow(const std::string& name, const struct stat& st) {
        if (!trusted_owner(st.st_uid)) {
            return fail(ErrorKind::permission, m_where,
                        fmt::format("the link {}/{} is owned by uid {}: refusing this {}", walked(),
                                    name, st.st_uid, m_what));
        }
        if (++m_links > 40) {
            return fail(ErrorKind::permission, m_where,
                        fmt::format("too many symbolic links: refusing this {}", m_what));
        }
        std::array<char, PATH_MAX> target{};
        const auto n =
            ::readlinkat(m_dirs.back().get(), name.c_str(), target.data(), target.size() - 1);
        if (n <= 0) {
            return std::unexpected(errno_error(errno, walked(name)));
        }
        const std::filesystem::path to{std::string{target.data(), static_cast<std::size_t>(n)}};
        if (to.is_absolute()) {
            if (auto r = restart_at_root(); !r) {
                return r;
            }
        }
        const auto rel = to.relative_path();
        for (auto it = std::make_reverse_iterator(rel.end());
             it != std::make_reverse_iterator(rel.begin()); ++it) {
            m_todo.push_front(it->string());
        }
        return {};
    }

    // Never opened unless it is a regular file (no device, FIFO or socket is opened at
    // all), then checked again on what was opened.
    Result<UniqueFd> open_file(const std::string& name, const struct stat& st) {
        if (!S_ISREG(st.st_mode)) {
            return fail(ErrorKind::permission, m_where,
                        fmt::format("is not a regular file: refusing this {}", m_what));
        }
        UniqueFd fd{::openat(m_dirs.back().get(), name.c_str(),
                             O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)};
        if (!fd) {
            if (errno == ELOOP) {
                return fail(ErrorKind::permission, m_where,
                            fmt::format("became a symbolic link while it was checked: refusing "
                                        "this {}",
                                        m_what));
            }
            return std::unexpected(errno_error(errno, m_where));
        }
        if (auto r = check_file(fd.get(), m_where, m_what); !r) {
            return std::unexpected(r.error());
        }
        // Reads block again as usual (a regular file never blocked anyway).
        ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
        return fd;
    }

    // One name: a directory entered or a link followed (an empty descriptor: go on),
    // or the file opened.
    Result<UniqueFd> step(const std::string& name, bool last, bool final_link_allowed) {
        struct stat st {};
        if (::fstatat(m_dirs.back().get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
            return std::unexpected(errno_error(errno, walked(name)));
        }
        if (S_ISLNK(st.st_mode)) {
            if (last && !final_link_allowed) {
                return fail(
                    ErrorKind::permission, m_where,
                    fmt::format("is a symbolic link (a {} must be a regular file)", m_what));
            }
            if (auto r = follow(name, st); !r) {
                return std::unexpected(r.error());
            }
            return UniqueFd{};
        }
        if (last && !m_directory) {
            return open_file(name, st);
        }
        if (!S_ISDIR(st.st_mode)) {
            return fail(
                ErrorKind::permission, m_where,
                fmt::format("{} is not a directory: refusing this {}", walked(name), m_what));
        }
        UniqueFd next{::openat(m_dirs.back().get(), name.c_str(),
                               O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
        if (!next) {
            return fail(ErrorKind::permission, m_where,
                        fmt::format("{}/{} changed while it was checked ({}): refusing this {}",
                                    walked(), name, std::strerror(errno), m_what));
        }
        m_names.push_back(name);
        if (auto r = enter(std::move(next)); !r) {
            return std::unexpected(r.error());
        }
        return UniqueFd{};
    }

    std::string m_where;
    std::string_view m_what;
    bool m_directory = false; // the path names a directory, not a file
    std::vector<UniqueFd> m_dirs;
    std::vector<std::string> m_names; // the directories walked, for messages
    std::deque<std::string> m_todo;
    int m_links = 0;
};

} // namespace

Result<UniqueFd>
open_trusted(const std::filesystem::path& path, std::string_view what, bool final_link_allowed) {
    std::filesystem::path start = path;
    if (start.is_relative()) {
        std::error_code ec;
        start = std::filesystem::current_path(ec) / path;
        if (ec) {
            return std::unexpected(errno_error(ec.value(), path.string()));
        }
    }
    return Walk{path.string(), what}.open(start, final_link_allowed);
}

Result<UniqueFd> open_trusted_directory(const std::filesystem::path& path, std::string_view what) {
    if (path.is_relative()) {
        return fail(ErrorKind::config, path.string(),
                    fmt::format("must be an absolute path: refusing this {}", what));
    }
    auto fd = Walk{path.string(), what, true}.open(path, true);
    if (!fd) {
        return fd;
    }
    // Where files are written, not only read: no one else may add entries either (a sticky
    // directory others can write into would let them take our names first).
    struct stat st {};
    if (::fstat(fd->get(), &st) != 0) {
        return std::unexpected(errno_error(errno, path.string()));
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        return fail(ErrorKind::permission, path.string(),
                    fmt::format("is writable by other users (mode {:04o}): refusing this {} "
                                "(chmod go-w)",
                                st.st_mode & 07777, what));
    }
    return fd;
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
