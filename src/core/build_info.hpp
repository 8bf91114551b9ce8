// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// What this binary was built from: the version (jp_version.hpp) and the commit,
// which lives in one generated source file (cmake/BuildInfo.cmake) so that a new
// commit recompiles that file alone.
#include <string>
#include <string_view>

namespace jp {

// The abbreviated commit hash ("-dirty" when built from a changed tree), the
// packager's JP_COMMIT, or "unknown".
std::string_view build_commit() noexcept;

// "NAME VERSION (commit HASH)", what --version prints.
std::string version_line(std::string_view program);

} // namespace jp
