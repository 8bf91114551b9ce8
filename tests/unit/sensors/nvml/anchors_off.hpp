// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The configuration of the NVML tests that read each GPU as one sensor: [sensors.nvml]
// anchor = "off", its energy counter read at the interval (nvml_anchor_test.cpp: anchored).
#include "config/config.hpp"

namespace jp::test {

inline const Config k_anchors_off = [] {
    Config c;
    c.nvml_anchor = Nanos{0};
    return c;
}();

} // namespace jp::test
