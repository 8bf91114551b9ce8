// SPDX-License-Identifier: BSD-3-Clause
#include "job_result.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace jp::spank {

std::string print_result(const Settings& settings, const std::string& step_dir) {
    struct stat st {};
    if (::stat(step_dir.c_str(), &st) != 0) {
        return "no traces in " + step_dir + ": " + std::strerror(errno);
    }
    std::vector<std::string> args{settings.jouleprof, "report", "--wait",
                                  std::to_string(settings.stop_timeout_ms + 5000) + "ms", step_dir};
    std::vector<char*> argv;
    for (auto& a : args) {
        argv.push_back(a.data());
    }
    argv.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    if (pid < 0) {
        return std::string{"cannot fork: "} + std::strerror(errno);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return "jouleprof report " + step_dir + " failed";
    }
    return {};
}

std::string make_job_dir(const std::string& dir, uid_t uid, gid_t gid) {
    if (::mkdir(dir.c_str(), 0700) == 0) {
        if (::chown(dir.c_str(), uid, gid) != 0) {
            const int err = errno;
            ::rmdir(dir.c_str());
            return "cannot give " + dir + " to the job's owner: " + std::strerror(err);
        }
        return {};
    }
    if (errno != EEXIST) {
        return "cannot create " + dir + ": " + std::strerror(errno);
    }
    // Another node of the job may have created it a moment ago and not yet
    // given it to the owner: a second to do so.
    for (int i = 0; i < 20; ++i) {
        struct stat st {};
        if (::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid) {
            return {};
        }
        if (st.st_uid != 0) {
            break;
        }
        ::usleep(50'000);
    }
    return dir + " exists and is not the job owner's directory";
}

} // namespace jp::spank
