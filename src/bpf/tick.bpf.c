// SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause)
// jouleprof's kernel sampler: on every tick of a software CPU-clock event opened on the CPU
// that owns a set of counters, read those counters (perf events in `counters`) and write
// (time, value) to a ring buffer that user space drains when it likes. Dual-licensed: the
// kernel lets only GPL-compatible programs call bpf_perf_event_read_value(); the rest of
// jouleprof is BSD-3-Clause (THIRD_PARTY.md).
#include "bpf/tick_record.h"

#include <bpf/bpf_helpers.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>

struct {
    __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
    __uint(key_size, sizeof(__u32));
    __uint(value_size, sizeof(__u32));
    __uint(max_entries, JP_BPF_MAX_COUNTERS);
} counters SEC(".maps");

// The CPU each counter is read on (a CPU-wide perf event can be read only there).
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __type(key, __u32);
    __type(value, __s32);
    __uint(max_entries, JP_BPF_MAX_COUNTERS);
} counter_cpu SEC(".maps");

// Samples that found the ring buffer full, per counter: user space reports them as a gap.
// In .bss, which libbpf maps into user space: the drain reads it from memory. A lookup by
// syscall raises the CPU's bpf_prog_active with only migration disabled, and the kernel
// passes over every tick on that CPU while it is raised: for ms, should the drain thread be
// preempted inside the lookup. It must stay a non-static global: libbpf maps only those.
__u64 lost[JP_BPF_MAX_COUNTERS] = {};

struct {
    __uint(type, BPF_MAP_TYPE_RINGBUF);
    __uint(max_entries, 1 << 20); // set before loading (KernelSampler's ring_bytes)
} samples SEC(".maps");

const volatile __u32 n_counters = 0; // set before loading

SEC("perf_event")
int jp_tick(struct bpf_perf_event_data* ctx) {
    (void)ctx;
    const __s32 cpu = (__s32)bpf_get_smp_processor_id();
    for (__u32 i = 0; i < JP_BPF_MAX_COUNTERS; i++) {
        if (i >= n_counters) {
            break;
        }
        __u32 key = i;
        const __s32* owner = bpf_map_lookup_elem(&counter_cpu, &key);
        if (!owner || *owner != cpu) {
            continue;
        }
        struct jp_tick_record* r = bpf_ringbuf_reserve(&samples, sizeof(*r), 0);
        if (!r) {
            __sync_fetch_and_add(&lost[i], 1);
            continue;
        }
        struct bpf_perf_event_value v = {};
        const __u64 before = bpf_ktime_get_ns();
        const long err = bpf_perf_event_read_value(&counters, i, &v, sizeof(v));
        const __u64 after = bpf_ktime_get_ns();
        r->t_ns = before + (after - before) / 2;
        r->call_ns = after - before;
        r->counter = v.counter;
        r->enabled = v.enabled;
        r->running = v.running;
        r->slot = i;
        r->error = (__s32)err;
        bpf_ringbuf_submit(r, 0);
    }
    return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
