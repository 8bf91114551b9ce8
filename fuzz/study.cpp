// SPDX-License-Identifier: BSD-3-Clause
// Study files (`jouleprof study FILE`) and their --set/--setting overrides:
// the first line is an override NAME=VALUE, the rest the study's TOML.
#include "config/study.hpp"

#include "fuzz_input.hpp"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto [first, rest] = jp::fuzz::split_first_line(jp::fuzz::bytes(data, size));
    auto study = jp::parse_study(rest, "fuzz-study.toml");
    if (!study) {
        (void)study.error().message();
        return 0;
    }
    auto applied = jp::apply_overrides(*study, {std::string{first}}, {});
    if (!applied) {
        (void)applied.error().message();
    }
    return 0;
}
