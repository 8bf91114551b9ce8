// SPDX-License-Identifier: BSD-3-Clause
#include "sys/output.hpp"

#include <array>
#include <cerrno>
#include <fcntl.h>
#include <fstream>
#include <string_view>
#include <unistd.h>

namespace jp::sys {
namespace {

namespace fs = std::filesystem;

} // namespace

bool same_file(const fs::path& a, const fs::path& b) {
    std::error_code ea;
    std::error_code eb;
    if (fs::exists(a, ea) && fs::exists(b, eb)) {
        return fs::equivalent(a, b, ea);
    }
    // Absolute first: weakly_canonical makes absolute only the part that exists, so a new
    // "out.html" and "./out.html" would differ.
    const auto ca = fs::weakly_canonical(fs::absolute(a, ea), ea);
    const auto cb = fs::weakly_canonical(fs::absolute(b, eb), eb);
    return a == b || (!ea && !eb && ca == cb);
}

namespace {

// An SQLite file (a trace, or another database): by its 16-byte header.
bool is_trace(const fs::path& p) {
    constexpr std::string_view k_magic{"SQLite format 3\0", 16};
    std::array<char, 16> head{};
    const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        return false;
    }
    const auto n = ::read(fd, head.data(), head.size());
    ::close(fd);
    return n == static_cast<ssize_t>(head.size()) &&
           std::string_view{head.data(), head.size()} == k_magic;
}

std::string in_dir_of(const fs::path& out) {
    return out.has_parent_path() ? out.parent_path().string() : std::string{"."};
}

} // namespace

Result<void> check_output(const fs::path& out, const OutputRules& rules) {
    for (const auto& in : rules.inputs) {
        for (std::string_view companion : {"", "-wal", "-shm", "-journal"}) {
            const fs::path guarded = in.string() + std::string{companion};
            if (same_file(out, guarded)) {
                return fail(ErrorKind::config, out.string(),
                            companion.empty()
                                ? "is the input " + in.string() + "; write the output elsewhere"
                                : "is the SQLite " + std::string{companion.substr(1)} +
                                      " file of the input " + in.string() +
                                      "; write the output elsewhere");
            }
        }
    }
    std::error_code ec;
    const auto st = fs::status(out, ec);
    if (fs::is_directory(st)) {
        return fail(ErrorKind::config, out.string(), "is a directory; name a file");
    }
    // The output is renamed into place: that would put a file where a device, a pipe or a
    // link is (as root: /dev/null itself). Only a regular file is ever replaced.
    const auto own = fs::symlink_status(out, ec);
    if (fs::exists(own) && !fs::is_regular_file(own)) {
        return fail(ErrorKind::config, out.string(),
                    fs::is_symlink(own)
                        ? "is a symbolic link; name the file itself"
                        : "is not a regular file (a device, pipe or socket); name a file");
    }
    if (fs::is_regular_file(own) && is_trace(out)) {
        return fail(ErrorKind::config, out.string(),
                    "is a trace (an SQLite file), never replaced by an output: name another file");
    }
    if (fs::exists(st) && !rules.force) {
        return fail(ErrorKind::config, out.string(),
                    "already exists (use --force to replace it, or name another file)");
    }
    if (!fs::is_directory(fs::status(in_dir_of(out), ec))) {
        return fail(ErrorKind::not_found, out.string(),
                    "its directory " + in_dir_of(out) + " does not exist");
    }
    return {};
}

Result<void> write_output(const fs::path& out, const OutputRules& rules, const WriteTo& write) {
    if (auto ok = check_output(out, rules); !ok) {
        return ok;
    }
    // A name of our own beside the destination: O_EXCL, so never someone else's file.
    const fs::path tmp = fs::path{in_dir_of(out)} /
                         ("." + out.filename().string() + ".jp-" + std::to_string(::getpid()));
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        return std::unexpected(errno_error(errno, tmp.string()));
    }
    ::close(fd);
    const auto give_up = [&](Error e) -> Result<void> {
        std::error_code ec;
        fs::remove(tmp, ec);
        return std::unexpected(std::move(e));
    };
    {
        std::ofstream f{tmp, std::ios::binary | std::ios::trunc};
        if (!f) {
            return give_up(errno_error(errno, tmp.string()));
        }
        if (auto r = write(f); !r) {
            return give_up(r.error());
        }
        errno = 0;
        f.flush();
        if (!f) {
            auto e = errno_error(errno != 0 ? errno : EIO, out.string());
            e.detail += "; nothing was replaced";
            return give_up(std::move(e));
        }
    }
    if (::rename(tmp.c_str(), out.c_str()) != 0) {
        return give_up(errno_error(errno, out.string()));
    }
    return {};
}

Result<NewFolders> prepare_output_dir(const fs::path& dir, bool force) {
    std::error_code ec;
    if (fs::exists(dir, ec)) {
        if (!fs::is_directory(dir, ec)) {
            return fail(ErrorKind::config, dir.string(), "exists and is not a directory");
        }
        if (!fs::is_empty(dir, ec) && !force) {
            return fail(ErrorKind::config, dir.string(),
                        "already holds files (use --force to add to it, or name another "
                        "directory)");
        }
    }
    return NewFolders::make(dir);
}

} // namespace jp::sys
