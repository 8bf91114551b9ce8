// SPDX-License-Identifier: BSD-3-Clause
// The TOML config (`-c FILE`, /etc/jouleprof/config.toml): any bytes give a
// config or one error, never a crash, a hang or a leak.
#include "config/config.hpp"

#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto config = jp::parse_config(jp::fuzz::bytes(data, size), "fuzz.toml");
    if (!config) {
        (void)config.error().message();
    }
    return 0;
}
