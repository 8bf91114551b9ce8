// SPDX-License-Identifier: BSD-3-Clause
/*
 * A plug-in for OpenIPMI's ipmi_sim (loadlib "jp_power_mod.so" "profile=PATH"):
 * answers DCMI Get DCMI Capability Info (0x2C/0x01), DCMI Get Power Reading
 * (0x2C/0x02: the current reading is the mean of the last 1 s, as BMCs
 * average) and the Lenovo XCC energy command (0x3A/0x32, the 16-byte SD650
 * form Slurm's acct_gather_energy/xcc reads) from a scripted power profile.
 *
 * The profile file is read on every request:
 *     start <CLOCK_REALTIME seconds, fractions allowed>
 *     <seconds after start> <watts>      (steps, in increasing time order)
 * Power is 0 W before start and before the first step. Energy is the exact
 * integral of the steps from start to now, so a test knows the truth; DCMI
 * reports the mean of the last second of that power, as BMCs average.
 * Test code only: built against OpenIPMI's headers, linked against nothing.
 */
#include <OpenIPMI/mcserv.h>
#include <OpenIPMI/serv.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_STEPS 256

struct profile {
    double start;
    int count;
    double at[MAX_STEPS];
    double watts[MAX_STEPS];
};

static char profile_path[1024];

static int read_profile(struct profile *p)
{
    FILE *f = fopen(profile_path, "r");
    char line[256];
    p->start = 0;
    p->count = 0;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        double a, w;
        if (sscanf(line, "start %lf", &a) == 1)
            p->start = a;
        else if (sscanf(line, "%lf %lf", &a, &w) == 2 && p->count < MAX_STEPS) {
            p->at[p->count] = a;
            p->watts[p->count] = w;
            p->count++;
        }
    }
    fclose(f);
    return 0;
}

static double now_realtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Joules from start to t seconds after start. */
static double energy_until(const struct profile *p, double t)
{
    double e = 0;
    int i;
    for (i = 0; i < p->count && p->at[i] < t; i++) {
        double from = p->at[i] < 0 ? 0 : p->at[i];
        double to = (i + 1 < p->count && p->at[i + 1] < t) ? p->at[i + 1] : t;
        if (to > from)
            e += p->watts[i] * (to - from);
    }
    return e;
}

/* No libm: ipmi_sim does not load it. */
static unsigned round_u(double x)
{
    return x <= 0 ? 0u : (unsigned)(x + 0.5);
}

static void put16(unsigned char *b, unsigned v)
{
    b[0] = v & 0xff;
    b[1] = (v >> 8) & 0xff;
}

static void put32(unsigned char *b, uint32_t v)
{
    put16(b, v & 0xffff);
    put16(b + 2, v >> 16);
}

static void power_reading(unsigned char *rdata, unsigned int *rdata_len)
{
    struct profile p;
    double now = now_realtime(), t, w, lo = 1e9, hi = 0, avg;
    int i;
    if (read_profile(&p) != 0) {
        rdata[0] = 0xd5; /* command not supported in present state */
        *rdata_len = 1;
        return;
    }
    t = now - p.start;
    /* Like a BMC, the current reading is the mean over the last reporting
     * period (1 s), not the instantaneous power. */
    w = t > 0 ? energy_until(&p, t) - energy_until(&p, t - 1.0) : 0;
    for (i = 0; i < p.count && p.at[i] <= t; i++) {
        lo = p.watts[i] < lo ? p.watts[i] : lo;
        hi = p.watts[i] > hi ? p.watts[i] : hi;
    }
    if (hi == 0)
        lo = 0;
    avg = t > 0 ? energy_until(&p, t) / t : 0;
    rdata[0] = 0;
    rdata[1] = 0xdc;
    put16(rdata + 2, round_u(w));
    put16(rdata + 4, round_u(lo));
    put16(rdata + 6, round_u(hi));
    put16(rdata + 8, round_u(avg));
    put32(rdata + 10, (uint32_t)now);
    put32(rdata + 14, 1000); /* statistics reporting period, ms */
    rdata[18] = 0x40;        /* power measurement active */
    *rdata_len = 19;
}

static void dcmi_handler(lmc_data_t *mc, msg_t *msg, unsigned char *rdata,
                         unsigned int *rdata_len, void *cb_data)
{
    (void)mc;
    (void)cb_data;
    if (msg->cmd == 0x02 && msg->len >= 4) {
        power_reading(rdata, rdata_len);
    } else if (msg->cmd == 0x01 && msg->len >= 2) {
        static const unsigned char caps[] = {0x00, 0xdc, 0x01, 0x05, 0x02,
                                             0x00, 0x01, 0x00};
        memcpy(rdata, caps, sizeof caps);
        *rdata_len = sizeof caps;
    } else {
        rdata[0] = 0xc1; /* invalid command */
        rdata[1] = 0xdc;
        *rdata_len = 2;
    }
}

static void xcc_energy_handler(lmc_data_t *mc, msg_t *msg, unsigned char *rdata,
                               unsigned int *rdata_len, void *cb_data)
{
    struct profile p;
    double now = now_realtime(), e;
    uint64_t mj;
    (void)mc;
    (void)msg;
    (void)cb_data;
    if (read_profile(&p) != 0) {
        rdata[0] = 0xd5;
        *rdata_len = 1;
        return;
    }
    e = energy_until(&p, now - p.start);
    mj = (uint64_t)(e * 1000.0); /* e >= 0: truncation is floor */
    rdata[0] = 0;
    put16(rdata + 1, 0);                            /* FIFO index */
    put32(rdata + 3, (uint32_t)(mj / 1000));        /* joules */
    put16(rdata + 7, (unsigned)(mj % 1000));        /* millijoules */
    put32(rdata + 9, (uint32_t)now);                /* seconds */
    put16(rdata + 13, (unsigned)((now - (double)(uint32_t)now) * 1000.0)); /* milliseconds */
    *rdata_len = 15;
}

int ipmi_sim_module_init(sys_data_t *sys, const char *options)
{
    const char *p = options ? strstr(options, "profile=") : NULL;
    (void)sys;
    if (!p)
        return 22; /* EINVAL */
    snprintf(profile_path, sizeof profile_path, "%s", p + strlen("profile="));
    profile_path[strcspn(profile_path, " ")] = 0;
    ipmi_emu_register_group_extension_handler(0xdc, dcmi_handler, NULL);
    return ipmi_emu_register_cmd_handler(0x3a, 0x32, xcc_energy_handler, NULL);
}
