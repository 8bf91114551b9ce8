// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The COVIDx-style layout the study's health workload reads: <dir>/train.csv,
// valid.csv and test.csv with the columns image,label (label `positive` or
// `negative`; optional for test), the images in a folder beside them.
#include "core/error.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace jp::workload {

struct ImageEntry {
    std::filesystem::path path;
    std::string name;         // as written in the CSV
    std::optional<int> label; // 1 positive, 0 negative
};

// Reads one CSV; every image must exist in images_dir. `where` names the
// file in errors. With require_labels, a row without a label is an error.
[[nodiscard]] Result<std::vector<ImageEntry>> read_image_list(
    const std::filesystem::path& csv, const std::filesystem::path& images_dir, bool require_labels);

// The image folder for a split: test uses test_imgs/ when it exists, else imgs/.
[[nodiscard]] std::filesystem::path images_dir_for(const std::filesystem::path& data_dir,
                                                   const std::string& split);

} // namespace jp::workload

namespace jp::workload {

// Writes a synthetic set in the COVIDx layout (train/valid/test.csv, imgs/ with
// PNG and JPEG files alternately): count training images, count/4 (at least 2)
// validation and test images.
[[nodiscard]] Result<void> write_synthetic_covidx(const std::filesystem::path& dir,
                                                  std::size_t count,
                                                  std::uint64_t seed,
                                                  int size = 224);

// The label of synthetic image `index` (balanced, deterministic).
[[nodiscard]] int synthetic_label(std::uint64_t seed, std::size_t index);

} // namespace jp::workload
