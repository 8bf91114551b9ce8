// SPDX-License-Identifier: BSD-3-Clause
#pragma once
#include <string_view>

namespace jp::sys {

// Names the calling thread as `top -H`, `ps -L` and perf show it: the
// monitor's threads are jp-sample (fast sensors), jp-<backend> (each slow
// sensor), jp-trace (the trace writer), jp-markers, jp-output and
// jp-jpd-client (jouleprofd's replies). The kernel keeps 15 bytes.
void name_this_thread(std::string_view name) noexcept;

} // namespace jp::sys
