// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A stand-in for slurmstepd: loads jouleprof_spank.so with dlopen and calls its
// callbacks in slurmstepd's order, in the remote context, as root, for a step of
// a job owned by another user. The spank_* and slurm_* functions the plugin
// calls are this program's own (exported: the plugin links no libslurm), with
// the step's items from Step.
#include <cstdint>
#include <map>
#include <string>
#include <sys/types.h>
#include <vector>

namespace jp::test {

struct Step {
    uid_t uid = 65534;
    gid_t gid = 65534;
    std::uint32_t job_id = 4242;
    std::uint32_t step_id = 0;              // 0xfffffffb: the batch step
    std::string work_dir;                   // slurmstepd's working directory: the job's
    std::vector<std::string> args;          // plugstack.conf's arguments for the plugin
    std::map<std::string, std::string> env; // the job's environment (spank_getenv)
};

class SpankHost {
public:
    // Loads the plugin (path) for step; nothing is called yet.
    SpankHost(const std::string& plugin, Step step);
    ~SpankHost();
    SpankHost(const SpankHost&) = delete;
    SpankHost& operator=(const SpankHost&) = delete;

    // slurm_spank_init with the plugstack.conf arguments, then the user's
    // --jouleprof option (as the job's environment carries it).
    void init(const std::string& user_option);
    // slurm_spank_init_post_opt then slurm_spank_user_init: the monitor starts.
    void user_init();
    // One task that exited with status (slurm_spank_task_exit): the last one
    // ends the step's measurement.
    void task_exit(int status);
    // slurm_spank_exit.
    void exit();

    // Every line the plugin logged (slurm_info, slurm_error), in order.
    [[nodiscard]] static const std::vector<std::string>& log();

private:
    void* m_handle = nullptr;
    std::vector<std::string> m_args;
};

} // namespace jp::test
