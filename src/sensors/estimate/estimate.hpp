// SPDX-License-Identifier: BSD-3-Clause
#pragma once
#include "sensors/sensor.hpp"

namespace jp::sensors::estimate {

// Finds this backend's devices under host; never throws.
[[nodiscard]] Discovery discover(const Host& host);

} // namespace jp::sensors::estimate
