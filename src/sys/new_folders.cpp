// SPDX-License-Identifier: BSD-3-Clause
#include "sys/new_folders.hpp"

#include <ranges>

namespace jp::sys {

namespace fs = std::filesystem;

Result<NewFolders> NewFolders::make(const fs::path& dir) {
    std::vector<fs::path> missing; // innermost first
    std::error_code ec;
    for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
        if (fs::exists(fs::symlink_status(p, ec))) {
            break;
        }
        missing.push_back(p);
        if (p == p.parent_path()) {
            break;
        }
    }
    NewFolders made;
    for (const auto& p : std::views::reverse(missing)) { // outermost first
        const bool created = fs::create_directory(p, ec);
        if (ec) {
            const int err = ec.value(); // before the calls below reuse ec
            made.undo();
            if (fs::is_symlink(fs::symlink_status(p, ec))) {
                return fail(ErrorKind::config, p.string(),
                            "is a symbolic link to nothing; name a folder");
            }
            return std::unexpected(errno_error(err, p.string()));
        }
        if (created) {
            made.m_made.push_back(p);
        }
    }
    if (!fs::is_directory(dir, ec)) {
        made.undo();
        const bool dangling =
            fs::is_symlink(fs::symlink_status(dir, ec)) && !fs::exists(fs::status(dir, ec));
        return fail(ErrorKind::config, dir.string(),
                    dangling ? "is a symbolic link to nothing; name a folder" : "is not a folder");
    }
    return made;
}

void NewFolders::undo() noexcept {
    std::error_code ec;
    while (!m_made.empty()) {
        if (!fs::remove(m_made.back(), ec)) {
            break; // not empty (someone's files), or gone: leave it and its parents
        }
        m_made.pop_back();
    }
    m_made.clear();
}

} // namespace jp::sys
