// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A PNG decoder for the screenshots the browser test takes: 8-bit RGB or RGBA,
// non-interlaced (what chromium writes), enough to check they hold real content.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace jp::test {

struct Image {
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    std::size_t channels = 0;
    std::vector<std::uint8_t> pixels; // rows of width × channels bytes
};

// The image, or nullopt with the reason in `why`.
std::optional<Image> decode_png(const std::string& png, std::string& why);

} // namespace jp::test
