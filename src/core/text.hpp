// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Text from outside (labels, phase names, commands, a job's output, a trace
// from someone else) made safe where it enters and where it is shown: valid
// UTF-8 everywhere (JSON requires it), and no control character reaches a
// terminal (an escape sequence in a label could rewrite the screen).
#include <cstddef>
#include <string>
#include <string_view>

namespace jp {

inline constexpr std::string_view k_replacement_char = "\xEF\xBF\xBD"; // U+FFFD

// Length of the valid UTF-8 sequence starting at s[i] (1 to 4), or 0.
[[nodiscard]] std::size_t utf8_length(std::string_view s, std::size_t i) noexcept;

// The text with every byte that is not part of valid UTF-8 replaced by U+FFFD.
[[nodiscard]] std::string valid_utf8(std::string_view s);

// Why a name or label given by a user cannot be used ("contains a control
// character", "is not valid UTF-8"), or nullptr when it can.
[[nodiscard]] const char* text_problem(std::string_view s) noexcept;

// For a terminal: valid UTF-8, and every control character (C0 but newline and
// tab, DEL, C1) shown as a visible escape (\x1b, \u009b).
[[nodiscard]] std::string terminal_safe(std::string_view s);

// One line for a terminal: terminal_safe with newlines and tabs escaped too,
// cut to `max_chars` code points with a trailing "…".
[[nodiscard]] std::string one_line(std::string_view s, std::size_t max_chars);

} // namespace jp
