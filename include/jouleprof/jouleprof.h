/* SPDX-License-Identifier: BSD-3-Clause */
/* jouleprof: mark phases of a job from inside it.
 *
 * Plain C (C89 and later, C++, Python ctypes, Fortran bind(C)); link with
 * -ljouleprof. Each call stamps CLOCK_MONOTONIC when it is made and sends
 * one datagram to the `jouleprof run` monitor, which stores the marker in
 * the trace's `marker` table. Without a monitor every call is a no-op.
 *
 * Return values of jp_mark_*:
 *    0  the marker was sent
 *    1  not running under `jouleprof run`: nothing was done
 *   <0  a negative errno: -EINVAL (NULL or empty name, or one holding a
 *       newline, carriage return or NUL), -ENAMETOOLONG (name longer than
 *       JP_MARK_NAME_MAX bytes): both also outside a run, so a bad name is
 *       found before the job is measured; -ECONNREFUSED (the monitor is gone),
 *       -EAGAIN (the monitor did not take it within 2 s), -ENOMEM, ...
 * Thread-safe and async-signal-unsafe; no call ever throws or aborts.
 * Phases: a begin and the next end of the same name; names may repeat and
 * nest. See docs/markers.md.
 */
#ifndef JOULEPROF_JOULEPROF_H
#define JOULEPROF_JOULEPROF_H

#ifdef __cplusplus
extern "C" {
#endif

#define JP_MARK_NAME_MAX 200 /* bytes */

int jp_mark_begin(const char* name);
int jp_mark_end(const char* name);
int jp_mark_point(const char* name);

/* 1 when running under `jouleprof run` (markers are recorded), else 0. */
int jp_active(void);

#ifdef __cplusplus
}
#endif

#endif /* JOULEPROF_JOULEPROF_H */
