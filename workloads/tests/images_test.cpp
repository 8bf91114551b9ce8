// SPDX-License-Identifier: BSD-3-Clause
#include "data/images.hpp"
#include "temp_dir.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <numeric>
#include <stb/stb_image_write.h>

namespace jp::workload {
namespace {

Image gradient(int w, int h) {
    Image im = blank_image(w, h);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            im.pixels[static_cast<std::size_t>(y * w + x)] =
                static_cast<float>(x + y * w) / static_cast<float>(w * h - 1);
        }
    }
    return im;
}

float max_diff(const Image& a, const Image& b) {
    float d = 0;
    for (std::size_t i = 0; i < a.pixels.size(); ++i) {
        d = std::max(d, std::abs(a.pixels[i] - b.pixels[i]));
    }
    return d;
}

TEST(Images, PngRoundTripsAndJpegStaysClose) {
    test::TempDir dir;
    const auto im = gradient(16, 12);
    ASSERT_TRUE(write_png(dir.path() / "a.png", im));
    ASSERT_TRUE(write_jpeg(dir.path() / "a.jpg", im));
    auto png = decode_image(dir.path() / "a.png");
    ASSERT_TRUE(png) << png.error().message();
    EXPECT_EQ(png->width, 16);
    EXPECT_EQ(png->height, 12);
    EXPECT_LE(max_diff(*png, im), 0.5F / 255.0F + 1e-6F);
    auto jpg = decode_image(dir.path() / "a.jpg");
    ASSERT_TRUE(jpg) << jpg.error().message();
    EXPECT_LE(max_diff(*jpg, im), 0.05F);
}

TEST(Images, ColourBecomesLuminance) {
    test::TempDir dir;
    const unsigned char rgb[] = {255, 0, 0, 0, 255, 0, 0, 0, 255};
    const auto path = dir.path() / "rgb.png";
    ASSERT_NE(stbi_write_png(path.c_str(), 3, 1, 3, rgb, 9), 0);
    auto im = decode_image(path);
    ASSERT_TRUE(im);
    EXPECT_NEAR(im->at(0, 0), 0.299F, 1e-6F);
    EXPECT_NEAR(im->at(1, 0), 0.587F, 1e-6F);
    EXPECT_NEAR(im->at(2, 0), 0.114F, 1e-6F);
}

TEST(Images, UndecodableFileIsAnErrorNamingIt) {
    test::TempDir dir;
    const auto path = dir.write("x.png", "not an image");
    auto im = decode_image(path);
    ASSERT_FALSE(im);
    EXPECT_NE(im.error().message().find("x.png"), std::string::npos);
}

TEST(Images, ResizeIsBilinearWithCentresAligned) {
    Image row{2, 1, {0.0F, 1.0F}};
    const auto up = resize(row, 4, 1);
    EXPECT_EQ(up.pixels, (std::vector<float>{0.0F, 0.25F, 0.75F, 1.0F}));
    const auto flat = resize(blank_image(7, 5, 0.3F), 224, 224);
    EXPECT_LE(max_diff(flat, blank_image(224, 224, 0.3F)), 1e-6F);
}

TEST(Images, FlipPadCropAndRotate) {
    const auto im = gradient(3, 3);
    EXPECT_EQ(flip_horizontal(im).at(0, 1), im.at(2, 1));
    const auto padded = pad(im, 2);
    EXPECT_EQ(padded.width, 7);
    EXPECT_EQ(padded.at(0, 0), 0.0F);
    EXPECT_EQ(padded.at(2, 2), im.at(0, 0));
    EXPECT_EQ(crop(padded, 2, 2, 3, 3).pixels, im.pixels);
    // 90° counter-clockwise: the right-middle pixel moves to the top-middle.
    Image dot = blank_image(3, 3);
    dot.pixels[1 * 3 + 2] = 1.0F;
    const auto turned = rotate(dot, 90.0);
    EXPECT_NEAR(turned.at(1, 0), 1.0F, 1e-5F);
    EXPECT_NEAR(turned.at(2, 1), 0.0F, 1e-5F);
    EXPECT_LE(max_diff(rotate(im, 0.0), im), 1e-6F);
}

TEST(Images, TransformsGiveNormalisedStudySizedInputs) {
    const auto im = blank_image(300, 280, k_pixel_mean);
    const auto eval = eval_transform(im);
    ASSERT_EQ(eval.size(), 224U * 224U);
    for (float v : eval) {
        ASSERT_NEAR(v, 0.0F, 1e-5F);
    }
    const auto x = synthetic_xray(1, 0, 1, 256);
    SplitMix a{7};
    SplitMix b{7};
    SplitMix c{8};
    const auto ta = train_transform(x, a);
    EXPECT_EQ(ta.size(), 224U * 224U);
    EXPECT_EQ(ta, train_transform(x, b));
    EXPECT_NE(ta, train_transform(x, c));
}

TEST(Images, SyntheticPositivesShowOpacitiesInTheLowerLungs) {
    // Mean brightness of the lower lung band, over 20 images of each class.
    auto lower_lungs = [](int label) {
        double sum = 0;
        for (std::size_t i = 0; i < 20; ++i) {
            const auto im = synthetic_xray(3, i, label, 128);
            for (int y = 70; y < 95; ++y) {
                for (int x = 30; x < 98; ++x) {
                    sum += static_cast<double>(im.at(x, y));
                }
            }
        }
        return sum;
    };
    EXPECT_GT(lower_lungs(1), lower_lungs(0) * 1.05);
    EXPECT_EQ(synthetic_xray(3, 5, 0, 64).pixels, synthetic_xray(3, 5, 0, 64).pixels);
}

} // namespace
} // namespace jp::workload
