// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A temporary directory tree built from a declarative list of files, removed
// on destruction: tests point Host::sysfs_root at root().
#include <filesystem>
#include <initializer_list>
#include <string>
#include <sys/stat.h>
#include <utility>

namespace jp::test {

struct FakeFile {
    std::string path;    // absolute-looking: "/sys/class/powercap/intel-rapl:0/name"
    std::string content; // written as is (add "\n" as the kernel does)
    mode_t mode = 0444;
};

class FakeSysfs {
public:
    FakeSysfs();
    FakeSysfs(std::initializer_list<FakeFile> files);
    FakeSysfs(const FakeSysfs&) = delete;
    FakeSysfs& operator=(const FakeSysfs&) = delete;
    ~FakeSysfs();

    [[nodiscard]] const std::filesystem::path& root() const { return m_root; }
    [[nodiscard]] std::filesystem::path path(std::string_view absolute) const;

    void add(const FakeFile& file);
    // Rewrites the content in place (same inode, as a sysfs attribute changes).
    void write(std::string_view absolute, std::string_view content) const;
    void chmod(std::string_view absolute, mode_t mode) const;
    void remove(std::string_view absolute) const; // file or whole directory
    void symlink(std::string_view target, std::string_view absolute) const;

private:
    std::filesystem::path m_root;
};

// Files of one powercap RAPL zone, as the kernel lays them out.
void add_rapl_zone(FakeSysfs& fs,
                   std::string_view id,
                   std::string_view name,
                   std::uint64_t energy_uj,
                   std::uint64_t max_range_uj = 262143328850ULL,
                   mode_t energy_mode = 0400);

} // namespace jp::test
