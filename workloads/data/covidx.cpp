// SPDX-License-Identifier: BSD-3-Clause
#include "data/covidx.hpp"

#include "data/images.hpp"
#include "data/text.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>

namespace jp::workload {

std::filesystem::path images_dir_for(const std::filesystem::path& data_dir,
                                     const std::string& split) {
    std::error_code ec;
    if (const auto own = data_dir / (split + "_imgs"); std::filesystem::is_directory(own, ec)) {
        return own;
    }
    return data_dir / "imgs";
}

Result<std::vector<ImageEntry>> read_image_list(const std::filesystem::path& csv,
                                                const std::filesystem::path& images_dir,
                                                bool require_labels) {
    auto text = read_text(csv);
    if (!text) {
        return std::unexpected(text.error());
    }
    const auto where = csv.string();
    CsvLines lines{*text};
    auto header = lines.next();
    if (!header) {
        return fail(ErrorKind::parse, where, "empty file; expected the header image,label");
    }
    const auto column = [&](std::string_view name) -> std::optional<std::size_t> {
        const auto it =
            std::ranges::find_if(header->fields, [&](const auto& f) { return lower(f) == name; });
        if (it == header->fields.end()) {
            return std::nullopt;
        }
        return static_cast<std::size_t>(it - header->fields.begin());
    };
    const auto image_col = column("image");
    const auto label_col = column("label");
    if (!image_col || (require_labels && !label_col)) {
        return fail(ErrorKind::parse, where,
                    require_labels ? "the header must have the columns image,label"
                                   : "the header must have an image column");
    }
    std::vector<ImageEntry> out;
    while (auto line = lines.next()) {
        const auto at = fmt::format("{}:{}", where, line->number);
        if (line->fields.size() != header->fields.size()) {
            return fail(ErrorKind::parse, at,
                        fmt::format("{} fields, the header has {}", line->fields.size(),
                                    header->fields.size()));
        }
        ImageEntry e;
        e.name = line->fields[*image_col];
        e.path = images_dir / e.name;
        if (e.name.empty() || !std::filesystem::is_regular_file(e.path)) {
            return fail(ErrorKind::not_found, at,
                        fmt::format("image '{}' is not in {}", e.name, images_dir.string()));
        }
        if (label_col) {
            const auto label = lower(line->fields[*label_col]);
            if (label == "positive" || label == "1") {
                e.label = 1;
            } else if (label == "negative" || label == "0") {
                e.label = 0;
            } else if (!label.empty() || require_labels) {
                return fail(ErrorKind::parse, at,
                            fmt::format("label '{}' is neither positive nor negative",
                                        line->fields[*label_col]));
            }
        }
        out.push_back(std::move(e));
    }
    if (out.empty()) {
        return fail(ErrorKind::parse, where, "no images listed");
    }
    return out;
}

int synthetic_label(std::uint64_t seed, std::size_t index) {
    SplitMix rng{seed ^ (0x9e3779b97f4a7c15ULL * (index + 1))};
    return static_cast<int>(rng.next() >> 63U);
}

Result<void> write_synthetic_covidx(const std::filesystem::path& dir,
                                    std::size_t count,
                                    std::uint64_t seed,
                                    int size) {
    std::error_code ec;
    std::filesystem::create_directories(dir / "imgs", ec);
    if (ec) {
        return fail(ErrorKind::io, (dir / "imgs").string(), ec.message());
    }
    const std::size_t small = std::max<std::size_t>(2, count / 4);
    std::size_t index = 0;
    for (const auto& [split, n] : {std::pair{"train", count}, {"valid", small}, {"test", small}}) {
        const auto csv = dir / (std::string{split} + ".csv");
        std::ofstream out{csv};
        out << "image,label\n";
        for (std::size_t i = 0; i < n; ++i, ++index) {
            const int label = synthetic_label(seed, index);
            const bool png = index % 2 == 0;
            const auto name = fmt::format("{}-{:05}.{}", split, i, png ? "png" : "jpg");
            const auto image = synthetic_xray(seed, index, label, size);
            auto written = png ? write_png(dir / "imgs" / name, image)
                               : write_jpeg(dir / "imgs" / name, image);
            if (!written) {
                return written;
            }
            out << name << ',' << (label == 1 ? "positive" : "negative") << '\n';
        }
        if (!out.flush()) {
            return fail(ErrorKind::io, csv.string(), "write failed");
        }
    }
    return {};
}

} // namespace jp::workload
