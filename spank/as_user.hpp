// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What the plugin does in the job's user's directories, it does as that user:
// slurmstepd is root, and a path the user controls (a symbolic link, a FIFO
// put where a file was expected, a directory swapped for a link) must never
// make root read, wait on, or remove anything. Each operation runs in a child
// that has become the user for good, opens with O_NOFOLLOW | O_NONBLOCK and
// accepts only a regular file. The parts used between fork and exec are
// async-signal-safe (slurmstepd has threads).
#include "monitor.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace jp::spank {

// Between fork and exec: writes text with write(2).
void put(int fd, const char* text);
// Between fork and exec: "error: WHAT PATH: why" on fd, then _exit(127).
[[noreturn]] void child_fail(int fd, const char* what, const char* path, int err);
// Between fork and exec: becomes launch's user for good (groups, gid, uid), or
// child_fail on out.
void become_user(const Launch& launch, int out);

// As the user: reads at most max_bytes of the regular file at path, then
// removes it. Nothing when it is missing, not a regular file (a FIFO, a
// device), a symbolic link, or not done within timeout_ms.
[[nodiscard]] std::optional<std::string> take_user_file(const Launch& launch,
                                                        const std::string& path,
                                                        std::size_t max_bytes,
                                                        int timeout_ms);

// As the user: removes path when it is an empty regular file.
void remove_if_empty(const Launch& launch, const std::string& path, int timeout_ms);

} // namespace jp::spank
