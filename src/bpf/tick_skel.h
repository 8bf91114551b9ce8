/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel sampler's program as the C++ loader sees it: the libbpf skeleton bpftool makes
 * from tick.bpf.c at build time is libbpf's code and stays in tick_skel.c (C, not linted);
 * these are its parts the loader uses. */
#ifndef JP_BPF_TICK_SKEL_H
#define JP_BPF_TICK_SKEL_H

#ifdef __cplusplus
extern "C" {
#endif

struct jp_tick;
struct bpf_map;
struct bpf_program;

enum jp_tick_map { jp_tick_counters, jp_tick_counter_cpu, jp_tick_samples };

/* NULL with errno set on failure. */
struct jp_tick* jp_tick_open(void);
/* Before jp_tick_load: how many counters the program reads. */
void jp_tick_set_counters(struct jp_tick* skel, unsigned n);
/* 0, or a negative errno. */
int jp_tick_load(struct jp_tick* skel);
void jp_tick_destroy(struct jp_tick* skel);
struct bpf_map* jp_tick_map(struct jp_tick* skel, enum jp_tick_map which);
struct bpf_program* jp_tick_program(struct jp_tick* skel);
/* After jp_tick_load: whether the program's .bss (its lost counts) is mapped into this
 * process; libbpf maps it for a non-static global with BTF, and fails the load if it cannot. */
int jp_tick_counts_mapped(const struct jp_tick* skel);
/* After jp_tick_load: the readings of counter i that found the ring full so far, read from
 * the program's memory as mapped into this process (no syscall); 0 where it is not mapped. */
unsigned long long jp_tick_lost(const struct jp_tick* skel, unsigned i);

#ifdef __cplusplus
}
#endif

#endif
