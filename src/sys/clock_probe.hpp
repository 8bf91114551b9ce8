// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// How far this node's wall clock is from a clock the nodes of a job share, so
// that their traces can be laid on one time axis. The reference is the file
// system the traces are written to: a file created there gets its mtime from
// the file server's clock (NFS, Lustre, GPFS) or, on a local file system, from
// this node's own. Also what the kernel says of its clock's synchronisation.
#include "core/error.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>

namespace jp::sys {

struct ClockOffset {
    std::int64_t offset_ns = 0; // this node's wall clock minus the reference
    std::int64_t error_ns = 0;  // the offset is known within ± this
};

// Creates, stamps and removes a few small files in dir (".jp-clock-probe.*")
// and compares their mtimes with the wall clock read around each write. The
// mtime is the coarse clock (a tick behind at most: clock_getres of
// CLOCK_REALTIME_COARSE), which the error includes.
[[nodiscard]] Result<ClockOffset> probe_file_system_clock(const std::filesystem::path& dir);

struct ClockSync {
    bool synchronized = false; // the kernel's clock is disciplined (NTP, PTP, chrony)
    std::int64_t esterror_ns = 0;
    std::int64_t maxerror_ns = 0;
};

// adjtimex(2) read-only; nullopt when it fails.
[[nodiscard]] std::optional<ClockSync> kernel_clock_sync();

} // namespace jp::sys
