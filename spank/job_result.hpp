// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The job's merged table at a step's end: srun (the plugin's local context,
// running as the user, its stdout the job's output) runs `jouleprof report
// --wait` on the step's directory once the step is over.
#include "settings.hpp"

#include <string>

namespace jp::spank {

// Runs `jouleprof report --wait T DIR` with srun's stdout and stderr, waiting
// for it (T: the step's stop timeout and 5 s more). Returns "" or why not.
std::string print_result(const Settings& settings, const std::string& step_dir);

// Site mode, as root in slurmstepd: the job's directory under site_dir,
// created for the job's owner (mode 0700) unless it exists already as theirs.
// Returns "" or why not.
std::string make_job_dir(const std::string& dir, uid_t uid, gid_t gid);

} // namespace jp::spank
