// SPDX-License-Identifier: BSD-3-Clause
#include "sys/secret_file.hpp"

#include "sys/fd.hpp"
#include "sys/trusted_file.hpp"

#include <cerrno>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace jp::sys {

namespace {
// Reading stops past this much: a password file is one short line.
constexpr std::size_t k_max_secret_bytes = std::size_t{64} * 1024;
} // namespace

Result<std::string> read_secret_file(const std::filesystem::path& path) {
    // Not a link, not a FIFO (O_NONBLOCK: never waited on), in directories only root or
    // this user can change, checked as it is opened.
    auto opened = open_trusted(path, "password file", false);
    if (!opened) {
        return std::unexpected(opened.error());
    }
    const UniqueFd owned = std::move(*opened);
    const int fd = owned.get();
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        return std::unexpected(errno_error(errno, path.string()));
    }
    const auto hint = fmt::format("chown root:root {0} && chmod 0600 {0}", path.string());
    if (!S_ISREG(st.st_mode)) {
        return fail(ErrorKind::permission, path.string(),
                    "not a regular file (a password file must be one)", hint);
    }
    if (st.st_uid != 0 && st.st_uid != ::geteuid()) {
        return fail(
            ErrorKind::permission, path.string(),
            fmt::format("owned by uid {}: a password file must be owned by root", st.st_uid), hint);
    }
    if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
        return fail(ErrorKind::permission, path.string(),
                    fmt::format("mode {:04o} lets other users read it: a password file must be "
                                "readable by its owner only",
                                st.st_mode & 07777),
                    hint);
    }
    std::string content;
    char buf[4096];
    for (;;) {
        const auto n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return std::unexpected(errno_error(errno, path.string()));
        }
        if (n == 0 || content.size() > k_max_secret_bytes) {
            break;
        }
        content.append(buf, static_cast<std::size_t>(n));
    }
    if (const auto eol = content.find_first_of("\r\n"); eol != std::string::npos) {
        content.resize(eol);
    }
    if (content.empty()) {
        return fail(ErrorKind::config, path.string(), "is empty (the first line is the password)");
    }
    return content;
}

} // namespace jp::sys
