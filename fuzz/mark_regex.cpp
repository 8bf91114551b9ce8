// SPDX-License-Identifier: BSD-3-Clause
// --mark-regex specs and the job output they scan: the first line is the
// spec ([KIND:][NAME=]REGEX), the rest the job's output, line by line. Specs
// are refused or compiled; matching stays bounded on any line.
#include "fuzz_input.hpp"
#include "markers/line_rules.hpp"

#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto [spec, output] = jp::fuzz::split_first_line(jp::fuzz::bytes(data, size));
    auto rule = jp::markers::parse_line_rule(spec);
    if (!rule) {
        return 0;
    }
    std::vector<jp::markers::LineRule> rules;
    rules.push_back(std::move(*rule));
    std::size_t markers = 0;
    jp::markers::LineMarker marker{
        std::move(rules), [&](jp::markers::Kind, std::int64_t, std::string) { ++markers; }};
    std::string_view rest = output;
    std::int64_t t = 0;
    while (!rest.empty()) {
        const auto nl = rest.find('\n');
        marker.line(rest.substr(0, nl), ++t);
        rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    }
    marker.finish(++t);
    return 0;
}
