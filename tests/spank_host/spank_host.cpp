// SPDX-License-Identifier: BSD-3-Clause
#include "spank_host.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern "C" {
#include <slurm/spank.h>
}

namespace {

constexpr auto k_success = static_cast<spank_err_t>(ESPANK_SUCCESS);
jp::test::Step g_step;
spank_option g_option{};
bool g_have_option = false;
int g_task_exit_status = 0;
std::vector<std::string> g_log;
spank_context_t g_context = S_CTX_REMOTE;

void log_line(const char* level, const char* format, va_list ap) {
    char buf[4096];
    std::vsnprintf(buf, sizeof buf, format, ap);
    g_log.push_back(std::string{level} + buf);
    std::fprintf(stderr, "[spank host] %s%s\n", level, buf);
}

} // namespace

// What slurmstepd gives the plugin: the functions spank.h declares.
extern "C" {

int spank_remote(spank_t /*sp*/) {
    return g_context == S_CTX_REMOTE ? 1 : 0;
}

spank_context_t spank_context() {
    return g_context;
}

spank_err_t spank_option_register(spank_t /*sp*/, struct spank_option* opt) {
    g_option = *opt;
    g_have_option = true;
    return k_success;
}

spank_err_t spank_get_item(spank_t /*sp*/, spank_item_t item, ...) {
    va_list ap;
    va_start(ap, item);
    spank_err_t rc = k_success;
    switch (item) {
    case S_JOB_UID:
        *va_arg(ap, uid_t*) = g_step.uid;
        break;
    case S_JOB_GID:
        *va_arg(ap, gid_t*) = g_step.gid;
        break;
    case S_JOB_ID:
        *va_arg(ap, std::uint32_t*) = g_step.job_id;
        break;
    case S_JOB_STEPID:
        *va_arg(ap, std::uint32_t*) = g_step.step_id;
        break;
    case S_JOB_NNODES:
        *va_arg(ap, std::uint32_t*) = 1;
        break;
    case S_JOB_NODEID:
        *va_arg(ap, std::uint32_t*) = 0;
        break;
    case S_JOB_LOCAL_TASK_COUNT:
        *va_arg(ap, std::uint32_t*) = 1;
        break;
    case S_TASK_ID:
        *va_arg(ap, int*) = 0;
        break;
    case S_TASK_GLOBAL_ID:
        *va_arg(ap, std::uint32_t*) = 0;
        break;
    case S_TASK_EXIT_STATUS:
        *va_arg(ap, int*) = g_task_exit_status;
        break;
    case S_JOB_SUPPLEMENTARY_GIDS: {
        static gid_t groups[1];
        groups[0] = g_step.gid;
        *va_arg(ap, gid_t**) = groups;
        *va_arg(ap, int*) = 1;
        break;
    }
    default:
        rc = ESPANK_NOT_AVAIL;
        break;
    }
    va_end(ap);
    return rc;
}

spank_err_t spank_getenv(spank_t /*sp*/, const char* var, char* buf, int len) {
    const auto it = g_step.env.find(var);
    if (it == g_step.env.end()) {
        return ESPANK_ENV_NOEXIST;
    }
    if (static_cast<int>(it->second.size()) >= len) {
        return ESPANK_NOSPACE;
    }
    std::memcpy(buf, it->second.c_str(), it->second.size() + 1);
    return k_success;
}

spank_err_t spank_setenv(spank_t /*sp*/, const char* var, const char* val, int /*overwrite*/) {
    g_step.env[var] = val;
    return k_success;
}

void slurm_info(const char* format, ...) {
    va_list ap;
    va_start(ap, format);
    log_line("info: ", format, ap);
    va_end(ap);
}

void slurm_error(const char* format, ...) {
    va_list ap;
    va_start(ap, format);
    log_line("error: ", format, ap);
    va_end(ap);
}

} // extern "C"

namespace jp::test {
namespace {

using Callback = int (*)(spank_t, int, char**);

} // namespace

SpankHost::SpankHost(const std::string& plugin, Step step) {
    g_step = std::move(step);
    m_args = g_step.args;
    g_log.clear();
    m_handle = ::dlopen(plugin.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (m_handle == nullptr) {
        throw std::runtime_error(std::string{"dlopen: "} + ::dlerror());
    }
    if (!g_step.work_dir.empty() && ::chdir(g_step.work_dir.c_str()) != 0) {
        throw std::runtime_error("cannot enter " + g_step.work_dir);
    }
}

SpankHost::~SpankHost() {
    if (m_handle != nullptr) {
        ::dlclose(m_handle);
    }
}

namespace {

void call(void* handle, const char* name, std::vector<std::string>& args) {
    auto f = reinterpret_cast<Callback>(::dlsym(handle, name));
    if (f == nullptr) {
        throw std::runtime_error(std::string{"the plugin has no "} + name);
    }
    std::vector<char*> argv;
    for (auto& a : args) {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    f(nullptr, static_cast<int>(args.size()), argv.data());
}

} // namespace

void SpankHost::init(const std::string& user_option) {
    call(m_handle, "slurm_spank_init", m_args);
    if (!g_have_option || g_option.cb == nullptr) {
        throw std::runtime_error("the plugin registered no option");
    }
    g_option.cb(g_option.val, user_option.c_str(), 1);
}

void SpankHost::user_init() {
    std::vector<std::string> none;
    call(m_handle, "slurm_spank_init_post_opt", none);
    call(m_handle, "slurm_spank_user_init", none);
}

void SpankHost::task_exit(int status) {
    g_task_exit_status = status;
    std::vector<std::string> none;
    call(m_handle, "slurm_spank_task_exit", none);
}

void SpankHost::exit() {
    std::vector<std::string> none;
    call(m_handle, "slurm_spank_exit", none);
}

const std::vector<std::string>& SpankHost::log() {
    return g_log;
}

} // namespace jp::test
