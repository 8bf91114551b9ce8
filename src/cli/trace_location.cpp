// SPDX-License-Identifier: BSD-3-Clause
#include "cli/trace_location.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"

#include <cerrno>
#include <cstdlib>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace jp::cli {
namespace {

namespace fs = std::filesystem;

// mkdir -p with mode 0700 for every directory made (the XDG rule for state).
Result<void> make_private_dirs(const fs::path& dir) {
    fs::path at;
    for (const auto& part : dir) {
        at /= part;
        if (::mkdir(at.c_str(), 0700) != 0 && errno != EEXIST) {
            return std::unexpected(errno_error(errno, at.string()));
        }
    }
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        return fail(ErrorKind::config, dir.string(), "is not a directory");
    }
    return {};
}

// Why `dir` cannot take a new file, or nothing.
std::optional<std::string> unwritable(const fs::path& dir) {
    std::error_code ec;
    if (!fs::exists(dir, ec)) {
        return fmt::format("the directory {} does not exist", dir.string());
    }
    if (!fs::is_directory(dir, ec)) {
        return fmt::format("{} is not a directory", dir.string());
    }
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
        return fmt::format("cannot create a file in {}: {}", dir.string(),
                           errno_error(errno, dir.string()).detail);
    }
    return std::nullopt;
}

// A new name in dir: jouleprof-<time>-<pid>.jptrace, with -2, -3, ... when that is
// taken (a second Python block in the same second). Writer::create makes it with O_EXCL.
fs::path new_name_in(const fs::path& dir) {
    const auto base = default_trace_name();
    auto p = dir / base;
    std::error_code ec;
    for (int i = 2; fs::exists(fs::symlink_status(p, ec)) && i < 10000; ++i) {
        p = dir / fmt::format("{}-{}{}", base.stem().string(), i, base.extension().string());
    }
    return p;
}

// The temp directory's fallback: a private directory of its own (0700, a random
// name), so the trace is neither guessable nor readable by others there.
Result<fs::path> private_temp_dir() {
    std::error_code ec;
    auto pattern = (fs::temp_directory_path(ec) / "jouleprof-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
        return std::unexpected(errno_error(errno, pattern));
    }
    return fs::path{pattern};
}

} // namespace

fs::path default_trace_dir(const EnvLookup& env) {
    if (auto d = env("JOULEPROF_TRACE_DIR"); d && !d->empty()) {
        return *d;
    }
    // XDG: a relative value is invalid and is ignored.
    if (auto d = env("XDG_STATE_HOME"); d && fs::path{*d}.is_absolute()) {
        return fs::path{*d} / "jouleprof" / "traces";
    }
    if (auto home = env("HOME"); home && fs::path{*home}.is_absolute()) {
        return fs::path{*home} / ".local" / "state" / "jouleprof" / "traces";
    }
    return {};
}

fs::path default_trace_name() {
    char buf[32];
    const auto utc = std::string{format_utc(wall_ns(), buf)};
    std::string stamp;
    for (char c : utc.substr(0, 19)) {
        if (c != '-' && c != ':') {
            stamp += c == 'T' ? '-' : c;
        }
    }
    return fmt::format("jouleprof-{}-{}.jptrace", stamp, ::getpid());
}

Result<fs::path> trace_path_for(const fs::path& output, const EnvLookup& env) {
    std::error_code ec;
    if (!output.empty()) {
        const bool dir = fs::is_directory(output, ec);
        const auto where = dir ? output : (output.has_parent_path() ? output.parent_path() : ".");
        if (auto why = unwritable(where)) {
            return fail(ErrorKind::config, "-o " + output.string(), *why);
        }
        return dir ? new_name_in(output) : output;
    }
    const auto dir = default_trace_dir(env);
    if (!dir.empty()) {
        auto made = make_private_dirs(dir);
        if (made && !unwritable(dir)) {
            return new_name_in(dir);
        }
        JP_LOG_WARN("trace directory {}: {}; writing the trace to the temp directory (set "
                    "JOULEPROF_TRACE_DIR or give -o)",
                    dir.string(), made ? unwritable(dir).value_or("") : made.error().detail);
    } else {
        JP_LOG_WARN("no HOME, XDG_STATE_HOME or JOULEPROF_TRACE_DIR: writing the trace to the "
                    "temp directory (give -o to choose)");
    }
    auto tmp = private_temp_dir();
    if (!tmp) {
        return std::unexpected(tmp.error());
    }
    return *tmp / default_trace_name();
}

} // namespace jp::cli
