// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Small text helpers for the workloads' CSV inputs.
#include "core/error.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jp::workload {

// The whole file; a name ending in .gz is gzip-decompressed (at most 1 GiB).
[[nodiscard]] Result<std::string> read_text(const std::filesystem::path& path);

[[nodiscard]] std::string lower(std::string_view s);
[[nodiscard]] bool parse_int(std::string_view s, int& out);
[[nodiscard]] bool parse_double(std::string_view s, double& out);

// Comma-separated lines: blank lines skipped, CR stripped, fields trimmed (sys::trim),
// double-quoted fields may hold commas ("" is a quote).
class CsvLines {
public:
    explicit CsvLines(std::string_view text) : m_text(text) {}
    struct Line {
        std::size_t number = 0; // 1-based
        std::vector<std::string> fields;
    };
    std::optional<Line> next();

private:
    std::string_view m_text;
    std::size_t m_pos = 0;
    std::size_t m_number = 0;
};

} // namespace jp::workload
