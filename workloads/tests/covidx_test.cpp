// SPDX-License-Identifier: BSD-3-Clause
#include "data/covidx.hpp"
#include "data/images.hpp"
#include "temp_dir.hpp"

#include <gtest/gtest.h>

namespace jp::workload {
namespace {

class Covidx : public ::testing::Test {
protected:
    void SetUp() override {
        std::filesystem::create_directories(dir.path() / "imgs");
        ASSERT_TRUE(write_png(dir.path() / "imgs" / "a.png", blank_image(5, 4, 0.5F)));
        ASSERT_TRUE(write_jpeg(dir.path() / "imgs" / "b.jpg", blank_image(9, 9, 0.2F)));
    }
    Result<std::vector<ImageEntry>> read(const std::string& csv, bool labels = true) {
        return read_image_list(dir.write("list.csv", csv), dir.path() / "imgs", labels);
    }
    test::TempDir dir;
};

TEST_F(Covidx, ReadsImagesAndLabels) {
    auto list = read("image,label\na.png,positive\nb.jpg,negative\n");
    ASSERT_TRUE(list) << list.error().message();
    ASSERT_EQ(list->size(), 2U);
    EXPECT_EQ((*list)[0].label, 1);
    EXPECT_EQ((*list)[1].label, 0);
    EXPECT_EQ((*list)[1].name, "b.jpg");
    for (const auto& e : *list) {
        auto im = decode_image(e.path);
        ASSERT_TRUE(im) << im.error().message();
    }
    auto png = decode_image((*list)[0].path);
    EXPECT_EQ(png->width, 5);
    EXPECT_NEAR(png->at(0, 0), 0.5F, 1.0F / 255);
}

TEST_F(Covidx, ColumnsMayComeInAnyOrderAndTestListsNeedNoLabel) {
    auto swapped = read("label,image\nnegative,a.png\n");
    ASSERT_TRUE(swapped) << swapped.error().message();
    EXPECT_EQ(swapped->front().label, 0);
    auto unlabelled = read("image\nb.jpg\n", false);
    ASSERT_TRUE(unlabelled);
    EXPECT_FALSE(unlabelled->front().label);
}

TEST_F(Covidx, BadListsAreOneLineErrors) {
    auto missing = read("image,label\na.png,positive\nc.png,negative\n");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message().find("list.csv:3"), std::string::npos);
    EXPECT_NE(missing.error().message().find("c.png"), std::string::npos);
    auto label = read("image,label\na.png,maybe\n");
    ASSERT_FALSE(label);
    EXPECT_NE(label.error().message().find("maybe"), std::string::npos);
    EXPECT_FALSE(read("image\na.png\n"));       // labels required
    EXPECT_FALSE(read("image,label\n"));        // no rows
    EXPECT_FALSE(read("image,label\na.png\n")); // short row
    EXPECT_FALSE(read_image_list(dir.path() / "none.csv", dir.path() / "imgs", true));
}

TEST_F(Covidx, TheTestSplitHasItsOwnFolderWhenPresent) {
    EXPECT_EQ(images_dir_for(dir.path(), "test"), dir.path() / "imgs");
    std::filesystem::create_directories(dir.path() / "test_imgs");
    EXPECT_EQ(images_dir_for(dir.path(), "test"), dir.path() / "test_imgs");
    EXPECT_EQ(images_dir_for(dir.path(), "train"), dir.path() / "imgs");
}

TEST(SyntheticCovidx, WritesALayoutTheLoaderReads) {
    test::TempDir dir;
    ASSERT_TRUE(write_synthetic_covidx(dir.path(), 8, 5, 32));
    std::size_t positives = 0;
    std::size_t jpegs = 0;
    for (const auto& [split, n] : {std::pair{"train", 8U}, {"valid", 2U}, {"test", 2U}}) {
        auto list =
            read_image_list(dir.path() / (std::string{split} + ".csv"), dir.path() / "imgs", true);
        ASSERT_TRUE(list) << list.error().message();
        EXPECT_EQ(list->size(), n);
        for (const auto& e : *list) {
            positives += *e.label == 1 ? 1U : 0U;
            jpegs += e.path.extension() == ".jpg" ? 1U : 0U;
            auto im = decode_image(e.path);
            ASSERT_TRUE(im);
            EXPECT_EQ(im->width, 32);
        }
    }
    EXPECT_GT(positives, 0U);
    EXPECT_LT(positives, 12U);
    EXPECT_EQ(jpegs, 6U);
}

} // namespace
} // namespace jp::workload
