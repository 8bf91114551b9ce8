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
    // taken before anything else (combining a shorter period's into it included), and
    // moved into place only once it was taken, so that a bad one is never lost.
    auto kept = read_idle_file(*m_state_dir, own);
    const auto take_kept = [&] {
        auto l = restore_idle(*kept, m_idle, m_channels, now_s, &m_idle_absent);
        if (!l) {
            return fmt::format("{} not used ({}): learning anew", own, l.error().message());
        }
        (void)move_idle_file(*m_state_dir, own, k_idle_file); // else taken again next time
        return fmt::format("{} (kept in {} from when this period was last used)", *l, own);
    };
    auto text = read_idle_file(*m_state_dir);
    if (!text && text.error().kind == ErrorKind::not_found) {
        return kept ? take_kept()
                    : fmt::format("idle history: none yet in {} (written every {} and at stop)",
                                  m_state_dir->string(), format_duration(k_idle_save));
    }
    if (!text) {
        return fmt::format("idle history not used ({}): learning anew", text.error().message());
    }
    // Learned over another period: set aside under its period, never written over.
    const auto set_aside = [&](std::int64_t theirs, const std::string& why) -> Result<std::string> {
        if (auto moved = move_idle_file(*m_state_dir, k_idle_file, idle_file_for(theirs)); !moved) {
            return std::unexpected(moved.error());
        }
        return fmt::format("{} set aside as {} ({})", file, idle_file_for(theirs), why);
    };
    const auto theirs = idle_file_period(*text);
    if (theirs && *theirs != period_ns && kept) {
        auto aside = set_aside(*theirs, fmt::format("learned over periods of {:g} s",
                                                    static_cast<double>(*theirs) * 1e-9));
        if (!aside) {
            return fmt::format("idle history in {} not used, and not set aside ({}): it will "
                               "be replaced at the next save",
                               file, aside.error().message());
        }
        return fmt::format("{}; {}", *aside, take_kept());
    }
    auto line = restore_idle(*text, m_idle, m_channels, now_s, &m_idle_absent);
    if (!line && line.error().kind == ErrorKind::unsupported && theirs) {
        auto aside = set_aside(*theirs, line.error().message());
        return aside ? fmt::format("{}: learning anew", *aside)
                     : fmt::format("idle history in {} not used ({}), and not set aside ({}): "
                                   "it will be replaced at the next save",
                                   file, line.error().message(), aside.error().message());
    }
    return line ? fmt::format("{} ({})", *line, file)
                : fmt::format("idle history in {} not used ({}): learning anew", file,
                              line.error().message());
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
