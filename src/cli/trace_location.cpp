// SPDX-License-Identifier: BSD-3-Clause
#include "cli/trace_location.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"

#include <cerrno>
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
        return dir ? output / default_trace_name() : output;
    }
    const auto dir = default_trace_dir(env);
    if (!dir.empty()) {
        auto made = make_private_dirs(dir);
        if (made && !unwritable(dir)) {
            return dir / default_trace_name();
        }
        JP_LOG_WARN("trace directory {}: {}; writing the trace to the temp directory (set "
                    "JOULEPROF_TRACE_DIR or give -o)",
                    dir.string(), made ? unwritable(dir).value_or("") : made.error().detail);
    } else {
        JP_LOG_WARN("no HOME, XDG_STATE_HOME or JOULEPROF_TRACE_DIR: writing the trace to the "
                    "temp directory (give -o to choose)");
    }
    return fs::temp_directory_path(ec) / default_trace_name();
}

} // namespace jp::cli
