// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A signal by the name users know from kill(1) and shells: "SIGINT", not 2.
#include <string>

namespace jp {

// "SIGINT" for 2; "signal 99" for a number the C library does not name.
[[nodiscard]] std::string signal_name(int sig);

} // namespace jp
