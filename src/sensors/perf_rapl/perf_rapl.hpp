#pragma once
#include "sensors/sensor.hpp"

namespace jp::sensors::perf_rapl {

// Finds this backend's devices under host; never throws.
[[nodiscard]] Discovery discover(const Host& host);

} // namespace jp::sensors::perf_rapl
