// SPDX-License-Identifier: BSD-3-Clause
// jouleprof's Slurm SPANK plugin: `--jouleprof[=OPTS]` for srun, sbatch and
// salloc. On every node of a step, slurmstepd starts a monitor (`jouleprof
// record`, as the job's user) before the first task and stops it after the
// last: one trace per node in <dir>/<jobid>.<stepid>/<node>.jptrace. Nothing
// here can fail a job: every callback returns 0, and what went wrong is said
// once on the job's stderr and in slurmd's log. libslurm is not linked: the
// spank_* and slurm_* symbols come from the process that loads the plugin.
#include "as_user.hpp"
#include "job_result.hpp"
#include "monitor.hpp"
#include "settings.hpp"
#include "step_info.hpp"

#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern "C" {
#include <slurm/spank.h>

// What Slurm looks up (everything else is hidden: CXX_VISIBILITY_PRESET).
#define JP_SPANK_EXPORT __attribute__((visibility("default")))
// SPANK_PLUGIN's constants would have internal linkage in C++: declare them first.
JP_SPANK_EXPORT extern const char plugin_name[];
JP_SPANK_EXPORT extern const char plugin_type[];
JP_SPANK_EXPORT extern const unsigned int plugin_version;
JP_SPANK_EXPORT extern const unsigned int spank_plugin_version;
SPANK_PLUGIN(jouleprof, 1)
}

namespace {

jp::spank::Settings g_settings;
std::string g_user_opts;
std::string g_problem; // said once on the job's stderr, by local task 0
jp::spank::Monitor g_monitor;
jp::spank::StepInfo g_step;
std::vector<std::string> g_pids; // "rank:pid"
unsigned g_exited = 0;
std::string g_status = "complete";

std::string g_local_step_dir; // srun: where its step's node traces go
std::string g_site_problem;   // site mode: the job's directory could not be made
// A batch step's script says where its output goes (task_init, in the task,
// as the user): <step dir>/.batch-output holds the path, for its table at the end.
std::string batch_output_note() {
    return g_step.step_dir + "/.batch-output";
}

int on_option(int /*val*/, const char* optarg, int /*remote*/) {
    g_settings.enabled = true;
    g_settings.user_asked = true;
    // An option without a value reaches the steps of a batch job as "(null)".
    g_user_opts = optarg != nullptr && std::strcmp(optarg, "(null)") != 0 ? optarg : "";
    return 0; // checked where it is used: a bad value never refuses the job
}

char k_name[] = "jouleprof";
char k_arginfo[] = "[interval=500ms,dir=PATH,label=L]";
char k_usage[] = "Measure the energy of each node of the step with jouleprof; one trace per "
                 "node in DIR/<jobid>.<stepid>/ (default DIR: ./jouleprof)";
spank_option g_option{k_name, k_arginfo, k_usage, 2, 0, on_option};

void say_problem(const std::string& why) {
    g_problem =
        "jouleprof: step " + g_step.name + " on " + g_step.node + " is not measured: " + why;
    // slurm_error would reach srun's stderr as well: the log gets it, the job's
    // stderr gets it once, from task_init (srun and batch steps alike).
    slurm_info("%s", g_problem.c_str());
}

void start_step(spank_t sp) {
    const auto bad_option = jp::spank::apply_user_options(g_settings, g_user_opts);
    auto info = jp::spank::read_step(sp, g_settings);
    if (!info) {
        return; // not a step to measure (the extern step)
    }
    g_step = std::move(*info);
    if (!bad_option.empty()) {
        say_problem("--jouleprof=" + g_user_opts + ": " + bad_option);
        return;
    }
    if (::access(g_settings.jouleprof.c_str(), X_OK) != 0) {
        say_problem("cannot run " + g_settings.jouleprof + ": " + std::strerror(errno) +
                    " (set jouleprof=PATH in plugstack.conf)");
        return;
    }
    if (!g_site_problem.empty()) {
        say_problem(g_site_problem);
        return;
    }
    const auto launch = jp::spank::make_launch(g_settings, g_step);
    const long long t0 = jp::spank::now_ms();
    if (auto why = g_monitor.start(launch, g_settings.ready_timeout_ms); !why.empty()) {
        say_problem(why);
        return;
    }
    for (const auto& [key, value] : g_monitor.env()) {
        if (spank_setenv(sp, key.c_str(), value.c_str(), 1) != ESPANK_SUCCESS) {
            slurm_info("jouleprof: cannot set %s for the step's tasks", key.c_str());
        }
    }
    slurm_info("jouleprof: step %s on %s: measuring into %s (start edge after %lld ms)",
               g_step.name.c_str(), g_step.node.c_str(), g_step.trace.c_str(),
               jp::spank::now_ms() - t0);
}

// A batch step has no srun to print its table: it goes to the end of the batch
// script's output, written by `jouleprof report` run as the job's user.
void print_batch_result() {
    if (!g_step.name.ends_with(".batch")) {
        return;
    }
    // The note is in the user's step directory: read and removed as the user, a
    // regular file only (a FIFO or link put there is refused, never waited on).
    auto launch = jp::spank::make_launch(g_settings, g_step);
    const std::string path =
        jp::spank::take_user_file(launch, batch_output_note(), 4096, 2000).value_or("");
    if (path.empty() || path.front() != '/' || !g_settings.user_asked || !g_settings.result) {
        return;
    }
    if (auto why = jp::spank::run_as_user(launch, {g_settings.jouleprof, "report", g_step.step_dir},
                                          path, g_settings.stop_timeout_ms);
        !why.empty()) {
        slurm_info("jouleprof: step %s: no merged table in the batch output: %s",
                   g_step.name.c_str(), why.c_str());
    }
}

void finish_step(spank_t sp) {
    if (!g_monitor.running()) {
        return;
    }
    std::string pids;
    for (const auto& p : g_pids) {
        pids += (pids.empty() ? "" : ",") + p;
    }
    g_monitor.send("meta slurm.task_pids=" + pids);
    for (const auto& line : jp::spank::gpu_meta(sp)) {
        g_monitor.send(line);
    }
    const long long t0 = jp::spank::now_ms();
    const auto why = g_monitor.stop(g_status, g_settings.stop_timeout_ms);
    slurm_info("jouleprof: step %s on %s: %s, trace closed after %lld ms", g_step.name.c_str(),
               g_step.node.c_str(), g_status.c_str(), jp::spank::now_ms() - t0);
    if (!why.empty()) {
        slurm_error("jouleprof: step %s on %s: %s", g_step.name.c_str(), g_step.node.c_str(),
                    why.c_str());
    }
    // Nothing was said: no log file (as the user: it is in the user's directory).
    jp::spank::remove_if_empty(jp::spank::make_launch(g_settings, g_step), g_step.log, 2000);
    print_batch_result();
}

template <typename F> int guarded(F&& f) noexcept {
    try {
        f();
    } catch (...) { // nothing may reach slurmstepd; the job goes on
        slurm_error("jouleprof: internal error; the step goes on unmeasured");
    }
    return 0;
}

} // namespace

extern "C" {

JP_SPANK_EXPORT int slurm_spank_init(spank_t sp, int ac, char** av) {
    return guarded([&] {
        if (spank_option_register(sp, &g_option) != ESPANK_SUCCESS) {
            slurm_error("jouleprof: cannot register --jouleprof");
        }
        g_settings.jouleprof = JP_SPANK_JOULEPROF;
        for (int i = 0; i < ac; ++i) {
            if (auto why = jp::spank::apply_setting(g_settings, av[i], true);
                !why.empty() && spank_remote(sp) != 0) {
                slurm_error("jouleprof: plugstack.conf: %s (ignored)", why.c_str());
            }
        }
        if (g_settings.site && g_settings.site_dir.empty() && spank_remote(sp) != 0) {
            slurm_error("jouleprof: plugstack.conf: site=yes needs site_dir=PATH (ignored)");
        }
        g_settings.enabled =
            g_settings.enabled || (g_settings.site && !g_settings.site_dir.empty());
    });
}

// slurmstepd, still root (user_init runs with the user's effective uid): in site
// mode, the job's own directory under site_dir, for the job's owner only.
JP_SPANK_EXPORT int slurm_spank_init_post_opt(spank_t sp, int /*ac*/, char** /*av*/) {
    return guarded([&] {
        auto s = g_settings;
        std::uint32_t job = 0;
        uid_t uid = 0;
        gid_t gid = 0;
        if (spank_remote(sp) == 0 || !s.site || s.site_dir.empty() ||
            !jp::spank::apply_user_options(s, g_user_opts).empty() || !s.dir.empty() ||
            spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
            spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS ||
            spank_get_item(sp, S_JOB_GID, &gid) != ESPANK_SUCCESS) {
            return;
        }
        g_site_problem = jp::spank::make_job_dir(jp::spank::job_dir(s, job), uid, gid);
    });
}

// srun, as the user: where the step's traces will be, for its merged table at the end.
JP_SPANK_EXPORT int slurm_spank_local_user_init(spank_t sp, int /*ac*/, char** /*av*/) {
    return guarded([&] {
        std::uint32_t job = 0;
        std::uint32_t step = 0;
        if (!g_settings.user_asked ||
            !jp::spank::apply_user_options(g_settings, g_user_opts).empty() || !g_settings.result ||
            spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
            spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS) {
            return;
        }
        std::string dir = !g_settings.dir.empty() ? g_settings.dir
                          : g_settings.site && !g_settings.site_dir.empty()
                              ? jp::spank::job_dir(g_settings, job)
                              : "jouleprof";
        if (dir.front() != '/') {
            char cwd[4096] = {};
            dir = std::string{::getcwd(cwd, sizeof cwd) != nullptr ? cwd : "."} + "/" + dir;
        }
        g_local_step_dir = dir + "/" + jp::spank::step_name(job, step);
    });
}

JP_SPANK_EXPORT int slurm_spank_user_init(spank_t sp, int /*ac*/, char** /*av*/) {
    return guarded([&] {
        if (spank_remote(sp) != 0 && g_settings.enabled) {
            start_step(sp);
        }
    });
}

JP_SPANK_EXPORT int slurm_spank_task_init(spank_t sp, int /*ac*/, char** /*av*/) {
    return guarded([&] {
        int local = -1;
        if (!g_problem.empty() && spank_get_item(sp, S_TASK_ID, &local) == ESPANK_SUCCESS &&
            local == 0) {
            std::fprintf(stderr, "%s\n", g_problem.c_str());
            std::fflush(stderr);
        }
        if (g_monitor.running() && g_step.name.ends_with(".batch")) {
            // Here, just before exec, the task's output is in place: note where it goes.
            char out[4096] = {};
            const ssize_t n = ::readlink("/proc/self/fd/1", out, sizeof out - 1);
            const int fd = ::open(batch_output_note().c_str(),
                                  O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (n > 0 && out[0] == '/' && fd >= 0) {
                (void)!::write(fd, out, static_cast<std::size_t>(n));
            }
            if (fd >= 0) {
                ::close(fd);
            }
        }
    });
}

JP_SPANK_EXPORT int slurm_spank_task_post_fork(spank_t sp, int /*ac*/, char** /*av*/) {
    return guarded([&] {
        pid_t pid = 0;
        std::uint32_t rank = 0;
        if (g_monitor.running() && spank_get_item(sp, S_TASK_PID, &pid) == ESPANK_SUCCESS &&
            spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) == ESPANK_SUCCESS) {
            g_pids.push_back(std::to_string(rank) + ":" + std::to_string(pid));
        }
    });
}

JP_SPANK_EXPORT int slurm_spank_task_exit(spank_t sp, int /*ac*/, char** /*av*/) {
    return guarded([&] {
        int status = 0;
        if (!g_monitor.running() ||
            spank_get_item(sp, S_TASK_EXIT_STATUS, &status) != ESPANK_SUCCESS) {
            return;
        }
        if (WIFSIGNALED(status)) {
            g_status = "interrupted";
        } else if (WEXITSTATUS(status) != 0 && g_status == "complete") {
            g_status = "failed";
        }
        if (++g_exited >= g_step.local_tasks) {
            finish_step(sp);
        }
    });
}

JP_SPANK_EXPORT int slurm_spank_exit(spank_t sp, int /*ac*/, char** /*av*/) {
    return guarded([&] {
        if (spank_remote(sp) != 0) {
            finish_step(sp); // tasks that never started, or an exit not seen
        } else if (spank_context() == S_CTX_LOCAL && !g_local_step_dir.empty()) {
            if (auto why = jp::spank::print_result(g_settings, g_local_step_dir); !why.empty()) {
                std::fprintf(stderr, "jouleprof: no merged result for the step: %s\n", why.c_str());
            }
        }
    });
}

} // extern "C"
