// SPDX-License-Identifier: BSD-3-Clause
// Sample blocks of trace schema 2 as a trace from anyone may hold them: the
// first byte is the sample count, the rest the block. Decoding either fails
// with nothing appended or gives samples that encode and decode back to the
// same times, values (bit for bit) and flags.
#include "fuzz_input.hpp"
#include "trace/block_codec.hpp"

#include <bit>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    const auto count = static_cast<std::int64_t>(data[0]);
    const auto block = jp::fuzz::bytes(data + 1, size - 1);
    std::vector<jp::TimedValue> points;
    std::vector<std::uint8_t> flags;
    if (!jp::trace::decode_block(block, count, points, flags, "fuzz")) {
        if (!points.empty() || !flags.empty()) {
            std::abort(); // a refused block appends nothing
        }
        return 0;
    }
    if (points.size() != static_cast<std::size_t>(count) || flags.size() != points.size()) {
        std::abort();
    }
    jp::trace::BlockEncoder enc;
    for (std::size_t i = 0; i < points.size(); ++i) {
        enc.add(points[i].t_ns, points[i].value, flags[i]);
    }
    std::vector<jp::TimedValue> again;
    std::vector<std::uint8_t> again_flags;
    if (!jp::trace::decode_block(enc.bytes(), enc.count(), again, again_flags, "fuzz") ||
        again.size() != points.size() || again_flags != flags) {
        std::abort();
    }
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (again[i].t_ns != points[i].t_ns || std::bit_cast<std::uint64_t>(again[i].value) !=
                                                   std::bit_cast<std::uint64_t>(points[i].value)) {
            std::abort();
        }
    }
    // The encoder's form is canonical: never longer than what it decoded.
    if (enc.bytes().size() > block.size()) {
        std::abort();
    }
    return 0;
}
