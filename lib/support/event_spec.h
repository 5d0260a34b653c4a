/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * event_spec.h -- the grammar of an event request, "NAME[@PERIOD]".
 *
 * One parser shared by csrun (which checks -e before the program runs) and
 * the monitor's constructor (which reads the same text from CSPROF_EVENTS),
 * so the two can never disagree on what is accepted.  NAME is one of the
 * named events of evspec_events (time), a PAPI preset (evspec_presets), or
 * any other name, taken as a libpfm4 event name ("INST_RETIRED:ANY_P",
 * "perf::PAGE-FAULTS"); whether such a name exists and can be sampled on
 * this machine is lib/support/pmu.h's question, not the grammar's.
 * Ordinary context; no libpfm4 here.
 */
#ifndef CSP_EVENT_SPEC_H
#define CSP_EVENT_SPEC_H

#include <stdbool.h>
#include <stddef.h>

/* Period of a time event that names none, in microseconds. */
#define EVSPEC_DEFAULT_PERIOD_US 5000ull

/*
 * Shortest period accepted, in microseconds.  One sample costs tens of
 * microseconds of the sampled thread's own time (a stack walk and a CCT
 * insertion; about 60-80 µs on a loaded 2-core VM), and both the perf
 * task-clock and the real-time timer count that time: below about 50 µs
 * the next signal is due before the handler returns and the program stops
 * making progress (docs/csrun.md, "Sampling periods", has the measurements).
 * 100 µs keeps a factor of two from that point.
 */
#define EVSPEC_MIN_PERIOD_US 100ull

/* Longest period accepted, in microseconds (one minute). */
#define EVSPEC_MAX_PERIOD_US 60000000ull

/* Sampling frequency of a perf event that names no period, in samples per second. */
#define EVSPEC_DEFAULT_FREQ_HZ 1000ull

/* Highest frequency accepted for "@fFREQ": one sample per EVSPEC_MIN_PERIOD_US. */
#define EVSPEC_MAX_FREQ_HZ (1000000ull / EVSPEC_MIN_PERIOD_US)

/* Synchronous events (MEMALLOC, MEMLEAK, IO, IO_READ, IO_WRITE): PERIOD is a number of bytes,
 * the mean distance between samples (event_sync.c). */
#define EVSPEC_DEFAULT_PERIOD_BYTES (512ull * 1024)
#define EVSPEC_MAX_PERIOD_BYTES     (1ull << 40)

/* What kind of quantity an event measures, which decides its sample source. */
enum evspec_kind {
    EVSPEC_CPUTIME = 0, /* CPU time of each thread; unit ns, period in µs */
    EVSPEC_REALTIME,    /* wall-clock time of each thread; unit ns, period in µs */
    EVSPEC_PERF,        /* a perf_event (PAPI preset or libpfm4 name); unit events */
    EVSPEC_BYTES,       /* synchronous: bytes allocated / read / written; unit and period bytes */
};

/* A parsed request. */
struct evspec {
    char name[128];        /* as written: "CPUTIME", "PAPI_TOT_CYC", "perf::PAGE-FAULTS" */
    enum evspec_kind kind; /* EVSPEC_PERF for presets and libpfm4 names */
    /* Time events: microseconds between samples (EVSPEC_MIN_PERIOD_US ..
     * EVSPEC_MAX_PERIOD_US).  Perf events: events between samples (>= 1), or, when @freq,
     * samples per second (1 .. EVSPEC_MAX_FREQ_HZ).  Byte events: mean bytes between
     * samples (1 .. EVSPEC_MAX_PERIOD_BYTES). */
    unsigned long long period;
    bool freq;   /* period is a frequency in Hz ("@fFREQ") */
    bool preset; /* name is a PAPI preset (evspec_presets) */
};

/*
 * The period of a byte event (EVSPEC_BYTES): @text, NUL-terminated, a whole number of bytes
 * with an optional K, M or G suffix (powers of 1024), into ev->period.  Returns 0, or -1 with
 * a one-line reason in @why (event_sync.c).  [not async-signal-safe]
 */
int evspec_parse_bytes(const char *text, struct evspec *ev, char *why, size_t whylen);

/* The named events of this version that are not perf events, with a one-line description. */
struct evspec_known {
    const char *name;
    enum evspec_kind kind;
    const char *what;
};
extern const struct evspec_known evspec_events[];
extern const size_t evspec_nevents;

/* The PAPI presets csprof knows, in the order `csrun -L` lists them. */
struct evspec_preset {
    const char *name; /* "PAPI_TOT_CYC" */
    const char *what; /* what it counts, one line */
};
#define EVSPEC_NPRESETS 12
extern const struct evspec_preset evspec_presets[EVSPEC_NPRESETS];

/* Index of PAPI preset @name in evspec_presets, or -1.  [not async-signal-safe] */
int evspec_preset_index(const char *name);

/*
 * Parse the @len bytes at @spec ("NAME", "NAME@PERIOD" or, for a perf
 * event, "NAME@fFREQ") into @ev.  The named events and the PAPI presets are
 * taken in any case and stored as spelled in the tables ("cputime" is
 * CPUTIME).  Returns 0, or -1 with a one-line reason
 * (no trailing newline, naming the bad part and, for a period out of range,
 * the allowed range) written to @why (@whylen bytes, may be 0).
 * [not async-signal-safe]
 */
int evspec_parse(const char *spec, size_t len, struct evspec *ev, char *why, size_t whylen);

/* Write @ev back as "NAME@PERIOD" / "NAME@fFREQ" into @out (@size bytes), as evspec_parse
 * reads it.  Returns the length, or -1 if it does not fit.  [not async-signal-safe] */
int evspec_format(const struct evspec *ev, char *out, size_t size);

#endif /* CSP_EVENT_SPEC_H */
