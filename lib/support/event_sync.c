/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * event_sync.c -- the period grammar of the synchronous byte events
 * (EVSPEC_BYTES): "MEMALLOC@PERIOD" with PERIOD a whole number of bytes,
 * optionally with a K, M or G suffix (powers of 1024).  Ordinary context.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/event_spec.h"

int
evspec_parse_bytes(const char *text, struct evspec *ev, char *why, size_t whylen)
{
    unsigned long long v, scale = 1;
    char *end;

    errno = 0;
    v = strtoull(text, &end, 10);
    if (*end == 'K' || *end == 'k')
        scale = 1024, end++;
    else if (*end == 'M' || *end == 'm')
        scale = 1024 * 1024, end++;
    else if (*end == 'G' || *end == 'g')
        scale = 1024 * 1024 * 1024, end++;
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0) {
        snprintf(why, whylen, "period '%s' of %s is not a number of bytes (e.g. 524288 or 512K)",
                 text, ev->name);
        return -1;
    }
    if (v == 0 || v > EVSPEC_MAX_PERIOD_BYTES / scale) {
        snprintf(why, whylen, "period %s of %s is out of range: 1 to %llu bytes", text, ev->name,
                 EVSPEC_MAX_PERIOD_BYTES);
        return -1;
    }
    ev->period = v * scale;
    return 0;
}
