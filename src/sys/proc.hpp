// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Facts about other processes from the real /proc (never a fake root: these
// identify live processes, e.g. a daemon's clients).
#include <cstdint>
#include <optional>
#include <sys/types.h>

namespace jp::sys {

// The process's start time (field 22 of /proc/PID/stat, clock ticks since
// boot): with the pid it names one process, even after the pid is reused.
[[nodiscard]] std::optional<std::uint64_t> process_start_time(pid_t pid);

// Resident set size of this process in bytes (/proc/self/statm).
[[nodiscard]] std::optional<std::uint64_t> resident_bytes();

} // namespace jp::sys
