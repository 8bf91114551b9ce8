// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Recoverable errors are values: jp::Result<T> = std::expected<T, jp::Error>.
#include <expected>
#include <string>
#include <utility>

namespace jp {

enum class ErrorKind {
    io,          // read/write failed
    permission,  // EACCES/EPERM
    not_found,   // file, symbol, device absent
    parse,       // content malformed
    unsupported, // capability missing
    library,     // vendor library call failed
    config,      // bad user input or configuration
    internal,
};

struct Error {
    ErrorKind kind = ErrorKind::internal;
    std::string where;  // path or API call
    std::string detail; // raw content, errno text or return code
    std::string hint;   // how to fix it, when known

    // One line: "<where>: <detail>".
    [[nodiscard]] std::string message() const;
};

template <class T> using Result = std::expected<T, Error>;

inline std::unexpected<Error>
fail(ErrorKind kind, std::string where, std::string detail, std::string hint = {}) {
    return std::unexpected(Error{kind, std::move(where), std::move(detail), std::move(hint)});
}

// Error from an errno value; EACCES/EPERM become ErrorKind::permission, ENOENT not_found.
Error errno_error(int err, std::string where);

[[nodiscard]] std::string_view to_string(ErrorKind kind);

// Thrown only for fatal start-up configuration and broken invariants; caught in main().
class Fatal : public std::exception {
public:
    explicit Fatal(std::string message) : m_message(std::move(message)) {}
    [[nodiscard]] const char* what() const noexcept override { return m_message.c_str(); }

private:
    std::string m_message;
};

} // namespace jp
