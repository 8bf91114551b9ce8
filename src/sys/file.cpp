// SPDX-License-Identifier: BSD-3-Clause
#include "sys/file.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace jp::sys {

Result<std::string> read_text(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return std::unexpected(errno_error(errno, path.string()));
    }
    std::string out;
    char buf[4096];
    for (;;) {
        const auto n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            const int err = errno;
            ::close(fd);
            return std::unexpected(errno_error(err, path.string()));
        }
        if (n == 0) {
            break;
        }
        out.append(buf, static_cast<std::size_t>(n));
        if (out.size() > (16U << 20U)) {
            break;
        }
    }
    ::close(fd);
    return out;
}

std::string_view trim(std::string_view s) noexcept {
    const auto blank = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; };
    while (!s.empty() && blank(s.front())) {
        s.remove_prefix(1);
    }
    while (!s.empty() && blank(s.back())) {
        s.remove_suffix(1);
    }
    return s;
}

Result<std::string> read_trimmed(const std::filesystem::path& path) {
    auto text = read_text(path);
    if (!text) {
        return std::unexpected(text.error());
    }
    return std::string{trim(*text)};
}

namespace {
// The whole (trimmed) text must be one decimal integer.
template <class T> std::expected<T, std::errc> parse_integer(std::string_view s) noexcept {
    s = trim(s);
    T value = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec != std::errc{}) {
        return std::unexpected(ec);
    }
    if (ptr != s.data() + s.size() || s.empty()) {
        return std::unexpected(std::errc::invalid_argument);
    }
    return value;
}
} // namespace

std::expected<std::uint64_t, std::errc> parse_u64(std::string_view s) noexcept {
    return parse_integer<std::uint64_t>(s);
}

std::expected<std::int64_t, std::errc> parse_i64(std::string_view s) noexcept {
    return parse_integer<std::int64_t>(s);
}

namespace {
template <class T, class Parse>
Result<T> read_number(const std::filesystem::path& path, Parse parse) {
    auto text = read_text(path);
    if (!text) {
        return std::unexpected(text.error());
    }
    auto value = parse(*text);
    if (!value) {
        return fail(ErrorKind::parse, path.string(),
                    "expected an integer, found '" + std::string{trim(*text)} + "'");
    }
    return *value;
}
} // namespace

Result<std::uint64_t> read_u64(const std::filesystem::path& path) {
    return read_number<std::uint64_t>(path, parse_u64);
}
Result<std::int64_t> read_i64(const std::filesystem::path& path) {
    return read_number<std::int64_t>(path, parse_i64);
}

std::filesystem::path under_root(const std::filesystem::path& root, std::string_view absolute) {
    while (!absolute.empty() && absolute.front() == '/') {
        absolute.remove_prefix(1);
    }
    return root / std::filesystem::path{absolute};
}

std::vector<std::string> list_dir(const std::filesystem::path& dir, std::string_view prefix) {
    std::vector<std::string> out;
    std::error_code ec;
    for (std::filesystem::directory_iterator it{dir, ec}, end; !ec && it != end; it.increment(ec)) {
        auto name = it->path().filename().string();
        if (name.starts_with(prefix)) {
            out.push_back(std::move(name));
        }
    }
    std::ranges::sort(out);
    return out;
}

Result<PolledFile> PolledFile::open(std::filesystem::path path) {
    PolledFile f;
    f.m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (f.m_fd < 0) {
        return std::unexpected(errno_error(errno, path.string()));
    }
    struct stat st {};
    if (::fstat(f.m_fd, &st) == 0) {
        f.m_dev = st.st_dev;
        f.m_ino = st.st_ino;
    }
    f.m_path = std::move(path);
    return f;
}

PolledFile::PolledFile(PolledFile&& other) noexcept
    : m_path(std::move(other.m_path)), m_fd(std::exchange(other.m_fd, -1)), m_dev(other.m_dev),
      m_ino(other.m_ino) {}

PolledFile& PolledFile::operator=(PolledFile&& other) noexcept {
    if (this != &other) {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
        m_path = std::move(other.m_path);
        m_fd = std::exchange(other.m_fd, -1);
        m_dev = other.m_dev;
        m_ino = other.m_ino;
    }
    return *this;
}

PolledFile::~PolledFile() {
    if (m_fd >= 0) {
        ::close(m_fd);
    }
}

std::expected<std::string_view, int> PolledFile::read(std::span<char> buf) const noexcept {
    if (m_fd < 0) {
        return std::unexpected(EBADF);
    }
    ssize_t n = 0;
    do {
        n = ::pread(m_fd, buf.data(), buf.size(), 0);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        return std::unexpected(errno);
    }
    if (n == 0) {
        return std::unexpected(ENODATA);
    }
    return std::string_view{buf.data(), static_cast<std::size_t>(n)};
}

std::expected<std::uint64_t, int> PolledFile::read_u64() const noexcept {
    char buf[64];
    auto text = read(buf);
    if (!text) {
        return std::unexpected(text.error());
    }
    auto value = parse_u64(*text);
    if (!value) {
        return std::unexpected(EINVAL);
    }
    return *value;
}

bool PolledFile::still_present() const noexcept {
    struct stat st {};
    if (::stat(m_path.c_str(), &st) != 0) {
        return false;
    }
    return st.st_dev == m_dev && st.st_ino == m_ino;
}

} // namespace jp::sys
