/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * event_spec.h -- the grammar of an event request, "NAME[@PERIOD]".
 *
 * One parser shared by csrun (which checks -e before the program runs) and
 * the monitor's constructor (which reads the same text from CSPROF_EVENTS),
 * so the two can never disagree on what is accepted.  Ordinary context.
 */
#ifndef CSP_EVENT_SPEC_H
#define CSP_EVENT_SPEC_H

#include <stddef.h>

/* Period used when a request names no period, in microseconds. */
#define EVSPEC_DEFAULT_PERIOD_US 5000ull

/*
 * Shortest period accepted, in microseconds.  One sample costs tens of
 * microseconds of the sampled thread's own time (a stack walk and a CCT
 * insertion; about 60-80 µs on a loaded 2-core VM), and both the perf
 * task-clock and the real-time timer count that time: below about 50 µs
 * the next signal is due before the handler returns and the program stops
 * making progress (README.md "Sampling periods" has the measurements).
 * 100 µs keeps a factor of two from that point.
 */
#define EVSPEC_MIN_PERIOD_US 100ull

/* Longest period accepted, in microseconds (one minute). */
#define EVSPEC_MAX_PERIOD_US 60000000ull

/* Synchronous events (MEMALLOC, MEMLEAK, IO, IO_READ, IO_WRITE): PERIOD is a number of bytes,
 * the mean distance between samples (event_sync.c). */
#define EVSPEC_DEFAULT_PERIOD_BYTES (512ull * 1024)
#define EVSPEC_MAX_PERIOD_BYTES     (1ull << 40)

/* A parsed request. */
struct evspec {
    char name[32];                   /* "CPUTIME", "REALTIME", "MEMALLOC"... */
    unsigned long long period_us;    /* EVSPEC_MIN_PERIOD_US .. EVSPEC_MAX_PERIOD_US; 0 for bytes */
    unsigned long long period_bytes; /* synchronous events: 1 .. EVSPEC_MAX_PERIOD_BYTES, else 0 */
};

/*
 * Whether @name is a synchronous event, whose period is in bytes (event_sync.c).
 * [async-signal-safe]
 */
int evspec_is_bytes(const char *name);

/*
 * The period of a synchronous event: @text (@len bytes, no NUL needed, NULL for none) into
 * ev->period_bytes.  Returns 0, or -1 with a one-line reason in @why.  [not async-signal-safe]
 */
int evspec_parse_bytes(const char *text, size_t len, struct evspec *ev, char *why, size_t whylen);

/* The events this version can sample, with a one-line description each. */
struct evspec_known {
    const char *name;
    const char *what;
};
extern const struct evspec_known evspec_events[];
extern const size_t evspec_nevents;

/*
 * Parse the @len bytes at @spec ("NAME" or "NAME@PERIOD", PERIOD a decimal
 * number of microseconds) into @ev.  Returns 0, or -1 with a one-line
 * reason (no trailing newline, naming the bad part and, for a period out
 * of range, the allowed range) written to @why (@whylen bytes, may be 0).
 * [not async-signal-safe]
 */
int evspec_parse(const char *spec, size_t len, struct evspec *ev, char *why, size_t whylen);

#endif /* CSP_EVENT_SPEC_H */
