/* SPDX-License-Identifier: BSD-3-Clause */
/* The libbpf skeleton of tick.bpf.c (made by bpftool at build time) behind tick_skel.h. */
#include "bpf/tick_skel.h"

#include "tick.skel.h"

struct jp_tick* jp_tick_open(void) {
    return jp_tick__open();
}

void jp_tick_set_counters(struct jp_tick* skel, unsigned n) {
    skel->rodata->n_counters = n;
}

int jp_tick_load(struct jp_tick* skel) {
    return jp_tick__load(skel);
}

void jp_tick_destroy(struct jp_tick* skel) {
    jp_tick__destroy(skel);
}

struct bpf_map* jp_tick_map(struct jp_tick* skel, enum jp_tick_map which) {
    switch (which) {
    case jp_tick_counters:
        return skel->maps.counters;
    case jp_tick_counter_cpu:
        return skel->maps.counter_cpu;
    case jp_tick_samples:
        return skel->maps.samples;
    }
    return 0;
}

struct bpf_program* jp_tick_program(struct jp_tick* skel) {
    return skel->progs.jp_tick;
}

int jp_tick_counts_mapped(const struct jp_tick* skel) {
    return skel->bss != 0;
}

unsigned long long jp_tick_lost(const struct jp_tick* skel, unsigned i) {
    if (skel->bss == 0 || i >= sizeof skel->bss->lost / sizeof skel->bss->lost[0]) {
        return 0;
    }
    return __atomic_load_n(&skel->bss->lost[i], __ATOMIC_RELAXED);
}
