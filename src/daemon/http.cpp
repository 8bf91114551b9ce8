// SPDX-License-Identifier: BSD-3-Clause
#include "daemon/http.hpp"

#include <fmt/format.h>

namespace jp::daemon {
namespace {

std::string_view reason(int status) {
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 431:
        return "Request Header Fields Too Large";
    case 503:
        return "Service Unavailable";
    default:
        return "Error";
    }
}

} // namespace

std::optional<HttpParse> parse_http_request(std::string_view received) {
    const auto end = received.find("\r\n\r\n");
    if (end == std::string_view::npos) {
        if (received.size() > k_max_http_request) {
            return HttpParse{std::nullopt, 431};
        }
        return std::nullopt;
    }
    const auto line = received.substr(0, received.find("\r\n"));
    const auto sp1 = line.find(' ');
    const auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    if (sp2 == std::string_view::npos || !line.substr(sp2 + 1).starts_with("HTTP/1.")) {
        return HttpParse{std::nullopt, 400};
    }
    auto target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    target = target.substr(0, target.find('?'));
    return HttpParse{HttpRequest{std::string{line.substr(0, sp1)}, std::string{target}}, 0};
}

std::string http_response(int status, std::string_view content_type, std::string_view body) {
    return fmt::format("HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n"
                       "Connection: close\r\n\r\n{}",
                       status, reason(status), content_type, body.size(), body);
}

} // namespace jp::daemon
