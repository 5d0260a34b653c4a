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
    {"CPUTIME", EVSPEC_CPUTIME,
     "CPU time of each thread; period in microseconds (default 5000, at least 100)"},
    {"REALTIME", EVSPEC_REALTIME,
     "wall-clock time of each thread; period in microseconds (default 5000, at least 100)"},
    {"MEMALLOC", EVSPEC_BYTES,
     "bytes allocated (malloc, calloc, realloc, aligned, operator new); period in bytes "
     "(default 524288: one sample per 512 KiB on average)"},
    {"MEMLEAK", EVSPEC_BYTES,
     "bytes allocated and not freed when the profile is written, per allocating context; "
     "period in bytes (default 524288)"},
    {"IO", EVSPEC_BYTES,
     "bytes read plus written (read/write/pread/pwrite/readv/writev, stdio); period in bytes "
     "(default 524288)"},
    {"IO_READ", EVSPEC_BYTES, "bytes read, as IO; period in bytes (default 524288)"},
    {"IO_WRITE", EVSPEC_BYTES, "bytes written, as IO; period in bytes (default 524288)"},
};
const size_t evspec_nevents = sizeof(evspec_events) / sizeof(evspec_events[0]);

const struct evspec_preset evspec_presets[EVSPEC_NPRESETS] = {
    {"PAPI_TOT_CYC", "core cycles while the thread runs (unhalted)"},
    {"PAPI_TOT_INS", "instructions retired"},
    {"PAPI_L1_DCM", "level-1 data cache misses (lines brought into L1D)"},
    {"PAPI_L1_ICM", "level-1 instruction cache misses"},
    {"PAPI_L2_TCM", "level-2 cache misses, data and instructions"},
    {"PAPI_L3_TCM", "last-level (L3) cache misses"},
    {"PAPI_TLB_DM", "data TLB misses that needed a page walk"},
    {"PAPI_BR_INS", "branch instructions retired"},
    {"PAPI_BR_MSP", "branch instructions mispredicted"},
    {"PAPI_FP_OPS", "floating-point arithmetic instructions retired (a packed one counts once)"},
    {"PAPI_VEC_INS", "packed (vector) floating-point instructions retired"},
    {"PAPI_STL_ICY", "cycles in which no instruction (micro-op) was issued"},
};

int
evspec_preset_index(const char *name)
{
    for (int i = 0; i < EVSPEC_NPRESETS; i++)
        if (strcmp(name, evspec_presets[i].name) == 0)
            return i;
    return -1;
}

/* @a and @b equal but for the case of ASCII letters (no locale: the monitor's constructor
 * calls this too). */
static bool
same_name_any_case(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++) {
        char x = *a >= 'a' && *a <= 'z' ? (char)(*a - 'a' + 'A') : *a;
        char y = *b >= 'a' && *b <= 'z' ? (char)(*b - 'a' + 'A') : *b;

        if (x != y)
            return false;
    }
    return *a == *b;
}

/*
 * csprof's own event names and the PAPI presets are taken in any case ("cputime",
 * "papi_tot_cyc") and written as they are spelled (CPUTIME): @name is rewritten.  libpfm4's
 * names are left to libpfm4.
 */
static void
canonical_name(char *name)
{
    for (size_t i = 0; i < evspec_nevents; i++)
        if (same_name_any_case(name, evspec_events[i].name)) {
            strcpy(name, evspec_events[i].name); /* same length */
            return;
        }
    for (int i = 0; i < EVSPEC_NPRESETS; i++)
        if (same_name_any_case(name, evspec_presets[i].name)) {
            strcpy(name, evspec_presets[i].name);
            return;
        }
}

/* Parse the decimal number @text (all of it) into *v; false if it is not one. */
static bool
parse_number(const char *text, unsigned long long *v)
{
    char *end;

    if (text[0] < '0' || text[0] > '9')
        return false;
    errno = 0;
    *v = strtoull(text, &end, 10);
    return *end == '\0' && errno == 0;
}

/* The period of a time event: microseconds, in range. */
static int
parse_time_period(const char *period, struct evspec *ev, char *why, size_t whylen)
{
    if (!parse_number(period, &ev->period)) {
        snprintf(why, whylen, "period '%s' is not a whole number of microseconds", period);
        return -1;
    }
    if (ev->period < EVSPEC_MIN_PERIOD_US || ev->period > EVSPEC_MAX_PERIOD_US) {
        snprintf(why, whylen,
                 "period %s is out of range: the smallest period csprof can sustain is %llu "
                 "microseconds, the largest %llu",
                 period, EVSPEC_MIN_PERIOD_US, EVSPEC_MAX_PERIOD_US);
        return -1;
    }
    return 0;
}

/* The period of a perf event: a count of events, or "fFREQ" in Hz. */
static int
parse_perf_period(const char *period, struct evspec *ev, char *why, size_t whylen)
{
    ev->freq = period[0] == 'f';
    if (!parse_number(period + ev->freq, &ev->period) || ev->period == 0) {
        snprintf(why, whylen,
                 "period '%s' of %s is neither a number of events (1 or more) nor fFREQ, "
                 "samples per second",
                 period, ev->name);
        return -1;
    }
    if (ev->freq && ev->period > EVSPEC_MAX_FREQ_HZ) {
        snprintf(why, whylen,
                 "frequency %s is out of range: the highest frequency csprof can sustain is "
                 "f%llu (one sample per %llu microseconds)",
                 period, EVSPEC_MAX_FREQ_HZ, EVSPEC_MIN_PERIOD_US);
        return -1;
    }
    return 0;
}

int
evspec_parse(const char *spec, size_t len, struct evspec *ev, char *why, size_t whylen)
{
    const char *at = memchr(spec, '@', len);
    size_t name_len = at ? (size_t)(at - spec) : len;
    char period[32];
    bool named = false;

    memset(ev, 0, sizeof(*ev));
    if (name_len == 0 || name_len >= sizeof(ev->name)) {
        snprintf(why, whylen, "missing or overlong event name (at most %zu bytes)",
                 sizeof(ev->name) - 1);
        return -1;
    }
    memcpy(ev->name, spec, name_len);
    ev->name[name_len] = '\0';
    canonical_name(ev->name);
    for (size_t i = 0; i < evspec_nevents && !named; i++)
        if (strcmp(ev->name, evspec_events[i].name) == 0) {
            named = true;
            ev->kind = evspec_events[i].kind;
        }
    if (!named) {
        /* A PAPI preset, or a libpfm4 name: pmu.h decides whether it exists here. */
        if (strncmp(ev->name, "PAPI_", 5) == 0 && evspec_preset_index(ev->name) < 0) {
            snprintf(why, whylen, "unknown PAPI preset '%s'; csprof knows %s ... %s", ev->name,
                     evspec_presets[0].name, evspec_presets[EVSPEC_NPRESETS - 1].name);
            return -1;
        }
        if (strspn(ev->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:=-"
                             ".") != name_len) {
            snprintf(why, whylen,
                     "unknown event '%s' (not CPUTIME, REALTIME, MEMALLOC, MEMLEAK, IO, "
                     "IO_READ, IO_WRITE, a PAPI preset or a libpfm4 event name)",
                     ev->name);
            return -1;
        }
        ev->kind = EVSPEC_PERF;
        ev->preset = evspec_preset_index(ev->name) >= 0;
    }
    if (at == NULL) {
        ev->freq = ev->kind == EVSPEC_PERF;
        ev->period = ev->kind == EVSPEC_PERF    ? EVSPEC_DEFAULT_FREQ_HZ
                     : ev->kind == EVSPEC_BYTES ? EVSPEC_DEFAULT_PERIOD_BYTES
                                                : EVSPEC_DEFAULT_PERIOD_US;
        return 0;
    }
    len -= name_len + 1;
    if (len == 0 || len >= sizeof(period)) {
        snprintf(why, whylen, "period '%.*s' of %s is empty or too long",
                 (int)(len < 64 ? len : 64), at + 1, ev->name);
        return -1;
    }
    memcpy(period, at + 1, len);
    period[len] = '\0';
    if (ev->kind == EVSPEC_PERF)
        return parse_perf_period(period, ev, why, whylen);
    if (ev->kind == EVSPEC_BYTES)
        return evspec_parse_bytes(period, ev, why, whylen);
    return parse_time_period(period, ev, why, whylen);
}

int
evspec_format(const struct evspec *ev, char *out, size_t size)
{
    int n = snprintf(out, size, "%s@%s%llu", ev->name, ev->freq ? "f" : "", ev->period);

    return n < 0 || (size_t)n >= size ? -1 : n;
}
