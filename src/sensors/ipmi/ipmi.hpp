// SPDX-License-Identifier: BSD-3-Clause
#pragma once
#include "sensors/sensor.hpp"

namespace jp::sensors::ipmi {

[[nodiscard]] Discovery discover(const Host& host);

} // namespace jp::sensors::ipmi
