// SPDX-License-Identifier: BSD-3-Clause
/* A job written in C that marks its phases through libjouleprof.
 *   c_api_job            under `jouleprof run`: every call must succeed
 *   c_api_job --outside  without a monitor: every call is a no-op returning 1
 * Exits 0 when every return value was as expected, else the failed check's number.
 */
#include <errno.h>
#include <jouleprof/jouleprof.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int check(int number, int got, int want) {
    if (got != want) {
        fprintf(stderr, "c_api_job: check %d: got %d, want %d\n", number, got, want);
        return number;
    }
    return 0;
}

static void sleep_ms(long ms) {
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

int main(int argc, char** argv) {
    char long_name[JP_MARK_NAME_MAX + 2];
    int failed = 0;
    const int outside = argc > 1 && strcmp(argv[1], "--outside") == 0;
    const int ok = outside ? 1 : 0;

    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';

    failed = failed ? failed : check(1, jp_active(), outside ? 0 : 1);
    failed = failed ? failed : check(2, jp_mark_begin("load"), ok);
    sleep_ms(100);
    failed = failed ? failed : check(3, jp_mark_point("loaded 100 rows"), ok);
    failed = failed ? failed : check(4, jp_mark_end("load"), ok);
    failed = failed ? failed : check(5, jp_mark_begin("train"), ok);
    sleep_ms(100);
    failed = failed ? failed : check(6, jp_mark_end("train"), ok);
    if (!outside) {
        failed = failed ? failed : check(7, jp_mark_point(NULL), -EINVAL);
        failed = failed ? failed : check(8, jp_mark_point(""), -EINVAL);
        failed = failed ? failed : check(9, jp_mark_point("two\nlines"), -EINVAL);
        failed = failed ? failed : check(10, jp_mark_point(long_name), -ENAMETOOLONG);
        long_name[JP_MARK_NAME_MAX] = '\0'; /* exactly the limit: fine */
        failed = failed ? failed : check(11, jp_mark_point(long_name), 0);
    }
    return failed;
}
