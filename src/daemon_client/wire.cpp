// SPDX-License-Identifier: BSD-3-Clause
#include "daemon_client/wire.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <utility>

namespace jp::daemon {
namespace {

constexpr std::array<std::pair<ErrorCode, std::string_view>, 13> k_codes{{
    {ErrorCode::bad_request, "bad_request"},
    {ErrorCode::too_large, "too_large"},
    {ErrorCode::hello_first, "hello_first"},
    {ErrorCode::unsupported_version, "unsupported_version"},
    {ErrorCode::unknown_op, "unknown_op"},
    {ErrorCode::denied, "denied"},
    {ErrorCode::no_such_session, "no_such_session"},
    {ErrorCode::not_yours, "not_yours"},
    {ErrorCode::rate_limited, "rate_limited"},
    {ErrorCode::too_soon, "too_soon"},
    {ErrorCode::too_many_sessions, "too_many_sessions"},
    {ErrorCode::shutting_down, "shutting_down"},
    {ErrorCode::internal, "internal"},
}};

} // namespace

std::filesystem::path default_socket_path() {
    const char* env = std::getenv(std::string{k_socket_env}.c_str());
    if (env != nullptr && *env != '\0') {
        return env;
    }
    return std::string{k_default_socket};
}

std::string_view to_string(ErrorCode code) noexcept {
    for (const auto& [c, name] : k_codes) {
        if (c == code) {
            return name;
        }
    }
    return "internal";
}

std::optional<ErrorCode> error_code_from_string(std::string_view s) noexcept {
    for (const auto& [c, name] : k_codes) {
        if (name == s) {
            return c;
        }
    }
    return std::nullopt;
}

void LineReader::append(std::string_view bytes) {
    if (m_oversized) {
        return;
    }
    // Lines taken leave the buffer: at once when all are taken, else once they fill the
    // limit (a client that ends every read inside a line must not make it grow by all
    // it ever sent).
    if (m_pos > 0 && (m_pos == m_buf.size() || m_pos >= m_limit)) {
        m_buf.erase(0, m_pos);
        m_scan = m_scan > m_pos ? m_scan - m_pos : 0;
        m_pos = 0;
    }
    m_buf.append(bytes);
    // A line without its end already longer than the limit can never become valid:
    // said here too, so a reader that takes lines only when one is complete (the
    // daemon, when a client pipelines) never buffers more than the limit.
    if (m_buf.size() - m_pos > m_limit &&
        m_buf.find('\n', std::max(m_scan, m_pos)) == std::string::npos) {
        m_oversized = true;
    }
}

std::optional<std::string> LineReader::next() {
    if (m_oversized) {
        return std::nullopt;
    }
    const auto nl = m_buf.find('\n', std::max(m_scan, m_pos));
    if (nl == std::string::npos) {
        m_scan = m_buf.size();
        // A line without its end already longer than the limit can never become valid.
        m_oversized = m_buf.size() - m_pos > m_limit;
        return std::nullopt;
    }
    if (nl - m_pos > m_limit) {
        m_oversized = true;
        return std::nullopt;
    }
    auto end = nl;
    if (end > m_pos && m_buf[end - 1] == '\r') {
        --end;
    }
    std::string line = m_buf.substr(m_pos, end - m_pos);
    m_pos = m_scan = nl + 1;
    if (m_pos > 4096 && m_pos * 2 > m_buf.size()) { // keep the buffer from growing
        m_buf.erase(0, m_pos);
        m_pos = m_scan = 0;
    }
    return line;
}

} // namespace jp::daemon
