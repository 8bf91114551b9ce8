// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// One logging facade. The level is checked before the message is formatted.
#include <fmt/format.h>
#include <string_view>

namespace jp::log {

enum class Level { debug = 0, info = 1, warn = 2, error = 3, off = 4 };

void set_level(Level level) noexcept;
// The name every message starts with ("jouleprof" unless set); a string literal.
void set_program(const char* name) noexcept;
[[nodiscard]] bool enabled(Level level) noexcept;
void write(Level level, std::string_view message) noexcept;

} // namespace jp::log

#define JP_LOG(level, ...)                                                                         \
    do {                                                                                           \
        if (::jp::log::enabled(level)) {                                                           \
            ::jp::log::write(level, ::fmt::format(__VA_ARGS__));                                   \
        }                                                                                          \
    } while (false)
#define JP_LOG_DEBUG(...) JP_LOG(::jp::log::Level::debug, __VA_ARGS__)
#define JP_LOG_INFO(...) JP_LOG(::jp::log::Level::info, __VA_ARGS__)
#define JP_LOG_WARN(...) JP_LOG(::jp::log::Level::warn, __VA_ARGS__)
#define JP_LOG_ERROR(...) JP_LOG(::jp::log::Level::error, __VA_ARGS__)
