// SPDX-License-Identifier: BSD-3-Clause
// What a scraper (or anyone who can reach the metrics port) sends jouleprofd:
// a request, an error status, or "not yet complete" while within the bound.
#include "daemon/http.hpp"
#include "fuzz_input.hpp"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto received = jp::fuzz::bytes(data, size);
    auto parsed = jp::daemon::parse_http_request(received);
    if (!parsed && received.size() > jp::daemon::k_max_http_request) {
        std::abort(); // past the bound, the request is refused, never waited for
    }
    return 0;
}
