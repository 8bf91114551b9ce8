// SPDX-License-Identifier: BSD-3-Clause
#include "profile_writer.hpp"

#include <cmath>
#include <ctime>
#include <fcntl.h>
#include <fmt/format.h>
#include <numbers>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace jp::test {
namespace {
std::int64_t now_ns() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
} // namespace

ProfileWriter::ProfileWriter(std::filesystem::path energy_uj, Profile p, std::int64_t t0_mono_ns)
    : m_path(std::move(energy_uj)), m_p(p), m_t0(t0_mono_ns), m_fd(open_for_write(m_path)) {
    if (m_fd < 0) {
        throw std::runtime_error("cannot open " + m_path.string() + " for writing");
    }
    m_thread = std::thread([this] { loop(); });
}

ProfileWriter::~ProfileWriter() {
    m_stop = true;
    m_thread.join();
}

double ProfileWriter::energy_at(std::int64_t t_ns) const {
    const double t = static_cast<double>(t_ns - m_t0) * 1e-9;
    const double w = 2 * std::numbers::pi / m_p.period_s;
    return m_p.base_w * t + m_p.amp_w * (1 - std::cos(w * t)) / w;
}

double ProfileWriter::joules_between(std::int64_t a_ns, std::int64_t b_ns) const {
    return energy_at(b_ns) - energy_at(a_ns);
}

int ProfileWriter::open_for_write(const std::filesystem::path& path) {
    // The fake file keeps its kernel mode (0444/0400): its owner lifts it for
    // this one open, as a non-root test user could not write it otherwise.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        return -1;
    }
    ::chmod(path.c_str(), st.st_mode | S_IWUSR);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    ::chmod(path.c_str(), st.st_mode & 07777);
    return fd;
}

void ProfileWriter::loop() {
    const int fd = m_fd;
    std::int64_t last = 0;
    while (!m_stop) {
        const auto now = now_ns();
        if (last != 0 && now - last > m_max_gap.load()) {
            m_max_gap = now - last;
        }
        last = now;
        const double e = std::fmod(m_p.start_j + energy_at(now), m_p.range_j);
        // Fixed width so an in-place rewrite never leaves stale digits behind.
        const auto text = fmt::format("{:013}\n", static_cast<std::uint64_t>(e * 1e6));
        (void)!::pwrite(fd, text.data(), text.size(), 0);
        timespec ts{0, m_p.tick_ns};
        nanosleep(&ts, nullptr);
    }
    ::close(fd);
}

} // namespace jp::test
