// SPDX-License-Identifier: BSD-3-Clause
// Traces given to `jouleprof report` (a file from anyone): the bytes of a
// SQLite file opened as read-only and hardened as the Reader opens files,
// then summarised and formatted as text and JSON.
#include "fuzz_input.hpp"
#include "report/format.hpp"
#include "report/summary.hpp"
#include "trace/reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto reader = jp::trace::Reader::from_bytes(jp::fuzz::bytes(data, size), "fuzz.jptrace");
    if (!reader) {
        return 0;
    }
    auto groups = jp::report::summarize_trace(*reader);
    if (!groups) {
        return 0;
    }
    (void)jp::report::format_text(*groups, jp::report::FormatOptions{});
    (void)jp::report::to_json(*groups, jp::report::FormatOptions{})
        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return 0;
}
