// SPDX-License-Identifier: BSD-3-Clause
// The idle history's files in the daemon's state directory (daemon/idle_store.hpp): each
// written whole beside its name and renamed into place, read and moved only in a
// directory no other user could have changed.
#include "daemon/idle_store.hpp"
#include "sys/fd.hpp"
#include "sys/trusted_file.hpp"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace jp::daemon {
namespace {

std::filesystem::path normal(const std::filesystem::path& dir) {
    auto p = dir.lexically_normal();
    return p.has_filename() ? p : p.parent_path();
}

} // namespace

Result<void> save_idle_file(const std::filesystem::path& dir, const std::string& text) {
    const auto path = normal(dir);
    auto d = sys::open_trusted_directory(path, "state directory");
    if (!d && d.error().kind == ErrorKind::not_found && path.has_parent_path()) {
        auto parent = sys::open_trusted_directory(path.parent_path(), "state directory");
        if (!parent) {
            return std::unexpected(parent.error());
        }
        if (::mkdirat(parent->get(), path.filename().c_str(), 0700) != 0 && errno != EEXIST) {
            return std::unexpected(errno_error(errno, path.string()));
        }
        d = sys::open_trusted_directory(path, "state directory");
    }
    if (!d) {
        return std::unexpected(d.error());
    }
    // Written whole beside the file, then renamed over it: a reader (or a crash) sees the
    // old file or the new one, never half of one.
    const std::string tmp = std::string{"."} + k_idle_file + ".tmp";
    if (::unlinkat(d->get(), tmp.c_str(), 0) != 0 && errno != ENOENT) {
        return std::unexpected(errno_error(errno, (path / tmp).string()));
    }
    sys::UniqueFd fd{::openat(d->get(), tmp.c_str(),
                              O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)};
    if (!fd) {
        return std::unexpected(errno_error(errno, (path / tmp).string()));
    }
    for (std::size_t done = 0; done < text.size();) {
        const auto n = ::write(fd.get(), text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            const int err = n < 0 ? errno : ENOSPC;
            ::unlinkat(d->get(), tmp.c_str(), 0);
            return std::unexpected(errno_error(err, (path / tmp).string()));
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd.get()) != 0) {
        const int err = errno;
        ::unlinkat(d->get(), tmp.c_str(), 0);
        return std::unexpected(errno_error(err, (path / tmp).string()));
    }
    if (::renameat(d->get(), tmp.c_str(), d->get(), k_idle_file) != 0) {
        const int err = errno;
        ::unlinkat(d->get(), tmp.c_str(), 0);
        return std::unexpected(errno_error(err, (path / k_idle_file).string()));
    }
    return {};
}

Result<std::string> read_idle_file(const std::filesystem::path& dir, const std::string& name) {
    return sys::read_trusted(normal(dir) / name, "idle history", std::size_t{64} << 20);
}

Result<void>
move_idle_file(const std::filesystem::path& dir, const std::string& from, const std::string& to) {
    const auto path = normal(dir);
    auto d = sys::open_trusted_directory(path, "state directory");
    if (!d) {
        return std::unexpected(d.error());
    }
    if (::renameat(d->get(), from.c_str(), d->get(), to.c_str()) != 0) {
        return std::unexpected(errno_error(errno, (path / to).string()));
    }
    return {};
}

} // namespace jp::daemon
