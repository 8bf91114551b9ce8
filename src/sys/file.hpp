// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Small-file reads for sysfs/procfs. No project concepts here.
#include "core/error.hpp"

#include <cstdint>
#include <expected>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace jp::sys {

// Whole content of a small text file (sysfs attribute, /proc file).
[[nodiscard]] Result<std::string> read_text(const std::filesystem::path& path);
// Content without the trailing newline and surrounding blanks.
[[nodiscard]] Result<std::string> read_trimmed(const std::filesystem::path& path);
[[nodiscard]] Result<std::uint64_t> read_u64(const std::filesystem::path& path);
[[nodiscard]] Result<std::int64_t> read_i64(const std::filesystem::path& path);

[[nodiscard]] std::string_view trim(std::string_view s) noexcept;
// Parses a decimal unsigned integer with optional surrounding blanks/newline.
[[nodiscard]] std::expected<std::uint64_t, std::errc> parse_u64(std::string_view s) noexcept;
[[nodiscard]] std::expected<std::int64_t, std::errc> parse_i64(std::string_view s) noexcept;

// Joins a path that looks absolute ("/sys/class/powercap") under a root,
// so that every sysfs reader can be moved to a fake tree.
[[nodiscard]] std::filesystem::path under_root(const std::filesystem::path& root,
                                               std::string_view absolute);

// Directory entries whose name starts with prefix, sorted by name; empty if absent.
[[nodiscard]] std::vector<std::string> list_dir(const std::filesystem::path& dir,
                                                std::string_view prefix = {});

// A file kept open for repeated reads from offset 0, the way sysfs attributes
// are meant to be polled. read() does not allocate.
class PolledFile {
public:
    PolledFile() = default;
    static Result<PolledFile> open(std::filesystem::path path);
    PolledFile(PolledFile&& other) noexcept;
    PolledFile& operator=(PolledFile&& other) noexcept;
    PolledFile(const PolledFile&) = delete;
    PolledFile& operator=(const PolledFile&) = delete;
    ~PolledFile();

    // Reads the content into buf; returns the text or an errno value.
    // ENODATA for an empty read. A removed file (sysfs: ENODEV) reports ENODEV.
    std::expected<std::string_view, int> read(std::span<char> buf) const noexcept;
    // Reads and parses one unsigned integer; EINVAL when malformed.
    std::expected<std::uint64_t, int> read_u64() const noexcept;
    // True while the path still names the file that was opened (a regular
    // file kept open stays readable after unlink, sysfs does not).
    [[nodiscard]] bool still_present() const noexcept;
    [[nodiscard]] const std::filesystem::path& path() const noexcept { return m_path; }
    [[nodiscard]] bool is_open() const noexcept { return m_fd >= 0; }

private:
    std::filesystem::path m_path;
    int m_fd = -1;
    std::uint64_t m_dev = 0;
    std::uint64_t m_ino = 0;
};

} // namespace jp::sys
