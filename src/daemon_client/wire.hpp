// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The jouleprofd protocol's framing and vocabulary, shared by the daemon and
// its clients (docs/daemon-protocol.md): one JSON object per line over a Unix
// stream socket, requests at most k_max_request_bytes long.
#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace jp::daemon {

inline constexpr int k_protocol_version = 1;
inline constexpr std::size_t k_max_request_bytes = std::size_t{64} * 1024;
inline constexpr std::string_view k_default_socket = "/run/jouleprof/jouleprofd.sock";
inline constexpr std::string_view k_socket_env = "JOULEPROF_SOCKET";

// $JOULEPROF_SOCKET when set, else /run/jouleprof/jouleprofd.sock.
[[nodiscard]] std::filesystem::path default_socket_path();

// Every error a reply can carry ("error": "<code>").
enum class ErrorCode {
    bad_request,         // not a JSON object, a field missing or of the wrong type
    too_large,           // a request longer than k_max_request_bytes (the connection is closed)
    hello_first,         // any request before a successful hello
    unsupported_version, // no protocol version in common
    unknown_op,          // an op this daemon does not know
    denied,              // the site's rules give this user no access
    no_such_session,     // no open session has this id
    not_yours,           // the session belongs to another user
    rate_limited,        // exact reads used up: retry_after_ms says when the next is allowed
    too_soon,            // a floored caller's exact reads are the floor apart: retry_after_ms
    too_many_sessions,   // the user's (or the daemon's) session limit is reached
    shutting_down,       // the daemon is stopping
    internal,            // a sensor or daemon failure; the message says which
};

[[nodiscard]] std::string_view to_string(ErrorCode code) noexcept;
[[nodiscard]] std::optional<ErrorCode> error_code_from_string(std::string_view s) noexcept;

// Splits a byte stream into lines. A line (without its '\n') longer than the
// limit makes the reader oversized() for good: the peer broke the protocol.
class LineReader {
public:
    explicit LineReader(std::size_t limit) : m_limit(limit) {}

    void append(std::string_view bytes);
    // The next complete line, without its '\n' (and a '\r' before it).
    [[nodiscard]] std::optional<std::string> next();
    [[nodiscard]] bool oversized() const noexcept { return m_oversized; }
    [[nodiscard]] std::size_t limit() const noexcept { return m_limit; }
    // A complete line is waiting to be taken by next().
    [[nodiscard]] bool has_line() const noexcept {
        return !m_oversized && m_buf.find('\n', std::max(m_scan, m_pos)) != std::string::npos;
    }
    // Bytes of a line begun but not finished.
    [[nodiscard]] bool partial() const noexcept { return m_buf.size() > m_pos; }
    // Bytes held (lines taken but not yet dropped included): at most the limit of
    // taken lines, plus what is waiting.
    [[nodiscard]] std::size_t held() const noexcept { return m_buf.size(); }

private:
    std::size_t m_limit;
    std::string m_buf;
    std::size_t m_pos = 0;  // start of the first unread line
    std::size_t m_scan = 0; // where the search for '\n' resumes
    bool m_oversized = false;
};

} // namespace jp::daemon
