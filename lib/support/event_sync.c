/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * event_sync.c -- the period grammar of the synchronous events (bytes):
 * "MEMALLOC@PERIOD" with PERIOD a whole number of bytes, optionally with a
 * K, M or G suffix (powers of 1024).  Ordinary context.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/event_spec.h"

int
evspec_is_bytes(const char *name)
{
    static const char *const names[] = {"MEMALLOC", "MEMLEAK", "IO", "IO_READ", "IO_WRITE"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

int
evspec_parse_bytes(const char *text, size_t len, struct evspec *ev, char *why, size_t whylen)
{
    char period[32];
    unsigned long long v, scale = 1;
    char *end;

    ev->period_us = 0;
    ev->period_bytes = EVSPEC_DEFAULT_PERIOD_BYTES;
    if (text == NULL)
        return 0;
    if (len == 0 || len >= sizeof(period)) {
        snprintf(why, whylen, "period '%.*s' of %s is not a number of bytes",
                 (int)(len < 64 ? len : 64), text, ev->name);
        return -1;
    }
    memcpy(period, text, len);
    period[len] = '\0';
    errno = 0;
    v = strtoull(period, &end, 10);
    if (*end == 'K' || *end == 'k')
        scale = 1024, end++;
    else if (*end == 'M' || *end == 'm')
        scale = 1024 * 1024, end++;
    else if (*end == 'G' || *end == 'g')
        scale = 1024 * 1024 * 1024, end++;
    if (period[0] < '0' || period[0] > '9' || *end != '\0' || errno != 0) {
        snprintf(why, whylen, "period '%s' of %s is not a number of bytes (e.g. 524288 or 512K)",
                 period, ev->name);
        return -1;
    }
    if (v == 0 || v > EVSPEC_MAX_PERIOD_BYTES / scale) {
        snprintf(why, whylen, "period %s of %s is out of range: 1 to %llu bytes", period, ev->name,
                 EVSPEC_MAX_PERIOD_BYTES);
        return -1;
    }
    ev->period_bytes = v * scale;
    return 0;
}
