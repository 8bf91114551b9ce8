// SPDX-License-Identifier: BSD-3-Clause
// The kernel sampler with libbpf: the skeleton bpftool made from tick.bpf.c at build time.
#include "bpf/kernel_sampler.hpp"

#include "bpf/tick_record.h"
#include "bpf/tick_skel.h"
#include "sys/fd.hpp"

#include <algorithm>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <fmt/format.h>
#include <mutex>
#include <sys/resource.h>
#include <unistd.h>

namespace jp::bpf {
namespace {

// libbpf's own messages would go to stderr; a refusal reaches the user as one line from
// start() instead.
int quiet(enum libbpf_print_level /*level*/, const char* /*format*/, va_list /*args*/) {
    return 0;
}

std::string refused(std::string_view what, int err) {
    std::string_view hint;
    if (err == EPERM || err == EACCES) {
        // Root without the capabilities: a container's or a systemd unit's bounding set, or
        // a seccomp filter (SystemCallFilter) that refuses bpf() or perf_event_open().
        hint = ::geteuid() == 0
                   ? " (the kernel sampler needs CAP_BPF and CAP_PERFMON, and the bpf and "
                     "perf_event_open system calls: this root process lacks one of them; see "
                     "its capability bounding set and seccomp filter)"
                   : " (the kernel sampler needs CAP_BPF and CAP_PERFMON: run as root or "
                     "through jouleprofd)";
    }
    return fmt::format("eBPF {}: {}{}", what, std::strerror(err), hint);
}

int on_record(void* ctx, void* data, std::size_t size) noexcept {
    if (size < sizeof(jp_tick_record)) {
        return 0;
    }
    jp_tick_record r{};
    std::memcpy(&r, data, sizeof r);
    auto* out = static_cast<std::vector<Reading>*>(ctx);
    try { // libbpf is C: nothing may unwind through it
        out->push_back(Reading{r.slot, static_cast<std::int64_t>(r.t_ns),
                               static_cast<std::int64_t>(r.call_ns), r.counter, r.error});
    } catch (const std::bad_alloc&) {
        return -ENOMEM; // stops this drain (this record is gone); the rest wait for the next
    }
    return 0;
}

// Where the kernel charges BPF maps to RLIMIT_MEMLOCK (before 5.11), the limit is raised
// while the program loads and put back at once, so the job jouleprof starts does not
// inherit it. libbpf raises it too, but once a process (Debian 12's libbpf does not export
// libbpf_set_memlock_rlim to turn that off): its raise falls inside this one and is undone
// with it, and a second sampler gets this raise again.
class MemlockRaised {
public:
    MemlockRaised() : m_saved(::getrlimit(RLIMIT_MEMLOCK, &m_old) == 0) {
        if (m_saved && m_old.rlim_cur != RLIM_INFINITY) {
            const rlimit all{RLIM_INFINITY, RLIM_INFINITY};
            const rlimit most{m_old.rlim_max, m_old.rlim_max};
            if (::setrlimit(RLIMIT_MEMLOCK, &all) != 0) {
                (void)::setrlimit(RLIMIT_MEMLOCK, &most); // no CAP_SYS_RESOURCE
            }
        }
    }
    // The limit while raised, where it is not infinite (0: infinite or unknown).
    [[nodiscard]] static std::uint64_t limit() noexcept {
        rlimit now{};
        return ::getrlimit(RLIMIT_MEMLOCK, &now) == 0 && now.rlim_cur != RLIM_INFINITY
                   ? static_cast<std::uint64_t>(now.rlim_cur)
                   : 0;
    }
    MemlockRaised(const MemlockRaised&) = delete;
    MemlockRaised& operator=(const MemlockRaised&) = delete;
    MemlockRaised(MemlockRaised&&) = delete;
    MemlockRaised& operator=(MemlockRaised&&) = delete;
    ~MemlockRaised() {
        if (m_saved) {
            (void)::setrlimit(RLIMIT_MEMLOCK, &m_old);
        }
    }

private:
    rlimit m_old{};
    bool m_saved;
};

// Whether bytes is a size the kernel takes for a ring buffer: a power of two, whole pages.
bool ring_size_ok(std::size_t bytes) noexcept {
    return bytes >= smallest_ring() && bytes <= k_ring_most && (bytes & (bytes - 1)) == 0;
}

// What is wrong with start()'s arguments, in one line (empty: nothing).
std::string refusal_of(std::span<const CounterSpec> counters, const Options& options) {
    constexpr auto k_most = static_cast<std::size_t>(JP_BPF_MAX_COUNTERS);
    if (counters.empty() || counters.size() > k_most) {
        return fmt::format("the kernel sampler takes 1 to {} counters, not {}", k_most,
                           counters.size());
    }
    if (options.period_ns <= 0) {
        return "the kernel sampler's period must be longer than 0";
    }
    if (options.ring_bytes != 0 && !ring_size_ok(options.ring_bytes)) {
        return fmt::format("a ring buffer of {} bytes: the kernel takes a power of two from {} "
                           "bytes to {} MiB",
                           options.ring_bytes, smallest_ring(), k_ring_most >> 20U);
    }
    return {};
}

} // namespace

struct KernelSampler::State {
    State() = default;
    State(const State&) = delete;
    State& operator=(const State&) = delete;
    State(State&&) = delete;
    State& operator=(State&&) = delete;
    ~State() {
        detach();
        ring_buffer__free(ring);
        jp_tick_destroy(skel);
    }

    // Stops every tick (libbpf closes each tick's perf event with its link).
    void detach() noexcept {
        for (auto* link : links) {
            bpf_link__destroy(link);
        }
        links.clear();
    }

    // One CPU-clock sampling event per CPU, each running the program at every period.
    std::expected<void, std::string> attach(std::int64_t period) {
        for (const int cpu : cpus) {
            const int fd = open_tick_event(cpu, period);
            if (fd < 0) {
                const int err = errno;
                detach();
                return std::unexpected(
                    refused(fmt::format("tick on cpu {} (perf_event_open)", cpu), err));
            }
            auto* link = bpf_program__attach_perf_event(jp_tick_program(skel), fd);
            if (link == nullptr) {
                const int err = errno;
                ::close(fd);
                detach();
                return std::unexpected(
                    refused(fmt::format("attaching the sampler on cpu {}", cpu), err));
            }
            links.push_back(link);
        }
        period_ns = period;
        return {};
    }

    jp_tick* skel = nullptr;
    ring_buffer* ring = nullptr;
    sys::UniqueFd stats_fd;    // the kernel counts runs while it is open
    std::vector<Reading> sink; // on_record's, during a drain
    std::vector<int> cpus;     // each CPU that owns a counter, once
    std::vector<bpf_link*> links;
    std::vector<std::uint64_t> lost_seen; // per counter, at the last drain
    std::int64_t period_ns = 0;
    std::size_t ring_size = 0;
};

bool built_in() noexcept {
    return true;
}

KernelSampler::KernelSampler(std::unique_ptr<State> state) : m_state(std::move(state)) {}

KernelSampler::~KernelSampler() = default;

std::expected<std::unique_ptr<KernelSampler>, std::string>
KernelSampler::start(std::span<const CounterSpec> counters, const Options& options) {
    if (auto bad = refusal_of(counters, options); !bad.empty()) {
        return std::unexpected(std::move(bad));
    }
    static std::once_flag quiet_once;
    std::call_once(quiet_once, [] { libbpf_set_print(quiet); });

    auto st = std::make_unique<State>();
    st->skel = jp_tick_open();
    if (st->skel == nullptr) {
        return std::unexpected(refused("opening the sampler program", errno));
    }
    constexpr std::int64_t k_second = 1'000'000'000;
    st->ring_size = options.ring_bytes != 0
                        ? options.ring_bytes
                        : ring_bytes_for(counters.size(), options.period_ns, k_second);
    jp_tick_set_counters(st->skel, static_cast<unsigned>(counters.size()));
    if (const int rc = bpf_map__set_max_entries(jp_tick_map(st->skel, jp_tick_samples),
                                                static_cast<std::uint32_t>(st->ring_size));
        rc != 0) {
        return std::unexpected(
            refused(fmt::format("a ring buffer of {} bytes", st->ring_size), -rc));
    }
    std::uint64_t memlock = 0; // the limit the load ran under, where finite
    const int loaded = [&] {
        const MemlockRaised raised; // the limit is checked only as the maps are made
        memlock = MemlockRaised::limit();
        return jp_tick_load(st->skel);
    }();
    if (loaded == -EPERM && memlock != 0 && memlock < st->ring_size * 2) {
        // Before Linux 5.11 the maps are charged to the limit, and EPERM says so.
        return std::unexpected(fmt::format(
            "eBPF loading the sampler program (bpf): {} (RLIMIT_MEMLOCK is {} bytes; kernels "
            "before 5.11 charge the {}-byte ring to it: raise it, e.g. LimitMEMLOCK=infinity "
            "in jouleprofd's unit, or check CAP_BPF and CAP_PERFMON)",
            std::strerror(EPERM), memlock, st->ring_size));
    }
    if (loaded != 0) {
        return std::unexpected(refused("loading the sampler program (bpf)", -loaded));
    }
    if (jp_tick_counts_mapped(st->skel) == 0) { // a build that lost the program's .bss
        return std::unexpected(
            std::string{"eBPF: the sampler program's lost-reading counts are not mapped into "
                        "this process (a build without BTF?)"});
    }
    for (std::uint32_t i = 0; i < counters.size(); ++i) {
        const std::int32_t fd = counters[i].fd;
        const std::int32_t cpu = counters[i].cpu;
        if (bpf_map__update_elem(jp_tick_map(st->skel, jp_tick_counters), &i, sizeof i, &fd,
                                 sizeof fd, BPF_ANY) != 0 ||
            bpf_map__update_elem(jp_tick_map(st->skel, jp_tick_counter_cpu), &i, sizeof i, &cpu,
                                 sizeof cpu, BPF_ANY) != 0) {
            return std::unexpected(refused(
                fmt::format("handing counter {} (fd {}, cpu {}) to the program", i, fd, cpu),
                errno));
        }
        if (std::ranges::find(st->cpus, cpu) == st->cpus.end()) {
            st->cpus.push_back(cpu);
        }
    }
    st->lost_seen.assign(counters.size(), 0);
    if (options.count_runs) {
        st->stats_fd.reset(bpf_enable_stats(BPF_STATS_RUN_TIME));
        if (!st->stats_fd) {
            return std::unexpected(
                refused("counting the program's runs (BPF_ENABLE_STATS)", errno));
        }
    }
    st->ring = ring_buffer__new(bpf_map__fd(jp_tick_map(st->skel, jp_tick_samples)), on_record,
                                &st->sink, nullptr);
    if (st->ring == nullptr) {
        return std::unexpected(refused("opening the ring buffer", errno));
    }
    if (auto r = st->attach(options.period_ns); !r) {
        return std::unexpected(r.error());
    }
    return std::unique_ptr<KernelSampler>{new KernelSampler{std::move(st)}};
}

std::expected<void, std::string> KernelSampler::set_period(std::int64_t period_ns) {
    if (period_ns <= 0) {
        return std::unexpected(std::string{"the kernel sampler's period must be longer than 0"});
    }
    m_state->detach();
    return m_state->attach(period_ns);
}

void KernelSampler::stop() noexcept {
    m_state->detach();
}

void KernelSampler::drain(std::vector<Reading>& out, std::vector<std::uint64_t>& lost_out) {
    auto& st = *m_state;
    st.sink.clear();
    (void)ring_buffer__consume(st.ring);
    out.insert(out.end(), st.sink.begin(), st.sink.end());
    lost_out.assign(st.lost_seen.size(), 0);
    for (std::uint32_t i = 0; i < st.lost_seen.size(); ++i) {
        // From memory: a map lookup by syscall could hold off this CPU's ticks while it runs.
        const std::uint64_t n = jp_tick_lost(st.skel, i);
        if (n > st.lost_seen[i]) {
            lost_out[i] = n - st.lost_seen[i];
            st.lost_seen[i] = n;
        }
    }
}

std::int64_t KernelSampler::period_ns() const noexcept {
    return m_state->period_ns;
}

std::size_t KernelSampler::ring_bytes() const noexcept {
    return m_state->ring_size;
}

ProgramStats KernelSampler::stats() const {
    bpf_prog_info info{};
    std::uint32_t len = sizeof info;
    if (bpf_obj_get_info_by_fd(bpf_program__fd(jp_tick_program(m_state->skel)), &info, &len) != 0) {
        return {};
    }
    return {info.run_time_ns, info.run_cnt};
}

} // namespace jp::bpf
