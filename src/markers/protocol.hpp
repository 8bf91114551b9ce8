// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The marker protocol between a job and its monitor: one Unix datagram per
// marker, text "jp1 <kind> <t_mono_ns> <name>". The client stamps
// CLOCK_MONOTONIC when it is called, so delivery delay never moves a marker.
// No dependency beyond the C++ library: libjouleprof.so links this.
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

namespace jp::markers {

// Set by `jouleprof run` in the job's environment.
inline constexpr const char* k_env_socket = "JOULEPROF_MARKER_SOCKET";
inline constexpr const char* k_env_trace = "JOULEPROF_TRACE";
inline constexpr const char* k_env_run_id = "JOULEPROF_RUN_ID";

inline constexpr std::size_t k_max_name = 200; // bytes
// Longest valid message: "jp1 point " + 20 digits + " " + name.
inline constexpr std::size_t k_max_message = 10 + 20 + 1 + k_max_name;

enum class Kind { begin, end, point };

[[nodiscard]] std::string_view to_string(Kind kind) noexcept;
[[nodiscard]] std::optional<Kind> parse_kind(std::string_view text) noexcept;

// Why a name cannot be a marker name, or nullptr when it can: non-empty, at
// most k_max_name bytes, no newline, carriage return or NUL.
[[nodiscard]] const char* name_problem(std::string_view name) noexcept;

struct Message {
    Kind kind = Kind::point;
    std::int64_t t_mono_ns = 0; // CLOCK_MONOTONIC when the job marked
    std::string name;
};

[[nodiscard]] std::string format_message(Kind kind, std::int64_t t_mono_ns, std::string_view name);
// Parses and validates one datagram; the error is one line of text.
[[nodiscard]] std::expected<Message, std::string> parse_message(std::string_view datagram);

// Cuts text to at most max bytes without splitting a UTF-8 sequence.
[[nodiscard]] std::string_view truncate_utf8(std::string_view text, std::size_t max) noexcept;

} // namespace jp::markers
