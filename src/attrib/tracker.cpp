// SPDX-License-Identifier: BSD-3-Clause
#include "attrib/tracker.hpp"

#include "core/clock.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>
#include <unistd.h>

namespace jp::attrib {
namespace {

double at(const std::vector<double>& v, int i) {
    return i >= 0 && static_cast<std::size_t>(i) < v.size() ? v[static_cast<std::size_t>(i)] : 0.0;
}

} // namespace

Tracker::Tracker(NodeCpu node, JobCpu job, Allocation alloc, TrackerOptions options)
    : m_node(std::move(node)), m_job(std::move(job)), m_alloc(std::move(alloc)),
      m_options(std::move(options)) {
    std::set<int> packages;
    for (const int cpu : m_alloc.node_cpus) {
        packages.insert(m_alloc.package(cpu));
    }
    m_packages.assign(packages.begin(), packages.end());
    m_job_pkg.assign(m_packages.size(), 0.0);
    m_spread_pkg.assign(m_packages.size(), 0.0);
    m_busy_pkg.assign(m_packages.size(), 0.0);
}

std::optional<Tracker> Tracker::prepare(pid_t pid, TrackerOptions options) {
    auto node = NodeCpu::open(options.proc_root);
    if (!node || !node->read()) {
        return std::nullopt;
    }
    auto alloc = allocation_of(
        pid, options.proc_root, options.sysfs_root, node->cpus(),
        options.env ? options.env : [](const char*) { return std::optional<std::string>{}; });
    auto job = options.job_running ? JobCpu::of_process(options.proc_root, pid)
                                   : JobCpu::track(options.proc_root, pid, options.job_cpu);
    // Where the job's group or tree holds the monitor, its CPU is counted there already.
    const bool inside = job.contains(::getpid()).value_or(false);
    Tracker t{std::move(*node), std::move(job), std::move(alloc), std::move(options)};
    t.m_monitor_inside = inside;
    t.m_awaiting_group = t.m_job.awaits_group();
    return t;
}

// The job's use now. Where a Slurm step's group the job awaited was taken at this reading
// (JobCpu::of_process), what came as a total so far stays apportioned and the group's
// per-CPU readings follow it; the monitor, where that group does not hold it, is added from
// here on, counted from now.
std::optional<JobCpu::Reading> Tracker::read_job(bool last) {
    auto r = last ? m_job.finish() : m_job.read();
    if (m_awaiting_group && !m_job.awaits_group()) {
        m_awaiting_group = false;
        m_monitor_inside = m_job.contains(::getpid()).value_or(false);
        m_monitor_base_s = process_cpu_seconds();
        m_spread_last = 0;
    }
    return r;
}

void Tracker::begin(std::int64_t t_ns) {
    m_node_base = m_node.read().value_or(std::vector<double>{});
    // What the job (a Python process, a Slurm step) used before it is not its figure's.
    m_job_base = read_job(false).value_or(JobCpu::Reading{});
    m_monitor_base_s = process_cpu_seconds();
    m_busy_last.assign(m_node_base.size(), 0.0);
    m_begin_ns = t_ns;
    for (const auto pkg : m_packages) {
        m_records.push_back({t_ns, pkg, 0.0, 0.0});
    }
}

void Tracker::sample(std::int64_t t_ns) {
    record(t_ns, read_job(false));
    // Each listing costs 7-73 us on an H200 (docs/gpu-check.md): at the first sample (the
    // job runs by then: begin() is before its exec, finish() after its reap, when its
    // processes are listed no more), then once a second at the usual 100 ms samples.
    if (m_samples++ % m_gpu_every == 0) {
        record_gpus(t_ns);
    }
}

void Tracker::record_gpus(std::int64_t t_ns) {
    const auto& g = m_options.gpu_processes;
    if (!g.list) {
        return;
    }
    if (m_gpus.size() >= m_options.max_records) {
        // Every other listing in time goes, and listings come half as often from now on.
        std::vector<trace::GpuUseRecord> kept;
        std::size_t time = 0;
        for (std::size_t i = 0; i < m_gpus.size(); ++i) {
            time += i > 0 && m_gpus[i].t_ns != m_gpus[i - 1].t_ns ? 1U : 0U;
            if (time % 2 == 0) {
                kept.push_back(m_gpus[i]);
            }
        }
        m_gpus = std::move(kept);
        m_gpu_every *= 2;
        m_gpus_thinned = true;
    }
    // What /proc said of a PID once holds when it no longer shows it (a process of the job
    // that has just ended, its context not yet gone).
    const InJob in_job = [this](pid_t pid) {
        const auto mine = m_job.contains(pid);
        if (mine) {
            m_seen_pids[pid] = *mine;
            return mine;
        }
        const auto it = m_seen_pids.find(pid);
        return it == m_seen_pids.end() ? std::nullopt : std::optional{it->second};
    };
    for (const int gpu : g.gpus) {
        if (!m_alloc.holds_gpu(gpu)) {
            continue; // split by the allocation alone: not the job's
        }
        if (const auto pids = g.list(gpu)) {
            m_gpus.push_back(count_gpu_use(t_ns, gpu, *pids, in_job));
        } else {
            ++m_failed_gpu_lists;
        }
    }
}

trace::Usage Tracker::finish(std::int64_t t_ns) {
    // Nothing after the end: a sample taken later than it would come after the final
    // reading in time while holding less (the readings are cumulative).
    std::erase_if(m_records, [t_ns](const trace::UsageRecord& r) { return r.t_ns > t_ns; });
    std::erase_if(m_gpus, [t_ns](const trace::GpuUseRecord& r) { return r.t_ns > t_ns; });
    record(t_ns, read_job(true));
    if (m_options.ledger) { // who else held the job's CPUs meanwhile, where jouleprofd knows
        // What the split needs: per package, the sum over the CPUs the job was given of 1 /
        // how many held each (grouped, so that no interleaving of others' CPUs makes the view
        // too long to give; a job counted rather than bound uses only its count of others).
        std::map<int, std::vector<int>> by_package;
        for (const int cpu : m_alloc.given_cpus) {
            by_package[m_alloc.package(cpu)].push_back(cpu);
        }
        daemon::LedgerGroups groups;
        for (auto& [package, cpus] : by_package) {
            groups.push_back(std::move(cpus));
        }
        if (groups.empty()) {
            groups.emplace_back(); // asked grouped all the same (an empty group is no group)
        }
        auto r = m_options.ledger(m_begin_ns, t_ns, groups);
        if (r) {
            m_ledger = std::move(*r);
        } else {
            m_ledger_error = one_line(r.error(), 200);
        }
    }
    return {facts(), std::move(m_records), std::move(m_gpus)};
}

void Tracker::spread(double total_s,
                     const std::vector<double>& weight,
                     const std::vector<double>& given) {
    const double monitor = m_options.monitor_is_job && !m_monitor_inside
                               ? std::max(process_cpu_seconds() - m_monitor_base_s, 0.0)
                               : 0.0;
    const double total = total_s + monitor;
    const double delta = std::max(total - m_spread_last, 0.0);
    m_spread_last = std::max(m_spread_last, total);
    double sum = 0;
    double given_sum = 0;
    for (std::size_t i = 0; i < weight.size(); ++i) {
        sum += weight[i];
        given_sum += given[i];
    }
    for (std::size_t i = 0; i < m_spread_pkg.size(); ++i) {
        const double w = sum > 0 ? weight[i] / sum
                                 : (given_sum > 0 ? given[i] / given_sum
                                                  : 1.0 / static_cast<double>(given.size()));
        m_spread_pkg[i] += delta * w;
    }
}

void Tracker::record(std::int64_t t_ns, const std::optional<JobCpu::Reading>& job) {
    const auto now = m_node.read();
    if (!now || !job) {
        ++m_failed_reads;
        return;
    }
    std::vector<double> since(std::max(now->size(), m_node_base.size()), 0.0);
    for (std::size_t i = 0; i < now->size(); ++i) {
        since[i] = std::max((*now)[i] - at(m_node_base, static_cast<int>(i)), 0.0);
    }
    // Each package's busy time, and its busy time on the CPUs the job may use since
    // the last reading (where the job's time is apportioned when it comes as a total).
    std::vector<double> busy(m_packages.size(), 0.0);
    std::vector<double> weight(m_packages.size(), 0.0);
    std::vector<double> given(m_packages.size(), 0.0);
    const auto index = [&](int cpu) {
        const auto it = std::ranges::find(m_packages, m_alloc.package(cpu));
        return static_cast<std::size_t>(it - m_packages.begin());
    };
    for (const int cpu : m_alloc.node_cpus) {
        if (const auto i = index(cpu); i < busy.size()) {
            busy[i] += at(since, cpu);
        }
    }
    for (const int cpu : m_alloc.given_cpus) {
        if (const auto i = index(cpu); i < busy.size()) {
            weight[i] += std::max(at(since, cpu) - at(m_busy_last, cpu), 0.0);
            given[i] += 1.0;
        }
    }
    // The job's time since begin(): per CPU where its group counts so (v1), else a total
    // apportioned to packages by the busy time on its CPUs; the monitor's own CPU (the
    // cost of measuring the job, when it is not already in the job's process) likewise.
    std::vector<double> per_cpu = job->per_cpu_s;
    for (std::size_t cpu = 0; cpu < per_cpu.size(); ++cpu) {
        per_cpu[cpu] =
            std::max(per_cpu[cpu] - at(m_job_base.per_cpu_s, static_cast<int>(cpu)), 0.0);
    }
    m_per_cpu = m_per_cpu || !per_cpu.empty();
    spread(per_cpu.empty() ? job->total_s - m_job_base.total_s : 0.0, weight, given);
    std::vector<double> job_pkg = m_spread_pkg;
    for (std::size_t cpu = 0; cpu < per_cpu.size(); ++cpu) {
        if (const auto i = index(static_cast<int>(cpu)); i < job_pkg.size()) {
            job_pkg[i] += per_cpu[cpu];
        }
    }
    for (std::size_t i = 0; i < m_job_pkg.size(); ++i) {
        m_job_pkg[i] = std::max(m_job_pkg[i], job_pkg[i]); // never back
    }
    m_busy_last = since;
    for (std::size_t i = 0; i < m_packages.size(); ++i) {
        m_busy_pkg[i] = std::max(m_busy_pkg[i], busy[i]);
        m_records.push_back({t_ns, m_packages[i], m_job_pkg[i], m_busy_pkg[i]});
    }
    if (m_records.size() > m_options.max_records) {
        // Every other reading in time goes (the values are cumulative, so nothing is
        // lost but resolution); the first and the last stay.
        const auto n = m_packages.size();
        const auto times = m_records.size() / n;
        std::vector<trace::UsageRecord> kept;
        kept.reserve(m_records.size() / 2 + n);
        for (std::size_t t = 0; t < times; ++t) {
            if (t % 2 == 0 || t + 1 == times) {
                kept.insert(kept.end(), m_records.begin() + static_cast<std::ptrdiff_t>(t * n),
                            m_records.begin() + static_cast<std::ptrdiff_t>((t + 1) * n));
            }
        }
        m_records = std::move(kept);
    }
}

std::string Tracker::facts() const {
    nlohmann::json j;
    j["version"] = 1;
    j["job"] = m_job.method();
    if (!m_job.slurm_job().empty()) {
        j["slurm_job"] = m_job.slurm_job();
    }
    j["node_cpu"] = m_node.source();
    j["job_per_cpu"] = m_per_cpu;
    j["cpus"] = m_alloc.node_cpus;
    j["given_cpus"] = m_alloc.given_cpus;
    if (m_alloc.cpus_counted) {
        j["cpus_counted"] = *m_alloc.cpus_counted;
    }
    auto packages = nlohmann::json::object();
    for (const auto& [cpu, pkg] : m_alloc.package_of) {
        packages[std::to_string(cpu)] = pkg;
    }
    j["package_of"] = packages;
    j["memory_total"] = m_alloc.memory_total ? nlohmann::json(*m_alloc.memory_total) : nullptr;
    j["memory_given"] = m_alloc.memory_given ? nlohmann::json(*m_alloc.memory_given) : nullptr;
    j["gpus_given"] = m_alloc.gpus_given ? nlohmann::json(*m_alloc.gpus_given) : nullptr;
    j["gpu_source"] = m_alloc.gpu_source;
    auto idle = nlohmann::json::object();
    for (const auto& [name, w] : m_options.idle_watts) {
        idle[name] = w;
    }
    if (!m_options.idle_learned.empty()) {
        auto learned = nlohmann::json::object();
        for (const auto& [name, how] : m_options.idle_learned) {
            learned[name] = how;
        }
        j["idle_learned"] = learned;
    }
    j["idle_w"] = idle;
    if (m_ledger) {
        j["ledger"] = daemon::ledger_json(*m_ledger);
    } else if (!m_ledger_error.empty()) {
        j["ledger_error"] = m_ledger_error;
    }
    auto notes = m_options.notes;
    notes.insert(notes.end(), m_alloc.notes.begin(), m_alloc.notes.end());
    notes.insert(notes.end(), m_job.notes().begin(), m_job.notes().end());
    if (m_failed_reads > 0) {
        notes.push_back(std::to_string(m_failed_reads) +
                        " readings of the CPU time failed and were skipped");
    }
    if (m_gpus_thinned) {
        notes.push_back(fmt::format("the GPUs' processes were listed every {} samples of the "
                                    "CPU time towards the end of this long run (every other "
                                    "listing kept)",
                                    m_gpu_every));
    }
    if (m_failed_gpu_lists > 0) {
        notes.push_back(fmt::format("a GPU's processes could not be listed {} time{}: those "
                                    "listings were skipped",
                                    m_failed_gpu_lists, m_failed_gpu_lists == 1 ? "" : "s"));
    }
    j["notes"] = notes;
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace jp::attrib
