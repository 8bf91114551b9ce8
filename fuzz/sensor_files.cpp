// SPDX-License-Identifier: BSD-3-Clause
// What sensor files hold (a driver, a fake tree or a bind mount can put
// anything there): sysfs integers, Cray pm_counters lines and perf PMU
// attribute files. The first byte picks the parser.
#include "fuzz_input.hpp"
#include "sensors/perf_rapl/pmu.hpp"
#include "sensors/pm_counters/pm_counters.hpp"
#include "sys/cpu_list.hpp"
#include "sys/file.hpp"

#include <cmath>
#include <cstdlib>

namespace pm = jp::sensors::pm_counters;
namespace perf = jp::sensors::perf_rapl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    const auto text = jp::fuzz::bytes(data + 1, size - 1);
    switch (data[0] % 6) {
    case 0:
        (void)jp::sys::parse_u64(text);
        break;
    case 1:
        (void)pm::parse_counter(text, "J");
        break;
    case 2:
        (void)pm::parse_counter(text, "W");
        break;
    case 3:
        if (auto cpus = jp::sys::parse_cpu_list(text)) {
            for (int cpu : *cpus) {
                if (cpu < 0) {
                    std::abort();
                }
            }
        }
        break;
    case 4:
        (void)perf::parse_event_config(text);
        break;
    default:
        if (auto scale = perf::parse_scale(text); scale && !(std::isfinite(*scale) && *scale > 0)) {
            std::abort();
        }
        break;
    }
    return 0;
}
