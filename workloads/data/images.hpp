// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The health-vgg workload's images: decoding (PNG, JPEG and the other formats
// stb_image reads) to one grey channel, and the study's preprocessing —
// Grayscale, Resize, RandomHorizontalFlip, RandomRotation(30), Pad(10),
// RandomCrop(224), ToTensor, Normalize(0.8180, 0.1748) — on float pixels.
#include "core/error.hpp"
#include "data/synthetic_load.hpp"

#include <filesystem>
#include <vector>

namespace jp::workload {

// Grey pixels in [0, 1], row-major.
struct Image {
    int width = 0;
    int height = 0;
    std::vector<float> pixels;

    [[nodiscard]] float at(int x, int y) const {
        return pixels[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                      static_cast<std::size_t>(x)];
    }
};

[[nodiscard]] Image blank_image(int width, int height, float value = 0.0F);

// Colour images become luminance (ITU-R 601, as PIL's Grayscale).
[[nodiscard]] Result<Image> decode_image(const std::filesystem::path& path);
[[nodiscard]] Result<void> write_png(const std::filesystem::path& path, const Image& image);
[[nodiscard]] Result<void> write_jpeg(const std::filesystem::path& path, const Image& image);

// Bilinear, pixel centres aligned (align_corners = false).
[[nodiscard]] Image resize(const Image& in, int width, int height);
[[nodiscard]] Image flip_horizontal(const Image& in);
// Counter-clockwise about the centre, bilinear, outside filled with 0.
[[nodiscard]] Image rotate(const Image& in, double degrees);
[[nodiscard]] Image pad(const Image& in, int border);
[[nodiscard]] Image crop(const Image& in, int x, int y, int width, int height);

inline constexpr float k_pixel_mean = 0.8180F;
inline constexpr float k_pixel_std = 0.1748F;

// The study's training transform (resize 240, flip, rotate ±30°, pad 10,
// random 224 crop) and evaluation transform (resize 224); both normalised.
[[nodiscard]] std::vector<float> train_transform(const Image& in, SplitMix& rng, int size = 224);
[[nodiscard]] std::vector<float> eval_transform(const Image& in, int size = 224);

// A deterministic chest-x-ray-like picture: a bright thorax with two darker
// lungs; label 1 adds patchy opacities in the lower lungs.
[[nodiscard]] Image synthetic_xray(std::uint64_t seed, std::size_t index, int label, int size);

} // namespace jp::workload
