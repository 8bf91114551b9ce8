// SPDX-License-Identifier: BSD-3-Clause
// libjouleprof.so: the C API over the marker client. No exception crosses it.
#include "jouleprof/jouleprof.h"

#include "markers/client.hpp"

#include <cerrno>
#include <cstring>

#define JP_EXPORT __attribute__((visibility("default")))

namespace {

int mark(jp::markers::Kind kind, const char* name) noexcept {
    try {
        if (name == nullptr) {
            return -EINVAL;
        }
        // strnlen: a name without a terminator within reach is too long, not a crash.
        const std::size_t len = ::strnlen(name, jp::markers::k_max_name + 1);
        return jp::markers::send_mark(kind, std::string_view{name, len});
    } catch (...) {
        return -ENOMEM;
    }
}

} // namespace

extern "C" {

JP_EXPORT int jp_mark_begin(const char* name) {
    return mark(jp::markers::Kind::begin, name);
}

JP_EXPORT int jp_mark_end(const char* name) {
    return mark(jp::markers::Kind::end, name);
}

JP_EXPORT int jp_mark_point(const char* name) {
    return mark(jp::markers::Kind::point, name);
}

JP_EXPORT int jp_active(void) {
    try {
        return jp::markers::active() ? 1 : 0;
    } catch (...) {
        return 0;
    }
}

} // extern "C"
