// SPDX-License-Identifier: BSD-3-Clause
#include "data/images.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numbers>
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>

namespace jp::workload {
namespace {

std::size_t index_of(const Image& im, int x, int y) {
    return static_cast<std::size_t>(y) * static_cast<std::size_t>(im.width) +
           static_cast<std::size_t>(x);
}

// Bilinear sample at (x, y) in pixel-centre coordinates; `outside` beyond the edge
// (or the nearest edge pixel when clamp).
float sample(const Image& in, double x, double y, bool clamp, float outside) {
    const double fx = std::floor(x);
    const double fy = std::floor(y);
    const auto x0 = static_cast<int>(fx);
    const auto y0 = static_cast<int>(fy);
    const double ax = x - fx;
    const double ay = y - fy;
    auto px = [&](int xi, int yi) -> double {
        if (clamp) {
            return static_cast<double>(
                in.at(std::clamp(xi, 0, in.width - 1), std::clamp(yi, 0, in.height - 1)));
        }
        if (xi < 0 || yi < 0 || xi >= in.width || yi >= in.height) {
            return static_cast<double>(outside);
        }
        return static_cast<double>(in.at(xi, yi));
    };
    const double top = px(x0, y0) * (1 - ax) + px(x0 + 1, y0) * ax;
    const double bottom = px(x0, y0 + 1) * (1 - ax) + px(x0 + 1, y0 + 1) * ax;
    return static_cast<float>(top * (1 - ay) + bottom * ay);
}

std::vector<unsigned char> to_bytes(const Image& image) {
    std::vector<unsigned char> bytes(image.pixels.size());
    std::ranges::transform(image.pixels, bytes.begin(), [](float v) {
        return static_cast<unsigned char>(std::lround(std::clamp(v, 0.0F, 1.0F) * 255.0F));
    });
    return bytes;
}

std::vector<float> normalised(const Image& im) {
    std::vector<float> out(im.pixels.size());
    std::ranges::transform(im.pixels, out.begin(),
                           [](float v) { return (v - k_pixel_mean) / k_pixel_std; });
    return out;
}

} // namespace

Image blank_image(int width, int height, float value) {
    return {width, height,
            std::vector<float>(static_cast<std::size_t>(width) * static_cast<std::size_t>(height),
                               value)};
}

Result<Image> decode_image(const std::filesystem::path& path) {
    int w = 0, h = 0, channels = 0;
    unsigned char* data = stbi_load(path.c_str(), &w, &h, &channels, 0);
    if (data == nullptr) {
        return fail(ErrorKind::parse, path.string(),
                    fmt::format("cannot decode the image: {}", stbi_failure_reason()));
    }
    Image out = blank_image(w, h);
    const auto n = out.pixels.size();
    const auto stride = static_cast<std::size_t>(channels);
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned char* p = data + i * stride;
        const double grey = channels >= 3 ? 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2] : p[0];
        out.pixels[i] = static_cast<float>(grey / 255.0);
    }
    stbi_image_free(data);
    return out;
}

Result<void> write_png(const std::filesystem::path& path, const Image& image) {
    const auto bytes = to_bytes(image);
    if (stbi_write_png(path.c_str(), image.width, image.height, 1, bytes.data(), image.width) ==
        0) {
        return fail(ErrorKind::io, path.string(), "cannot write the PNG file");
    }
    return {};
}

Result<void> write_jpeg(const std::filesystem::path& path, const Image& image) {
    const auto bytes = to_bytes(image);
    if (stbi_write_jpg(path.c_str(), image.width, image.height, 1, bytes.data(), 95) == 0) {
        return fail(ErrorKind::io, path.string(), "cannot write the JPEG file");
    }
    return {};
}

Image resize(const Image& in, int width, int height) {
    Image out = blank_image(width, height);
    const double sx = static_cast<double>(in.width) / width;
    const double sy = static_cast<double>(in.height) / height;
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            out.pixels[index_of(out, x, y)] =
                sample(in, (x + 0.5) * sx - 0.5, (y + 0.5) * sy - 0.5, true, 0.0F);
        }
    }
    return out;
}

Image flip_horizontal(const Image& in) {
    Image out = in;
    for (int y = 0; y < in.height; ++y) {
        for (int x = 0; x < in.width; ++x) {
            out.pixels[index_of(out, x, y)] = in.at(in.width - 1 - x, y);
        }
    }
    return out;
}

Image rotate(const Image& in, double degrees) {
    Image out = blank_image(in.width, in.height);
    const double r = degrees * std::numbers::pi / 180.0;
    const double c = std::cos(r);
    const double s = std::sin(r);
    const double cx = (in.width - 1) / 2.0;
    const double cy = (in.height - 1) / 2.0;
    for (int y = 0; y < in.height; ++y) {
        for (int x = 0; x < in.width; ++x) {
            // The source of output (x, y): the inverse rotation (y grows downwards).
            const double dx = x - cx;
            const double dy = y - cy;
            out.pixels[index_of(out, x, y)] =
                sample(in, cx + c * dx - s * dy, cy + s * dx + c * dy, false, 0.0F);
        }
    }
    return out;
}

Image pad(const Image& in, int border) {
    Image out = blank_image(in.width + 2 * border, in.height + 2 * border);
    for (int y = 0; y < in.height; ++y) {
        for (int x = 0; x < in.width; ++x) {
            out.pixels[index_of(out, x + border, y + border)] = in.at(x, y);
        }
    }
    return out;
}

Image crop(const Image& in, int x0, int y0, int width, int height) {
    Image out = blank_image(width, height);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            out.pixels[index_of(out, x, y)] = in.at(x0 + x, y0 + y);
        }
    }
    return out;
}

std::vector<float> train_transform(const Image& in, SplitMix& rng, int size) {
    const int resized = size + size / 14; // 240 for 224, as the study
    Image im = resize(in, resized, resized);
    if (rng.uniform() < 0.5) {
        im = flip_horizontal(im);
    }
    im = pad(rotate(im, -30.0 + 60.0 * rng.uniform()), 10);
    const auto room = static_cast<std::uint64_t>(im.width - size + 1);
    const auto x = static_cast<int>(rng.next() % room);
    const auto y = static_cast<int>(rng.next() % room);
    return normalised(crop(im, x, y, size, size));
}

std::vector<float> eval_transform(const Image& in, int size) {
    return normalised(resize(in, size, size));
}

Image synthetic_xray(std::uint64_t seed, std::size_t index, int label, int size) {
    SplitMix rng{seed * 0x2545f4914f6cdd1dULL + index};
    Image im = blank_image(size, size);
    const double s = size;
    const double shift_x = (rng.uniform() - 0.5) * 0.06 * s;
    const double lung_w = (0.17 + 0.03 * rng.uniform()) * s;
    const double lung_h = (0.30 + 0.05 * rng.uniform()) * s;
    struct Blob {
        double x, y, r, a;
    };
    std::vector<Blob> blobs;
    if (label == 1) {
        const int n = 3 + static_cast<int>(rng.next() % 4);
        for (int k = 0; k < n; ++k) {
            const double side = k % 2 == 0 ? 0.32 : 0.68;
            blobs.push_back({(side + (rng.uniform() - 0.5) * 0.12) * s + shift_x,
                             (0.55 + 0.2 * rng.uniform()) * s, (0.05 + 0.05 * rng.uniform()) * s,
                             0.25 + 0.2 * rng.uniform()});
        }
    }
    for (int y = 0; y < size; ++y) {
        for (int x = 0; x < size; ++x) {
            const double bx = (x - s / 2 - shift_x) / (0.42 * s);
            const double by = (y - 0.55 * s) / (0.5 * s);
            double v = bx * bx + by * by < 1.0 ? 0.85 : 0.35; // thorax and air
            for (double side : {0.32, 0.68}) {
                const double lx = (x - side * s - shift_x) / lung_w;
                const double ly = (y - 0.48 * s) / lung_h;
                if (lx * lx + ly * ly < 1.0) {
                    v = 0.45 + 0.1 * ly;
                }
            }
            for (const auto& b : blobs) {
                const double d2 = ((x - b.x) * (x - b.x) + (y - b.y) * (y - b.y)) / (b.r * b.r);
                v += b.a * std::exp(-d2);
            }
            v += 0.04 * rng.gaussian();
            im.pixels[index_of(im, x, y)] = static_cast<float>(std::clamp(v, 0.0, 1.0));
        }
    }
    return im;
}

} // namespace jp::workload
