/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * event_spec.c -- parse "NAME[@PERIOD]" event requests for csrun and the
 * monitor's constructor.  Ordinary context: may call snprintf and strtoull.
 */
#include "support/event_spec.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct evspec_known evspec_events[] = {
    {"CPUTIME", "CPU time of each thread; period in microseconds (default 5000, at least 100)"},
    {"REALTIME", "wall-clock time of each thread; period in microseconds (default 5000, at least "
                 "100)"},
    {"MEMALLOC",
     "bytes allocated (malloc, calloc, realloc, aligned, operator new); period in bytes "
     "(default 524288: one sample per 512 KiB on average)"},
    {"MEMLEAK", "bytes allocated and not freed when the profile is written, per allocating "
                "context; period in bytes (default 524288)"},
    {"IO", "bytes read plus written (read/write/pread/pwrite/readv/writev, stdio); period in bytes "
           "(default 524288)"},
    {"IO_READ", "bytes read, as IO; period in bytes (default 524288)"},
    {"IO_WRITE", "bytes written, as IO; period in bytes (default 524288)"},
};
const size_t evspec_nevents = sizeof(evspec_events) / sizeof(evspec_events[0]);

int
evspec_parse(const char *spec, size_t len, struct evspec *ev, char *why, size_t whylen)
{
    const char *at = memchr(spec, '@', len);
    size_t name_len = at ? (size_t)(at - spec) : len;
    char period[32];
    bool known = false;
    char *end;

    if (name_len == 0 || name_len >= sizeof(ev->name)) {
        snprintf(why, whylen, "missing or overlong event name");
        return -1;
    }
    memcpy(ev->name, spec, name_len);
    ev->name[name_len] = '\0';
    for (size_t i = 0; i < evspec_nevents; i++)
        known = known || strcmp(ev->name, evspec_events[i].name) == 0;
    if (!known) {
        snprintf(
            why, whylen,
            "unknown event '%s'; this version samples CPUTIME, REALTIME, MEMALLOC, MEMLEAK, IO, IO_READ and IO_WRITE",
            ev->name);
        return -1;
    }
    ev->period_us = EVSPEC_DEFAULT_PERIOD_US;
    ev->period_bytes = 0;
    if (evspec_is_bytes(ev->name))
        return evspec_parse_bytes(at ? at + 1 : NULL, at ? len - name_len - 1 : 0, ev, why, whylen);
    if (at == NULL)
        return 0;
    len -= name_len + 1;
    if (len == 0 || len >= sizeof(period)) {
        snprintf(why, whylen, "period '%.*s' is not a whole number of microseconds",
                 (int)(len < 64 ? len : 64), at + 1);
        return -1;
    }
    memcpy(period, at + 1, len);
    period[len] = '\0';
    errno = 0;
    ev->period_us = strtoull(period, &end, 10);
    if (period[0] < '0' || period[0] > '9' || *end != '\0' || errno != 0) {
        snprintf(why, whylen, "period '%s' is not a whole number of microseconds", period);
        return -1;
    }
    if (ev->period_us < EVSPEC_MIN_PERIOD_US || ev->period_us > EVSPEC_MAX_PERIOD_US) {
        snprintf(why, whylen,
                 "period %s is out of range: the smallest period csprof can sustain is %llu "
                 "microseconds, the largest %llu",
                 period, EVSPEC_MIN_PERIOD_US, EVSPEC_MAX_PERIOD_US);
        return -1;
    }
    return 0;
}
