// SPDX-License-Identifier: BSD-3-Clause
#include "core/signal_name.hpp"

#include <cstring>
#include <fmt/format.h>

namespace jp {

std::string signal_name(int sig) {
    // glibc's abbreviation ("INT"), or null for a number it does not name.
    if (const char* abbrev = ::sigabbrev_np(sig); abbrev != nullptr) {
        return fmt::format("SIG{}", abbrev);
    }
    return fmt::format("signal {}", sig);
}

} // namespace jp
