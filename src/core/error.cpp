// SPDX-License-Identifier: BSD-3-Clause
#include "core/error.hpp"

#include <cerrno>
#include <cstring>

namespace jp {

std::string Error::message() const {
    std::string out = where.empty() ? detail : where + ": " + detail;
    return out;
}

Error errno_error(int err, std::string where) {
    ErrorKind kind = ErrorKind::io;
    if (err == EACCES || err == EPERM) {
        kind = ErrorKind::permission;
    } else if (err == ENOENT || err == ENODEV || err == ENXIO) {
        kind = ErrorKind::not_found;
    }
    return Error{kind, std::move(where), std::strerror(err), {}};
}

std::string_view to_string(ErrorKind kind) {
    switch (kind) {
    case ErrorKind::io:
        return "io";
    case ErrorKind::permission:
        return "permission";
    case ErrorKind::not_found:
        return "not_found";
    case ErrorKind::parse:
        return "parse";
    case ErrorKind::unsupported:
        return "unsupported";
    case ErrorKind::library:
        return "library";
    case ErrorKind::config:
        return "config";
    case ErrorKind::internal:
        return "internal";
    }
    return "internal";
}

} // namespace jp
