// SPDX-License-Identifier: BSD-3-Clause
// Fuzzes the BMC's replies to the node power readings: DCMI capabilities,
// DCMI Get Power Reading and the Lenovo XCC energy counter (first byte: the
// completion code, the rest: the reply's data), as any transport delivers them.
#include "sensors/ipmi/readings.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>

using namespace jp::sensors::ipmi;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    const Response reply{data[0], std::vector<std::uint8_t>(data + 1, data + size)};
    (void)parse_dcmi_capabilities(reply);
    (void)parse_dcmi_power(reply);
    if (auto e = parse_xcc_energy(reply)) {
        // A parsed counter is finite, non-negative and below the field's wrap.
        if (!std::isfinite(e->joules) || e->joules < 0 || e->joules >= k_xcc_wrap_joules + 1) {
            __builtin_trap();
        }
    }
    (void)completion_text(data[0]);
    return 0;
}
