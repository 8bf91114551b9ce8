/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-3-Clause) */
/* One reading of one counter, as the kernel sampler (tick.bpf.c) writes it to its ring
 * buffer; shared by the BPF program (C) and its loader (C++). */
#ifndef JP_BPF_TICK_RECORD_H
#define JP_BPF_TICK_RECORD_H

#include <linux/types.h>

enum { JP_BPF_MAX_COUNTERS = 64 }; /* the counters one sampler reads, at most */

struct jp_tick_record {
    __u64 t_ns;    /* CLOCK_MONOTONIC, the middle of the read */
    __u64 call_ns; /* how long the read took */
    __u64 counter; /* the perf event's count */
    __u64 enabled; /* its time enabled and running, ns (running < enabled: multiplexed) */
    __u64 running;
    __u32 slot;  /* the counter's index in the loader's list */
    __s32 error; /* bpf_perf_event_read_value's result: 0, or -errno (counter left 0) */
};

#endif
