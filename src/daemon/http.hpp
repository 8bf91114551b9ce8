// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Just enough HTTP/1.x for a Prometheus scrape: one GET per connection,
// answered and closed. Requests are bounded; anything else gets a status.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace jp::daemon {

inline constexpr std::size_t k_max_http_request = std::size_t{8} * 1024;

struct HttpRequest {
    std::string method;
    std::string path; // without the query
};

// nullopt while the header is incomplete; then the request, or an error
// status (400, 431) in status.
struct HttpParse {
    std::optional<HttpRequest> request;
    int status = 0;
};
[[nodiscard]] std::optional<HttpParse> parse_http_request(std::string_view received);

[[nodiscard]] std::string
http_response(int status, std::string_view content_type, std::string_view body);

} // namespace jp::daemon
