// SPDX-License-Identifier: BSD-3-Clause
#include "data/text.hpp"

#include "sys/file.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <zlib.h>

namespace jp::workload {

namespace {

// A gzip file's contents; refuses more than max_bytes once decompressed.
Result<std::string> read_gzip(const std::filesystem::path& path, std::size_t max_bytes) {
    gzFile in = gzopen(path.c_str(), "rb");
    if (in == nullptr) {
        return std::unexpected(errno_error(errno != 0 ? errno : ENOMEM, path.string()));
    }
    std::string out;
    std::array<char, 1 << 16> buf{};
    for (;;) {
        const int n = gzread(in, buf.data(), static_cast<unsigned>(buf.size()));
        if (n < 0) {
            int code = 0;
            std::string why = gzerror(in, &code);
            gzclose(in);
            return fail(ErrorKind::parse, path.string(), "not a readable gzip file: " + why);
        }
        if (n == 0) {
            int code = Z_OK;
            (void)gzerror(in, &code);
            if (code != Z_OK) { // Z_BUF_ERROR: the file ends inside the compressed stream
                gzclose(in);
                return fail(ErrorKind::parse, path.string(),
                            "the gzip file is cut short (truncated or still being written)");
            }
            break;
        }
        if (out.size() + static_cast<std::size_t>(n) > max_bytes) {
            gzclose(in);
            return fail(ErrorKind::parse, path.string(),
                        fmt::format("more than {} MiB once decompressed", max_bytes >> 20));
        }
        out.append(buf.data(), static_cast<std::size_t>(n));
    }
    gzclose(in);
    return out;
}

} // namespace

Result<std::string> read_text(const std::filesystem::path& path) {
    if (path.extension() == ".gz") {
        return read_gzip(path, std::size_t{1} << 30);
    }
    std::ifstream in{path, std::ios::binary};
    if (!in) {
        return std::unexpected(errno_error(errno, path.string()));
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) {
        return fail(ErrorKind::io, path.string(), "read failed");
    }
    return std::move(ss).str();
}

std::string lower(std::string_view s) {
    std::string out{s};
    std::ranges::transform(out, out.begin(),
                           [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool parse_int(std::string_view s, int& out) {
    const auto* end = s.data() + s.size();
    auto [p, ec] = std::from_chars(s.data(), end, out);
    return ec == std::errc{} && p == end;
}

bool parse_double(std::string_view s, double& out) {
    const auto* end = s.data() + s.size();
    auto [p, ec] = std::from_chars(s.data(), end, out);
    return ec == std::errc{} && p == end;
}

std::optional<CsvLines::Line> CsvLines::next() {
    while (m_pos < m_text.size()) {
        auto end = m_text.find('\n', m_pos);
        if (end == std::string_view::npos) {
            end = m_text.size();
        }
        auto raw = m_text.substr(m_pos, end - m_pos);
        m_pos = end + 1;
        ++m_number;
        if (!raw.empty() && raw.back() == '\r') {
            raw.remove_suffix(1);
        }
        if (sys::trim(raw).empty()) {
            continue;
        }
        Line line{m_number, {}};
        std::string field;
        bool quoted = false;
        for (std::size_t i = 0; i < raw.size(); ++i) {
            const char c = raw[i];
            if (quoted && c == '"' && i + 1 < raw.size() && raw[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (c == ',' && !quoted) {
                line.fields.emplace_back(sys::trim(field));
                field.clear();
            } else {
                field += c;
            }
        }
        line.fields.emplace_back(sys::trim(field));
        return line;
    }
    return std::nullopt;
}

} // namespace jp::workload
