// SPDX-License-Identifier: BSD-3-Clause
#pragma once
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace jp::workload::test {

// A fresh directory removed at the end of the test.
class TempDir {
public:
    TempDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "jp-wl-XXXXXX").string();
        m_path = ::mkdtemp(tmpl.data()) != nullptr ? tmpl : std::string{};
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    TempDir(TempDir&&) = delete;
    TempDir& operator=(TempDir&&) = delete;
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
    std::filesystem::path write(const std::string& name, const std::string& text) const {
        const auto p = m_path / name;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream{p} << text;
        return p;
    }

private:
    std::filesystem::path m_path;
};

} // namespace jp::workload::test
