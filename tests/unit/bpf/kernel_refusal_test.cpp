// SPDX-License-Identifier: BSD-3-Clause
// Where the kernel refuses eBPF (an ordinary user: no CAP_BPF or CAP_PERFMON), the kernel
// sampler says why in one line, and the counters are read from the sampler's timer instead.
// As root, the check runs in a child that has become nobody; as anyone else, here.
#include "bpf/kernel_sampler.hpp"
#include "perf_counters.hpp"
#include "sensors/perf_rapl/kernel_sensor.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <grp.h>
#include <gtest/gtest.h>
#include <string>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>

namespace jp {
namespace {

constexpr std::string_view k_no_counter = "skip: ";

// What an unprivileged process gets; empty when all is as it should be, else what was wrong
// (k_no_counter first where this kernel lets it open no perf event at all, as Debian's and
// Ubuntu's kernel.perf_event_paranoid 3 and 4 do: the test's precondition, not its subject).
std::string refusal_problem() {
    const int fd = test::open_own_counter();
    if (fd < 0) {
        return std::string{k_no_counter} +
               "perf_event_open on our own task clock: " + std::strerror(errno);
    }
    std::string problem;
    const std::array<bpf::CounterSpec, 1> specs{{{fd, 0}}};
    const auto sampler = bpf::KernelSampler::start(specs, {1'000'000, 0});
    if (sampler) {
        problem = "the kernel sampler started without privilege";
    } else if (bpf::built_in() &&
               sampler.error().find("CAP_BPF and CAP_PERFMON") == std::string::npos) {
        problem = "the refusal does not say what is needed: " + sampler.error();
    } else if (sampler.error().find('\n') != std::string::npos) {
        problem = "the refusal is more than one line: " + sampler.error();
    }
    // Through the sensor: the counters come back, read from the timer, with the reason.
    Channel ch;
    ch.name = "task-clock";
    ch.quantity = Quantity::energy;
    ch.backend = "perf_rapl";
    std::vector<sensors::perf_rapl::Counter> counters{{fd, 1e-9, 0}};
    auto plain = std::make_unique<sensors::perf_rapl::PerfRaplSensor>(
        std::vector<Channel>{ch}, std::move(counters), sensors::real_perf_api());
    std::string note;
    const auto sensor = sensors::perf_rapl::sample_in_kernel(std::move(plain), 0, note);
    if (sensor == nullptr || sensor->batched()) {
        problem += "; the sensor is not read from the timer";
    } else if (note != (sampler ? std::string{} : sampler.error())) {
        problem += "; the note is not the refusal: " + note;
    } else {
        std::array<sensors::Value, 1> v{};
        sensor->read(v);
        if (v[0].status != sensors::ReadStatus::ok) {
            problem += "; the timer's read failed";
        }
    }
    return problem; // the sensor closed fd
}

TEST(KernelRefusal, AnOrdinaryUserIsToldWhyAndTheTimerReadsTheCounters) {
    if (::geteuid() != 0) {
        const auto problem = refusal_problem();
        if (problem.starts_with(k_no_counter)) {
            GTEST_SKIP() << problem;
        }
        EXPECT_EQ(problem, "");
        return;
    }
    const auto [said, status] = test::in_child([] {
        constexpr uid_t k_nobody = 65534;
        if (::setgroups(0, nullptr) != 0 || ::setresgid(k_nobody, k_nobody, k_nobody) != 0 ||
            ::setresuid(k_nobody, k_nobody, k_nobody) != 0) {
            return std::pair{std::string{"could not become nobody"}, 2};
        }
        auto problem = refusal_problem();
        const int code = problem.empty() ? 0 : problem.starts_with(k_no_counter) ? 3 : 1;
        return std::pair{std::move(problem), code};
    });
    if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
        GTEST_SKIP() << said;
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << said;
}

} // namespace
} // namespace jp
