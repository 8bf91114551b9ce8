// SPDX-License-Identifier: BSD-3-Clause
#include "core/log.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace jp::log {
namespace {
std::atomic<Level> g_level{Level::warn};
std::mutex g_mutex;
const char* g_program = "jouleprof";

const char* prefix(Level level) {
    switch (level) {
    case Level::debug:
        return "debug";
    case Level::info:
        return "info";
    case Level::warn:
        return "warning";
    case Level::error:
        return "error";
    case Level::off:
        return "";
    }
    return "";
}
} // namespace

void set_program(const char* name) noexcept {
    const std::lock_guard lock{g_mutex};
    g_program = name;
}

void set_level(Level level) noexcept {
    g_level.store(level);
}
bool enabled(Level level) noexcept {
    return level >= g_level.load(std::memory_order_relaxed);
}

void write(Level level, std::string_view message) noexcept {
    const std::lock_guard lock{g_mutex};
    std::fprintf(stderr, "%s: %s: %.*s\n", g_program, prefix(level),
                 static_cast<int>(message.size()), message.data());
}

} // namespace jp::log
