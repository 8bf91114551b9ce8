// SPDX-License-Identifier: BSD-3-Clause
#include "png.hpp"

#include <cstdlib>
#include <zlib.h>

namespace jp::test {

namespace {

std::uint32_t be32(const std::string& s, std::size_t at) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(s[at])) << 24U |
           static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 1])) << 16U |
           static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 2])) << 8U |
           static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 3]));
}

int paeth(int a, int b, int c) {
    const int p = a + b - c;
    const int pa = std::abs(p - a);
    const int pb = std::abs(p - b);
    const int pc = std::abs(p - c);
    return pa <= pb && pa <= pc ? a : (pb <= pc ? b : c);
}

} // namespace

std::optional<Image> decode_png(const std::string& png, std::string& why) {
    if (png.size() < 33 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) {
        why = "no PNG signature";
        return std::nullopt;
    }
    Image img;
    std::string idat;
    for (std::size_t at = 8; at + 12 <= png.size();) {
        const std::uint32_t len = be32(png, at);
        const std::string type = png.substr(at + 4, 4);
        if (at + 12 + len > png.size()) {
            why = "truncated chunk " + type;
            return std::nullopt;
        }
        if (type == "IHDR") {
            img.width = be32(png, at + 8);
            img.height = be32(png, at + 12);
            const int depth = png[at + 16];
            const int color = png[at + 17];
            const int interlace = png[at + 20];
            if (depth != 8 || (color != 2 && color != 6) || interlace != 0) {
                why = "unexpected PNG format";
                return std::nullopt;
            }
            img.channels = color == 6 ? 4 : 3;
        } else if (type == "IDAT") {
            idat.append(png, at + 8, len);
        } else if (type == "IEND") {
            break;
        }
        at += 12 + len;
    }
    const std::size_t stride = img.width * img.channels;
    std::vector<std::uint8_t> raw((stride + 1) * img.height);
    uLongf raw_len = static_cast<uLongf>(raw.size());
    if (img.channels == 0 ||
        ::uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()),
                     static_cast<uLong>(idat.size())) != Z_OK ||
        raw_len != raw.size()) {
        why = "cannot inflate the image data";
        return std::nullopt;
    }
    img.pixels.assign(stride * img.height, 0);
    for (std::size_t y = 0; y < img.height; ++y) {
        const std::uint8_t filter = raw[y * (stride + 1)];
        const std::uint8_t* in = &raw[y * (stride + 1) + 1];
        std::uint8_t* row = &img.pixels[y * stride];
        const std::uint8_t* up = y > 0 ? &img.pixels[(y - 1) * stride] : nullptr;
        for (std::size_t x = 0; x < stride; ++x) {
            const int a = x >= img.channels ? row[x - img.channels] : 0;
            const int b = up != nullptr ? up[x] : 0;
            const int c = up != nullptr && x >= img.channels ? up[x - img.channels] : 0;
            int pred = 0;
            switch (filter) {
            case 0:
                break;
            case 1:
                pred = a;
                break;
            case 2:
                pred = b;
                break;
            case 3:
                pred = (a + b) / 2;
                break;
            case 4:
                pred = paeth(a, b, c);
                break;
            default:
                why = "bad filter";
                return std::nullopt;
            }
            row[x] = static_cast<std::uint8_t>((in[x] + pred) & 0xFF);
        }
    }
    return img;
}

} // namespace jp::test
