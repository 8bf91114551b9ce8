// SPDX-License-Identifier: BSD-3-Clause
// The fuzz targets without libFuzzer: a main that gives LLVMFuzzerTestOneInput
// every file of the folders (and files) named on its command line, in name
// order, once each. The ci preset builds each target with it (GCC, ASan+UBSan)
// and ctest replays the checked-in corpus (fuzz/corpus/TARGET), so a change
// that breaks a target or crashes on an input found before fails the tests
// without the clang build; fuzzing itself is fuzz/run.sh's (docs/fuzzing.md).
//   replay_TARGET PATH...   exits 1 on a path it cannot read or no input at all
//                           (a failed check aborts)
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

// The regular files under PATH (PATH itself when it is one), sorted.
std::vector<std::filesystem::path> inputs_of(const std::filesystem::path& path) {
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_regular_file(path)) {
        files.push_back(path);
        return files;
    }
    for (const auto& entry : std::filesystem::recursive_directory_iterator{path}) {
        if (entry.is_regular_file()) {
            files.push_back(entry.path());
        }
    }
    std::ranges::sort(files);
    return files;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s PATH...\n", argv[0]);
        return 2;
    }
    std::size_t runs = 0;
    for (int i = 1; i < argc; ++i) {
        std::error_code ec;
        if (!std::filesystem::exists(argv[i], ec)) {
            std::fprintf(stderr, "%s: %s: no such file or folder\n", argv[0], argv[i]);
            return 1;
        }
        for (const auto& file : inputs_of(argv[i])) {
            std::ifstream in{file, std::ios::binary};
            const std::string bytes{std::istreambuf_iterator<char>{in}, {}};
            if (!in.good() && !in.eof()) {
                std::fprintf(stderr, "%s: %s: cannot read\n", argv[0], file.c_str());
                return 1;
            }
            LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                   bytes.size());
            ++runs;
        }
    }
    if (runs == 0) { // an emptied corpus would pass unseen
        std::fprintf(stderr, "%s: no input under the paths given\n", argv[0]);
        return 1;
    }
    std::printf("%zu inputs replayed, none failed\n", runs);
    return 0;
}
