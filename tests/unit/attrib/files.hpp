// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Fake trees for the attribution tests: a file with its text, its folders made.
#include <filesystem>
#include <fstream>
#include <string_view>

namespace jp::attrib::test {

inline void put(const std::filesystem::path& p, std::string_view text) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream{p} << text;
}

} // namespace jp::attrib::test
