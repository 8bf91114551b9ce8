// SPDX-License-Identifier: BSD-3-Clause
#include "core/build_info.hpp"

#include "jp_version.hpp"

#include <fmt/format.h>

namespace jp {

std::string version_line(std::string_view program) {
    return fmt::format("{} {} (commit {})", program, JP_VERSION, build_commit());
}

} // namespace jp
