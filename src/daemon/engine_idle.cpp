// SPDX-License-Identifier: BSD-3-Clause
// The engine's idle learning (daemon/idle.hpp): its history kept in the state directory
// (daemon/idle_store.hpp), and the node's CPU use read for the learner's quiet periods.
#include "core/clock.hpp"
#include "core/duration.hpp"
#include "core/log.hpp"
#include "daemon/engine.hpp"
#include "daemon/idle_store.hpp"

#include <chrono>
#include <cstdlib>
#include <fmt/format.h>
#include <optional>

namespace jp::daemon {

bool Engine::save_idle() {
    if (!m_state_dir) {
        return true;
    }
    const auto now_s = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
    std::string why;
    try {
        if (auto r =
                save_idle_file(*m_state_dir, idle_json(m_idle, m_channels, now_s, m_idle_absent));
            !r) {
            why = r.error().message();
        }
    } catch (const std::exception& e) { // never the daemon's end: the next save tries again
        why = e.what();
    }
    if (!why.empty()) {
        if (why != m_idle_save_error) {
            m_idle_save_error = why;
            JP_LOG_WARN("idle history not saved: {}", why);
        }
        return false;
    }
    m_idle_save_error.clear();
    return true;
}

// Where the idle history is kept: [daemon] state_dir, else the first of systemd's
// $STATE_DIRECTORY (StateDirectory= in the unit), else nowhere. Reads it back into the
// learner; says in one line what came of it.
std::string Engine::restore_idle_history(const DaemonConfig& config) {
    if (config.daemon.state_dir) {
        if (!config.daemon.state_dir->empty()) {
            m_state_dir = *config.daemon.state_dir;
        }
    } else if (const char* env = std::getenv("STATE_DIRECTORY"); env != nullptr && *env == '/') {
        const std::string_view list{env};
        m_state_dir = std::filesystem::path{list.substr(0, list.find(':'))};
    }
    if (!m_state_dir) {
        return "idle history: kept in memory only (no [daemon] state_dir): a restart learns "
               "anew";
    }
    m_next_idle_save = mono_ns() + k_idle_save.count();
    const auto file = (*m_state_dir / k_idle_file).string();
    const auto period_ns = m_idle.settings().period.count();
    const auto own = idle_file_for(period_ns);
    const auto now_s = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
    // The history this period left when the daemon last went to another one, if any. It is
    // taken before a history of another period (combining a shorter one into ours included),
    // unless the file in use is of this very period (the latest). restore_idle changes
    // nothing where it fails, so the kept one is tried first, and moved into place only
    // once taken: a bad one is never lost.
    auto kept = read_idle_file(*m_state_dir, own);
    std::string kept_note; // what became of a kept file that was not taken
    if (!kept && kept.error().kind != ErrorKind::not_found) {
        kept_note = fmt::format("; {} not read ({})", own, kept.error().message());
    }
    auto text = read_idle_file(*m_state_dir);
    // The period of the file in use; 0: none known (a period is never 0). A plain number,
    // not an optional: GCC's -O2 took an optional's value here for uninitialised.
    const std::int64_t theirs = text ? idle_file_period(*text).value_or(0) : 0;
    const auto learned_over = [](std::int64_t ns) {
        return fmt::format("learned over periods of {:g} s", static_cast<double>(ns) * 1e-9);
    };
    const bool in_use_is_ours = theirs == period_ns; // the latest: used as it is
    if (kept && !in_use_is_ours) {
        auto taken = restore_idle(*kept, m_idle, m_channels, now_s, &m_idle_absent);
        if (taken) {
            std::string aside;
            if (theirs != 0) { // the file in use, of another period: set aside under it
                auto moved = move_idle_file(*m_state_dir, k_idle_file, idle_file_for(theirs));
                aside = moved ? fmt::format("{} set aside as {} ({}); ", file,
                                            idle_file_for(theirs), learned_over(theirs))
                              : fmt::format("{} not set aside ({}): it will be replaced; ", file,
                                            moved.error().message());
            }
            (void)move_idle_file(*m_state_dir, own, k_idle_file); // else taken again next time
            return fmt::format("{}{} (kept in {} from when this period was last used)", aside,
                               *taken, own);
        }
        kept_note = fmt::format("; {} not used ({})", own, taken.error().message());
    }
    if (!text && text.error().kind == ErrorKind::not_found) {
        return fmt::format("idle history: none yet in {} (written every {} and at stop){}",
                           m_state_dir->string(), format_duration(k_idle_save), kept_note);
    }
    if (!text) {
        return fmt::format("idle history not used ({}){}: learning anew", text.error().message(),
                           kept_note);
    }
    auto line = restore_idle(*text, m_idle, m_channels, now_s, &m_idle_absent);
    if (!line && line.error().kind == ErrorKind::unsupported && theirs != 0) {
        // Learned over a period none of ours is made of: set aside under it, for a start
        // with that period.
        auto moved = move_idle_file(*m_state_dir, k_idle_file, idle_file_for(theirs));
        return moved
                   ? fmt::format("{} set aside as {} ({}){}: learning anew", file,
                                 idle_file_for(theirs), line.error().message(), kept_note)
                   : fmt::format("idle history in {} not used ({}), and not set aside ({}): "
                                 "it will be replaced at the next save{}",
                                 file, line.error().message(), moved.error().message(), kept_note);
    }
    return line ? fmt::format("{} ({}){}", *line, file, kept_note)
                : fmt::format("idle history in {} not used ({}){}: learning anew", file,
                              line.error().message(), kept_note);
}

// Where the idle history comes from and what the node's CPU use is read from, each said in
// one line of the start's notes.
void Engine::start_idle_learning(const sensors::Host& host, const DaemonConfig& config) {
    m_notes.push_back(restore_idle_history(config));
    m_node_cpu = attrib::NodeCpu::open(host.sysfs_root);
    m_notes.push_back(
        m_node_cpu
            ? fmt::format("idle power learned from quiet periods (CPUs <= {} % busy, from {}) "
                          "where there are enough",
                          config.daemon.idle.quiet_busy_percent, m_node_cpu->source())
            : std::string{"idle power learned from every period: the node's CPU use cannot be "
                          "read (/proc/stat), so a busy node's idle power may be high"});
    if (const auto& a = config.access; config.daemon.idle.period < a.floor + a.jitter) {
        m_notes.push_back(fmt::format(
            "learned idle power goes to full-resolution users only: idle_period {} is shorter "
            "than the floor and its jitter ({} + {}), so floored users and /metrics get none",
            format_duration(config.daemon.idle.period), format_duration(a.floor),
            format_duration(a.jitter)));
    }
}

// The node's CPU use for the idle learner, often enough to find each period's ends (an
// eighth of a period, at most a second apart): one /proc/stat a second at the defaults.
void Engine::read_busy(std::int64_t now_ns) {
    if (!m_node_cpu || now_ns < m_next_busy_read) {
        return;
    }
    const auto every =
        std::min<std::int64_t>(m_idle.settings().period.count() / 8,
                               std::chrono::nanoseconds{std::chrono::seconds{1}}.count());
    m_next_busy_read = now_ns + every;
    auto busy = m_node_cpu->read();
    if (!busy) {
        return;
    }
    // A running total of what each CPU present in both readings added: a CPU that went
    // offline (it reads 0, or leaves /proc/stat) takes nothing back, one that came adds
    // nothing until its second reading; the count of CPUs present tells the learner of both.
    std::size_t present = 0;
    for (std::size_t i = 0; i < busy->size(); ++i) {
        const double now = (*busy)[i];
        present += now > 0 ? 1 : 0;
        if (i < m_cpu_busy.size() && m_cpu_busy[i] > 0 && now >= m_cpu_busy[i]) {
            m_cpu_busy_total += now - m_cpu_busy[i];
        }
    }
    m_cpu_busy = std::move(*busy);
    m_idle.add_busy(mono_ns(), m_cpu_busy_total, present);
}

} // namespace jp::daemon
