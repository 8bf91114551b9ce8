// SPDX-License-Identifier: BSD-3-Clause
#include "fake_sysfs.hpp"

#include <cstdlib>
#include <fcntl.h>
#include <fmt/format.h>
#include <stdexcept>
#include <unistd.h>

namespace jp::test {
namespace {
std::string strip(std::string_view p) {
    while (!p.empty() && p.front() == '/') {
        p.remove_prefix(1);
    }
    return std::string{p};
}
} // namespace

FakeSysfs::FakeSysfs() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "jp-fakesys-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
        throw std::runtime_error("mkdtemp failed");
    }
    m_root = tmpl;
}

FakeSysfs::FakeSysfs(std::initializer_list<FakeFile> files) : FakeSysfs() {
    for (const auto& f : files) {
        add(f);
    }
}

FakeSysfs::~FakeSysfs() {
    std::error_code ec;
    // Make everything writable again so removal works as a non-root user.
    for (auto it = std::filesystem::recursive_directory_iterator(m_root, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        std::filesystem::permissions(it->path(), std::filesystem::perms::owner_all,
                                     std::filesystem::perm_options::add, ec);
    }
    std::filesystem::remove_all(m_root, ec);
}

std::filesystem::path FakeSysfs::path(std::string_view absolute) const {
    return m_root / strip(absolute);
}

void FakeSysfs::add(const FakeFile& file) {
    const auto p = path(file.path);
    std::filesystem::create_directories(p.parent_path());
    std::error_code ec; // an existing file may be read-only: make it writable first
    std::filesystem::permissions(p, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    write(file.path, file.content);
    chmod(file.path, file.mode);
}

void FakeSysfs::write(std::string_view absolute, std::string_view content) const {
    const auto p = path(absolute);
    // A non-root owner cannot open its own mode-0444 file for writing: lift the
    // mode for the write and put it back (same inode, as sysfs keeps).
    struct stat st {};
    const bool existed = ::stat(p.c_str(), &st) == 0;
    if (existed) {
        ::chmod(p.c_str(), st.st_mode | S_IWUSR);
    }
    const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (existed) {
        ::chmod(p.c_str(), st.st_mode & 07777);
    }
    if (fd < 0) {
        throw std::runtime_error("cannot write " + p.string());
    }
    // In place, then trim: readers holding the fd see the new value.
    const auto n = ::pwrite(fd, content.data(), content.size(), 0);
    const int rc = ::ftruncate(fd, static_cast<off_t>(content.size()));
    ::close(fd);
    if (n != static_cast<ssize_t>(content.size()) || rc != 0) {
        throw std::runtime_error("short write to " + p.string());
    }
}

void FakeSysfs::chmod(std::string_view absolute, mode_t mode) const {
    ::chmod(path(absolute).c_str(), mode);
}

void FakeSysfs::remove(std::string_view absolute) const {
    std::filesystem::remove_all(path(absolute));
}

void FakeSysfs::symlink(std::string_view target, std::string_view absolute) const {
    const auto p = path(absolute);
    std::filesystem::create_directories(p.parent_path());
    std::filesystem::create_symlink(target, p);
}

void add_rapl_zone(FakeSysfs& fs,
                   std::string_view id,
                   std::string_view name,
                   std::uint64_t energy_uj,
                   std::uint64_t max_range_uj,
                   mode_t energy_mode) {
    const auto dir = fmt::format("/sys/class/powercap/{}", id);
    fs.add({dir + "/name", fmt::format("{}\n", name)});
    fs.add({dir + "/energy_uj", fmt::format("{}\n", energy_uj), energy_mode});
    fs.add({dir + "/max_energy_range_uj", fmt::format("{}\n", max_range_uj)});
    fs.add({dir + "/enabled", "1\n", 0644});
    if (name.starts_with("package")) {
        fs.add({dir + "/constraint_0_name", "long_term\n"});
        fs.add({dir + "/constraint_0_power_limit_uw", "165000000\n", 0644});
        fs.add({dir + "/constraint_0_time_window_us", "999424\n", 0644});
        fs.add({dir + "/constraint_1_name", "short_term\n"});
        fs.add({dir + "/constraint_1_power_limit_uw", "198000000\n", 0644});
    }
}

} // namespace jp::test
