// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What is wrong with a file that does not open as a trace, in words a user can
// act on: empty, not an SQLite file at all, or an SQLite file cut short (a copy
// taken while it was written, a disk that filled). From the file's first 100
// bytes, SQLite's header (https://www.sqlite.org/fileformat.html, 1.3).
#include "core/error.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace jp::trace {

// The damage found, or nothing when the header is whole and the file as long
// as the header says (the problem is then inside: the caller says what).
[[nodiscard]] std::optional<std::string> file_damage(const std::filesystem::path& path);

// A statement's step that failed (trace/sqlite.hpp), said for the trace at path: a damaged
// page (ErrorKind::parse) is the trace's damage; anything else (locked by its writer past
// the wait, out of memory) says what it was.
[[nodiscard]] std::unexpected<Error> row_error(const std::filesystem::path& path, const Error& e);

} // namespace jp::trace
