// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What jouleprofd's accounts keep between a window's choice and its publication
// (daemon/accounts.hpp): the CPU time read at each snapshot, and each job followed.
#include "daemon/accounts.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace jp::daemon {

// A job's CPU time when it was read.
struct JobPoint {
    attrib::JobCpu::Reading reading;
    std::int64_t t_ns = 0;
};

struct Accounts::Snapshot {
    std::int64_t t_ns = 0;
    std::vector<double> node;                          // busy seconds per CPU id
    std::map<std::string, JobPoint, std::less<>> jobs; // read now, or when it ended since
    std::set<std::string, std::less<>> unread;         // running, but not read then
};

struct Accounts::Tracked {
    AccountJob job;
    attrib::Allocation alloc;
    std::optional<attrib::JobCpu> cpu; // none once it ended (its last reading taken)
    std::optional<JobPoint> first;     // when it was first seen (unless unread then)
    std::optional<JobPoint> last;      // when it ended, until a snapshot has taken it
    std::uint64_t last_window = 0;     // the window whose snapshot took it (0: none yet)
    bool settled = false;              // that window was split: its figures are final
    std::size_t holders = 0;
    std::string root; // the holder whose process tree it is ("" for a group)
};

} // namespace jp::daemon
