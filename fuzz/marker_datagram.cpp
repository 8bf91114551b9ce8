// SPDX-License-Identifier: BSD-3-Clause
// Datagrams on the marker socket (anything the job, or any process of the
// user, sends): a valid message or one line of error; a valid message's name
// passes the same checks as names given to `jouleprof mark`.
#include "fuzz_input.hpp"
#include "markers/protocol.hpp"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto m = jp::markers::parse_message(jp::fuzz::bytes(data, size));
    if (m && jp::markers::name_problem(m->name) != nullptr) {
        std::abort();
    }
    if (!m && m.error().find('\n') != std::string::npos) {
        std::abort(); // errors are one line
    }
    return 0;
}
