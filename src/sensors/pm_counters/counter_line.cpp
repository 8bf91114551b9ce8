// SPDX-License-Identifier: BSD-3-Clause
#include "sensors/pm_counters/pm_counters.hpp"
#include "sys/file.hpp"

#include <cerrno>
#include <charconv>

namespace jp::sensors::pm_counters {
namespace {

// Takes a leading decimal integer off s.
std::optional<std::uint64_t> take_u64(std::string_view& s) noexcept {
    std::uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || ptr == s.data()) {
        return std::nullopt;
    }
    s.remove_prefix(static_cast<std::size_t>(ptr - s.data()));
    return v;
}

// Takes " <word>" off s.
bool take_word(std::string_view& s, std::string_view word) noexcept {
    if (!s.starts_with(' ') || !s.substr(1).starts_with(word)) {
        return false;
    }
    s.remove_prefix(1 + word.size());
    return true;
}

} // namespace

std::expected<CounterLine, int> parse_counter(std::string_view text,
                                              std::string_view unit) noexcept {
    auto s = sys::trim(text);
    CounterLine line;
    auto value = take_u64(s);
    if (!value || !take_word(s, unit)) {
        return std::unexpected(EINVAL);
    }
    line.value = *value;
    if (s.empty()) {
        return line; // a cap: "2894 W"
    }
    if (!s.starts_with(' ')) {
        return std::unexpected(EINVAL);
    }
    s.remove_prefix(1);
    auto stamp = take_u64(s);
    if (!stamp || !take_word(s, "us") || !s.empty()) {
        return std::unexpected(EINVAL);
    }
    line.timestamp_us = stamp;
    return line;
}

} // namespace jp::sensors::pm_counters
