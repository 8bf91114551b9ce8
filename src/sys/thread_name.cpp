// SPDX-License-Identifier: BSD-3-Clause
#include "sys/thread_name.hpp"

#include <array>
#include <pthread.h>

namespace jp::sys {

void name_this_thread(std::string_view name) noexcept {
    std::array<char, 16> buf{};
    name.copy(buf.data(), buf.size() - 1);
    (void)::pthread_setname_np(::pthread_self(), buf.data());
}

} // namespace jp::sys
