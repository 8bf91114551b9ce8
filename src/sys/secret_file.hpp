// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Passwords come from files only root can read, never from a command line.
#include "core/error.hpp"

#include <filesystem>
#include <string>

namespace jp::sys {

// The first line of path (without its newline). Refused unless path is a
// regular file (not a symlink) owned by root or by this process's effective
// user, with no group or other permission bits. Errors never quote the content.
[[nodiscard]] Result<std::string> read_secret_file(const std::filesystem::path& path);

} // namespace jp::sys
