// SPDX-License-Identifier: BSD-3-Clause
// What a BMC's Redfish service answers (untrusted JSON): the service root, a
// collection, a chassis, EnvironmentMetrics, a Sensor, the Power resource, and
// ISO 8601 durations. The first byte picks the parser; a value read must be a
// finite, non-negative number of watts or joules.
#include "fuzz_input.hpp"
#include "sensors/redfish/resources.hpp"
#include "sensors/redfish/sensor_resource.hpp"

#include <cmath>
#include <cstdlib>

namespace rf = jp::sensors::redfish;

namespace {

void check(const jp::Result<rf::Sample>& s) {
    if (s && (!std::isfinite(s->value) || s->value < 0)) {
        std::abort();
    }
}

// A source found in a text reads from that text.
void check_found(std::string_view text, const rf::Source& s) {
    const auto r = rf::read_source(text, s);
    if (!r) {
        std::abort();
    }
    check(r);
}

void read_each_field(std::string_view text) {
    for (auto f : {rf::Field::power_watts, rf::Field::energy_kwh, rf::Field::energy_joules,
                   rf::Field::sensor, rf::Field::power_control}) {
        check(rf::read_source(text, rf::Source{"/p", f, jp::Quantity::power, 1, 0, "W", {}}));
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    const auto text = jp::fuzz::bytes(data + 1, size - 1);
    switch (data[0] % 8) {
    case 0:
        read_each_field(text);
        break;
    case 1:
        (void)rf::chassis_collection(text);
        (void)rf::chassis_links(text);
        break;
    case 2:
        if (auto m = rf::members(text)) {
            (void)rf::sensor_candidates(*m, 16);
        }
        break;
    case 3:
        if (auto env = rf::environment_sources(text, "/p")) {
            for (const auto* s : {&env->power, &env->energy}) {
                if (*s) {
                    check_found(text, **s);
                }
            }
        }
        break;
    case 4:
        if (auto s = rf::sensor_source(text, "/p")) {
            check_found(text, *s);
        }
        break;
    case 5:
        if (auto s = rf::power_control_source(text, "/p")) {
            check_found(text, *s);
        }
        break;
    default:
        if (auto ns = rf::iso8601_duration_ns(text); ns && *ns < 0) {
            std::abort();
        }
        break;
    }
    return 0;
}
