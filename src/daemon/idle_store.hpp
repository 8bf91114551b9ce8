// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// The idle learner's history kept across restarts (docs/daemon.md, "Idle power"): each
// channel's means in a file of the daemon's state directory ([daemon] state_dir, else
// systemd's $STATE_DIRECTORY), written whole and renamed into place, read back at start.
// A channel is the same one only by name, quantity, backend and device; means older than
// the window (counted from when the file was written) are dropped; a file written with a
// period a whole number of which makes this one is combined into it, and one with another
// period is set aside, for a later start with that period. A file or directory another user could
// have written is refused, as the config is (sys/trusted_file.hpp); so is a damaged one: the daemon
// then learns anew and says why, in one line.
#include "core/channel.hpp"
#include "core/error.hpp"
#include "daemon/idle.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace jp::daemon {

inline constexpr const char* k_idle_file = "idle-history.json";

// A channel of the file that this node does not have now (a GPU whose library failed to
// load at this start): kept as read, and written again until its means leave the window.
struct AbsentIdle {
    std::string name, quantity, backend, device;
    std::vector<double> means;     // oldest first
    std::vector<double> busy;      // the same length, NaN unknown; or empty
    std::int64_t saved_unix_s = 0; // when its newest mean was taken (about)
};

// The file's text: every channel's means, oldest first, and those absent now, less what
// left the window since they were saved. now_unix_s: the wall clock.
[[nodiscard]] std::string idle_json(const IdleLearner& learner,
                                    const std::vector<Channel>& channels,
                                    std::int64_t now_unix_s,
                                    const std::vector<AbsentIdle>& absent = {});

// Takes what a file's text holds for these channels into the learner, and the channels
// not here now into absent (where given); one line saying what was taken (or why nothing
// was). Errors: the text is not such a file.
[[nodiscard]] Result<std::string> restore_idle(std::string_view text,
                                               IdleLearner& learner,
                                               const std::vector<Channel>& channels,
                                               std::int64_t now_unix_s,
                                               std::vector<AbsentIdle>* absent = nullptr);

// Writes the file into dir (made 0700 when missing, in a parent no other user can change).
[[nodiscard]] Result<void> save_idle_file(const std::filesystem::path& dir,
                                          const std::string& text);

// The file's text from dir, checked as the config file is. not_found when there is none.
[[nodiscard]] Result<std::string> read_idle_file(const std::filesystem::path& dir,
                                                 const std::string& name = k_idle_file);

// A history learned over a period that no whole number of which makes the learner's is
// not used (restore_idle: ErrorKind::unsupported). It is set aside under this name, and
// taken up again by a later start with that period: its period as the file says (none:
// not such a file), and the name for a period.
[[nodiscard]] std::optional<std::int64_t> idle_file_period(std::string_view text);
[[nodiscard]] std::string idle_file_for(std::int64_t period_ns);
// Renames `from` to `to` within dir (checked as for reading); `to` is replaced.
[[nodiscard]] Result<void>
move_idle_file(const std::filesystem::path& dir, const std::string& from, const std::string& to);

} // namespace jp::daemon
