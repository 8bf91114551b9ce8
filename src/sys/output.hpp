// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Files the commands write for the user. An output is never one of the
// command's inputs (nor a trace's SQLite companions -wal, -shm, -journal),
// whatever --force says; an existing file is replaced only with --force; and a
// file is never left half-written: it is written beside its destination and
// renamed into place when complete, so a failed write leaves what was there.
#include "core/error.hpp"
#include "sys/new_folders.hpp"

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <vector>

namespace jp::sys {

struct OutputRules {
    std::vector<std::filesystem::path> inputs; // files the command reads
    bool force = false;                        // an existing output may be replaced
};

// The same file: the same inode where both exist, else the same absolute path once what exists
// of each is resolved ("out.html", "./out.html" and "$PWD/out.html" alike).
[[nodiscard]] bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

// Whether `out` may be written under the rules; the error says why not and how to proceed.
[[nodiscard]] Result<void> check_output(const std::filesystem::path& out, const OutputRules& rules);

using WriteTo = std::function<Result<void>(std::ostream&)>;

// Checks `out`, writes it through a temporary file in its directory and
// renames that into place.
[[nodiscard]] Result<void>
write_output(const std::filesystem::path& out, const OutputRules& rules, const WriteTo& write);

// A directory for a command's outputs: created when absent (with the parents it lacks,
// which undo() takes away again if the command is refused before it runs); one that
// holds files already is used only with force.
[[nodiscard]] Result<NewFolders> prepare_output_dir(const std::filesystem::path& dir, bool force);

} // namespace jp::sys
