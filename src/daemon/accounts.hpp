// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// jouleprofd's accounts: every job on the node at once, each channel's energy split among
// them as it is published (docs/attribution.md, "Every job at once"). A job is what a
// client with a session measures: the Slurm step whose group holds it, else its process
// tree (attrib/job_cpu.hpp, JobCpu::of_process); clients in one group are one job. Its CPU
// time (and the node's) is read when the engine chooses a window, and each channel's
// energy from one published reading to the next is split with attrib/node_split.hpp:
// idle by what each job was given (a CPU several jobs hold divided among them), dynamic by
// the CPU time each used on the channel's package; the rest is unallocated or other
// processes'. The parts add up to the channel's energy; each split is checked (1 mJ).
#include "attrib/allocation.hpp"
#include "attrib/job_cpu.hpp"
#include "attrib/node_cpu.hpp"
#include "attrib/node_split.hpp"
#include "core/channel.hpp"
#include "core/duration.hpp"
#include "daemon/history.hpp"
#include "daemon/ledger.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <sys/types.h>
#include <vector>

namespace jp::daemon {

struct AccountsSettings {
    std::size_t max_jobs = 1000;               // jobs kept, open and ended
    Nanos keep{std::chrono::minutes{10}};      // how long an ended job stays
    Nanos min_period{std::chrono::seconds{1}}; // CPU time read at most this often
    // Files of /proc one user's jobs may cost each reading (a process tree: 2 or more per
    // process); a job beyond is not read then, and is charged what nobody read explains on its
    // CPUs.
    std::size_t reads_per_user = 4096;
    // New jobs one user's clients may have set up (each reads several files): at once, and
    // per second after; root is not limited.
    double setups_burst = 16;
    double setups_per_second = 8;
    std::filesystem::path proc_root{"/"};  // /proc and /sys/fs/cgroup
    std::filesystem::path sysfs_root{"/"}; // the CPU topology
};

// A client process with a session now.
struct Holder {
    pid_t pid = 0;
    std::optional<std::uint64_t> start_time; // absent where /proc did not show it
    uid_t uid = 0;
};

// A channel's energy split so far, all jobs together (joules since accounting began).
struct ChannelSplit {
    double energy_j = 0;
    double jobs_idle_j = 0;
    double jobs_dynamic_j = 0;
    double unallocated_j = 0;
    double other_j = 0;
};

struct AccountJob {
    std::string key;       // its group's directory, or "process tree of pid N"
    std::string method;    // how its CPU time is read (JobCpu::method)
    std::string slurm_job; // "" unless a Slurm step
    uid_t uid = 0;
    std::string user;                      // uid's name, "" where it has none
    std::vector<int> cpus;                 // the CPUs it may run on
    std::vector<attrib::JobEnergy> energy; // per channel, since it was first seen
    std::int64_t first_ns = 0;
    std::int64_t ended_ns = 0; // 0: open
};

class Accounts {
public:
    Accounts(AccountsSettings settings, std::vector<Channel> channels);
    Accounts(const Accounts&) = delete;
    Accounts& operator=(const Accounts&) = delete;
    Accounts(Accounts&&) noexcept;
    Accounts& operator=(Accounts&&) noexcept;
    ~Accounts();

    // Each tick: a holder's job is followed from its first session on (its CPU time read
    // now), and ends when its last holder has gone (its last reading taken now).
    void follow(std::span<const Holder> holders, std::int64_t now_ns);
    // Window `window` was chosen now: the CPU time of the node and of every job running (or
    // ended since the last snapshot) is read, unless the last snapshot is younger than
    // min_period. False when nothing was read.
    bool snapshot(std::uint64_t window, std::int64_t now_ns);
    // Window `window` was published: each channel's newest published reading (nullopt: none)
    // and its idle power (0: not known). A window without a snapshot is split with the next.
    void account(std::uint64_t window,
                 std::span<const std::optional<Reading>> latest,
                 std::span<const double> idle_w);

    [[nodiscard]] const std::vector<Channel>& channels() const noexcept { return m_channels; }
    [[nodiscard]] const std::vector<ChannelSplit>& totals() const noexcept { return m_totals; }
    // Open jobs and those ended within keep, oldest first, as of the last window published
    // (who runs, and when a job began or ended, is shown no finer than the windows).
    [[nodiscard]] std::vector<const AccountJob*> jobs() const;
    [[nodiscard]] std::size_t open_jobs() const noexcept;
    [[nodiscard]] std::uint64_t splits() const noexcept { return m_splits; }
    // Splits whose parts did not add up to the energy within 1 mJ (never, unless broken).
    [[nodiscard]] std::uint64_t conservation_failures() const noexcept { return m_failures; }
    // Splits whose shares given, or used, added up to more than the whole and were scaled.
    [[nodiscard]] std::uint64_t given_scaled() const noexcept { return m_given_scaled; }
    [[nodiscard]] std::uint64_t use_scaled() const noexcept { return m_use_scaled; }
    // Holders not followed: their pid no longer their user's (a client that ended).
    [[nodiscard]] std::uint64_t refused() const noexcept { return m_refused; }
    // A job's CPU time not read (beyond its user's reads, or failed): its use went to others.
    [[nodiscard]] std::uint64_t unread() const noexcept { return m_unread; }
    // Why the node's CPU time cannot be read ("" when it can): then nothing is split.
    [[nodiscard]] const std::string& unavailable() const noexcept { return m_unavailable; }

    struct Snapshot;
    struct Tracked;

private:
    void prune(std::int64_t now_ns);
    [[nodiscard]] static std::string holder_id(const Holder& h);
    // A new holder's job (its key), or nullopt where it is not followed.
    std::optional<std::string> begin_job(const Holder& h, std::int64_t now_ns);
    [[nodiscard]] std::optional<std::string> joined(const Holder& h) const;
    // Its CPU time, within its user's reads until the next snapshot.
    std::optional<attrib::JobCpu::Reading> read(Tracked& t);
    void split(std::size_t channel,
               double energy_j,
               double seconds,
               double idle_w,
               const Snapshot& a,
               const Snapshot& b);

    struct Mark {
        std::int64_t t_ns = 0;
        double value = 0;
        std::shared_ptr<const Snapshot> at;
    };

    AccountsSettings m_settings;
    std::vector<Channel> m_channels;
    std::optional<attrib::NodeCpu> m_node;
    attrib::Allocation m_topology; // the node's CPUs and their packages
    std::string m_unavailable;
    std::map<std::string, std::unique_ptr<Tracked>, std::less<>> m_jobs;            // by key
    std::map<std::string, std::string, std::less<>> m_holder_job;                   // holder -> key
    std::map<std::string, std::pair<pid_t, std::string>, std::less<>> m_holder_pid; // and pid
    std::map<uid_t, std::size_t> m_budget; // reads left to each user's jobs
    CallBudget m_setups;
    std::vector<AccountJob> m_shown; // as of the last window published
    std::map<std::uint64_t, std::shared_ptr<const Snapshot>> m_pending; // by window
    std::vector<Mark> m_marks;                                          // per channel
    std::vector<ChannelSplit> m_totals;
    std::int64_t m_last_snapshot_ns = 0;
    std::uint64_t m_splits = 0;
    std::uint64_t m_failures = 0;
    std::uint64_t m_given_scaled = 0;
    std::uint64_t m_use_scaled = 0;
    std::uint64_t m_unread = 0;
    std::uint64_t m_refused = 0;
};

} // namespace jp::daemon
