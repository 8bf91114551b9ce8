// SPDX-License-Identifier: BSD-3-Clause
// jouleprofd's TOML config ([daemon], [access], the sensors): a config or one
// error for any bytes.
#include "daemon/settings.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto config = jp::daemon::parse_daemon_config(jp::fuzz::bytes(data, size), "fuzz.toml");
    if (!config) {
        (void)config.error().message();
    }
    return 0;
}
