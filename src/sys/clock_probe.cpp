// SPDX-License-Identifier: BSD-3-Clause
#include "sys/clock_probe.hpp"

#include <cerrno>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/timex.h>
#include <unistd.h>

namespace jp::sys {
namespace {

std::int64_t wall_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// How far behind the true time a file's mtime may be: one tick of the coarse clock.
std::int64_t mtime_granularity_ns() {
    timespec res{};
    if (::clock_getres(CLOCK_REALTIME_COARSE, &res) != 0) {
        return 10'000'000; // HZ=100, the coarsest a Linux kernel ticks
    }
    return std::int64_t{res.tv_sec} * 1'000'000'000 + res.tv_nsec;
}

constexpr int k_probes = 5;

} // namespace

Result<ClockOffset> probe_file_system_clock(const std::filesystem::path& dir) {
    const std::int64_t tick = mtime_granularity_ns();
    std::optional<ClockOffset> best;
    for (int i = 0; i < k_probes; ++i) {
        const auto path = dir / fmt::format(".jp-clock-probe.{}.{}", ::getpid(), i);
        const std::int64_t before = wall_ns();
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            return std::unexpected(errno_error(errno, path.string()));
        }
        struct stat st {};
        const bool stamped = ::write(fd, "x", 1) == 1 && ::fstat(fd, &st) == 0;
        const int err = errno;
        const std::int64_t after = wall_ns();
        ::close(fd);
        ::unlink(path.c_str());
        if (!stamped) {
            return std::unexpected(errno_error(err, path.string()));
        }
        // The write stamps the mtime (an NFS client flushes it to the server before
        // fstat returns the server's attributes). The reference read between `before` and `after`
        // lies in [mtime, mtime + tick].
        const std::int64_t mtime =
            std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
        const ClockOffset o{before + (after - before) / 2 - (mtime + tick / 2),
                            (after - before) / 2 + tick / 2};
        if (!best || o.error_ns < best->error_ns) {
            best = o;
        }
    }
    return *best;
}

std::optional<ClockSync> kernel_clock_sync() {
    timex tx{};
    const int state = ::adjtimex(&tx);
    if (state < 0) {
        return std::nullopt;
    }
    ClockSync s;
    s.synchronized = state != TIME_ERROR && (tx.status & STA_UNSYNC) == 0;
    s.esterror_ns = std::int64_t{tx.esterror} * 1000; // µs
    s.maxerror_ns = std::int64_t{tx.maxerror} * 1000;
    return s;
}

} // namespace jp::sys
