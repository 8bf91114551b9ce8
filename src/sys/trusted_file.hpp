// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Files that decide what a privileged process does (jouleprofd's config, the
// password files and libraries it names) must be ones no other user could
// have chosen or changed, checked without a window between check and use.
#include "core/error.hpp"
#include "sys/fd.hpp"

#include <filesystem>
#include <string>

namespace jp::sys {

// Opens path for reading, checked as it is opened. The path is resolved one
// name at a time from /, never by the kernel: every directory is opened by
// descriptor with O_NOFOLLOW and must be owned by root or by this process's
// effective user and writable by no one else (a directory with the sticky bit,
// like /tmp, is accepted: no one else can replace or remove what is in it); a
// symbolic link on the way is followed only when it is root's or this user's,
// in such a directory (final_link_allowed: also as the last name). The file
// must be a regular file before it is opened (no device or FIFO is ever
// opened) and, on the opened descriptor, a regular file owned by root or this
// user, writable by no one else. `what` names the file in errors ("config
// file", "library"). A name changed meanwhile fails the open; it is never
// followed.
[[nodiscard]] Result<UniqueFd>
open_trusted(const std::filesystem::path& path, std::string_view what, bool final_link_allowed);

// A directory to write into, checked as open_trusted checks the directories on the way to a
// file (links root's or this user's followed, every directory root's or this user's and
// writable by no one else, sticky ones allowed on the way), and the directory itself
// writable by no one else, sticky or not. An O_PATH descriptor, for the *at calls.
[[nodiscard]] Result<UniqueFd> open_trusted_directory(const std::filesystem::path& path,
                                                      std::string_view what);

// open_trusted, then the whole file (at most max_bytes).
[[nodiscard]] Result<std::string> read_trusted(const std::filesystem::path& path,
                                               std::string_view what,
                                               std::size_t max_bytes = std::size_t{16} << 20);

} // namespace jp::sys
