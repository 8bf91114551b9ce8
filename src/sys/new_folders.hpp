// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A folder and the parents it lacks, made so that they can be taken away again: a command
// that makes its output folder before checking its other outputs (`study --dir D
// --json-file D/x.json`) removes, when it refuses to run, exactly the folders it made
// itself, and each only while it is still empty.
#include "core/error.hpp"

#include <filesystem>
#include <vector>

namespace jp::sys {

class NewFolders {
public:
    // dir and every missing parent. A folder someone else made meanwhile is theirs: it
    // is used, never taken away.
    static Result<NewFolders> make(const std::filesystem::path& dir);
    // Removes the folders made, deepest first, while each is empty; never throws.
    void undo() noexcept;

private:
    std::vector<std::filesystem::path> m_made; // outermost first
};

} // namespace jp::sys
