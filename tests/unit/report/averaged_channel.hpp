// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A BMC's node power averaged over the window before each reading (DCMI's statistics
// period), for the power field's bound tests.
#include "core/channel.hpp"

#include <cstdint>

namespace jp::report::test_field {

inline Channel averaged_channel(std::int64_t window_ns) {
    Channel c;
    c.name = "node";
    c.quantity = Quantity::power;
    c.backend = "ipmi";
    c.mean_since_previous = true;
    c.averaging_ns = window_ns;
    return c;
}

} // namespace jp::report::test_field
