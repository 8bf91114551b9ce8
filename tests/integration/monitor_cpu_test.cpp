// SPDX-License-Identifier: BSD-3-Clause
// The monitor overhead a run reports is everything the monitor process spent
// up to the run's end, its start-up included (discovery, trace creation), not
// only the sampling during the job: at least most of the CPU time the kernel
// accounts to the whole jouleprof process (the rest is the summary printed
// after the run).
#include "fake_sysfs.hpp"
#include "shell.hpp"
#include "trace/reader.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace jp::test {
namespace {

double cpu_seconds(const rusage& u) {
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

TEST(MonitorCpu, ARunReportsItsStartUpToo) {
    FakeSysfs fs;
    add_rapl_zone(fs, "intel-rapl:0", "package-0", 0, 4294967296ULL, 0444);
    const auto trace = fs.path("/t.jptrace").string();
    const auto root = fs.root().string();
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        // The job is `true`: the monitor's own work is nearly all there is.
        ::execl(JP_BINARY, JP_BINARY, "-q", "--sysfs-root", root.c_str(), "run", "--no-live", "-o",
                trace.c_str(), "--", "true", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    int status = 0;
    rusage usage{};
    ASSERT_EQ(::wait4(pid, &status, 0, &usage), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    auto r = trace::Reader::open(trace);
    ASSERT_TRUE(r) << r.error().message();
    const double reported = r->runs().at(0).monitor_cpu_s;
    const double whole = cpu_seconds(usage); // with the job (`true`): a millisecond
    EXPECT_GT(reported, 0.5 * whole) << "reported " << reported << " s of " << whole << " s";
    EXPECT_LE(reported, whole + 0.01);
}

} // namespace
} // namespace jp::test
