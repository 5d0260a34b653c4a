/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_process.h -- the process state (struct mon_process: the requested
 * events, the identity, the options) and its one owner, process.c; the
 * process's life cycle around it: start-up (monitor.c), fork and exec
 * (forkexec.c), the MPI rank (mpi.c).
 *
 * process.c is the only file that writes the process state (process_sig.c,
 * its signal-path half, keeps the atomic runtime state): the
 * configuration is read from csrun's environment and written once, in the
 * constructor (mon_process_configure); the few fields that change while the
 * program runs change only through the functions below.  Every other file
 * reads it through a const view: `mon_proc.x` there expands to
 * `(*mon_proc_ro).x`, so a write anywhere else is a compile error.
 */
#ifndef CSP_MON_PROCESS_H
#define CSP_MON_PROCESS_H

#include <linux/perf_event.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "monitor/mon_source.h"
#include "support/compiler.h"

#define MON_MAX_EVENTS 8 /* events one run may request (lib/trust's TRUST_MAX_EVENTS) */

/* One requested event, configured from CSPROF_EVENTS in the constructor (source.c). */
struct mon_event {
    char name[128];               /* as requested: "CPUTIME", "PAPI_TOT_CYC", "perf::PAGE-FAULTS" */
    const struct mon_source *src; /* how it is sampled (mon_source.h) */
    uint64_t period; /* requested period in the raw unit (ns, events); 0: by frequency */
    clockid_t clock; /* POSIX timer: the clock timed and charged */
    struct perf_event_attr attr; /* perf source: the encoded event, sampling fields set */
    const char *unit;            /* raw unit of the values: "ns", "events" */
    const char *display_unit;    /* "s", "events" */
    double display_scale;        /* raw * scale = display value */
    char mechanism[64];          /* "posix-timer", "perf-task-clock", "perf-event f1000" */
    char encoding[256];          /* perf source: the libpfm4 event string, "" otherwise */
    /* perf source, for bench/sample (CSPROF_PERF_RING=0, CSPROF_PERF_REFRESH=N): read the
     * count from the ring buffer (else read(2) per sample); overflows per re-arm ioctl. */
    bool perf_ring;
    uint32_t perf_refresh;
};

/*
 * Process-wide configuration and state.  process.c is its one writer
 * (mon_process.h): the configuration is written once, in the constructor;
 * the fields marked "runtime" change only through mon_process.h's functions.
 * Everywhere else `mon_proc` is a read-only view.  (The atomic runtime state --
 * stopped, the next thread index, the execs not followed -- is process_sig.c's
 * own, read by mon_process_stopped() etc.: an atomic operation would write
 * through a const view without a compiler error.)
 */
struct mon_process {
    struct mon_event events[MON_MAX_EVENTS];
    uint32_t nevents;
    int signo;          /* sampling signal */
    char outdir[4096];  /* measurement directory (absolute) */
    char program[4096]; /* /proc/self/exe */
    char progname[256]; /* basename of program */
    char command[4096]; /* command line, space separated, truncated */
    char host[256];
    char run_id[65];     /* CSPROF_RUN_ID: csrun's run (FMT_RUN_ID_MAX bytes); "" when none */
    uint64_t start_ns;   /* CLOCK_REALTIME at process profile start (runtime: fork, exec) */
    int32_t rank;        /* MPI rank, -1 when none (runtime: mpi.c) */
    uint32_t world_size; /* processes in MPI_COMM_WORLD, 0 when unknown (runtime: mpi.c) */
    bool active;         /* configuration valid and sampling enabled (runtime: fork child) */
    bool trampoline;     /* use the return-address trampoline (CSPROF_TRAMPOLINE != 0) */
    bool follow;         /* profile exec'd and forked children (CSPROF_FOLLOW != 0) */
    bool eintr_safe;     /* sampling never interrupts poll/select/... (CSPROF_EINTR_SAFE != 0) */
    uint64_t threads_untracked;        /* runtime: threads alive at the end without state */
    uint64_t threads_untracked_cpu_ns; /* ... and their CPU time, ns */
    uint64_t flush_period_ns; /* checkpoint period of a running thread (CSPROF_FLUSH_MS); 0 off */
    uint32_t generation;      /* runtime: bumped after a failed exec (same pid, new profile) */
    /* CSPROF_DEBUG_DROP_EVERY=N: the handler drops every Nth sample of each thread, counted
     * in samples.dropped.debug (tests of the accounting); 0: off */
    uint64_t debug_drop_every;
    size_t arena_limit; /* bytes of CCT per thread (CSPROF_MEMORY_LIMIT; default 1 GiB) */
};

/* The process state, read-only (defined in process.c).  [async-signal-safe to read] */
extern const struct mon_process *const mon_proc_ro;

#ifndef MON_PROCESS_OWNER
#    define mon_proc (*mon_proc_ro) /* read-only outside process.c */
#endif

/*
 * Constructor, first half: CSPROF_FOLLOW and CSPROF_EINTR_SAFE (before the
 * monitor takes itself out of LD_PRELOAD, so that even a configuration
 * error below leaves exec'd programs unprofiled as asked).
 * [not async-signal-safe: getenv]
 */
void mon_process_configure_follow(void);

/*
 * Constructor, second half: the sampling signal (CSPROF_SIGNAL), the arena
 * limit (CSPROF_MEMORY_LIMIT), CSPROF_DEBUG_DROP_EVERY, the events
 * (CSPROF_EVENTS, sources chosen by source.c), the measurement directory
 * (CSPROF_OUTDIR, made absolute), the checkpoint period (CSPROF_FLUSH_MS),
 * the program's identity (/proc/self/exe, cmdline, host) and the run id
 * (CSPROF_RUN_ID).  Returns 0, or -1 when the events cannot be sampled
 * (warned on stderr: the monitor stays inactive).  @after_events runs
 * between the events and the rest (mon_sync_init, which reads the events).
 * [not async-signal-safe]
 */
int mon_process_configure(void (*after_events)(void));

/* Record the profile's start time (CLOCK_REALTIME, ns) now.  [not async-signal-safe] */
void mon_process_set_start(void);

/* CSPROF_TRAMPOLINE, checked against what this machine supports (tramp_supported): whether
 * the return-address trampoline is used; warns when asked for but unsupported.  Constructor
 * only.  [not async-signal-safe] */
void mon_process_configure_trampoline(void);

/* Sampling is set up: mon_proc.active.  Constructor only. */
void mon_process_activate(void);

/* A fork child that is not followed: inactive and stopped, it writes nothing.
 * [async-signal-safe] */
void mon_process_deactivate(void);

/* Handlers drop every sample from now on (finalisation, exec).  [async-signal-safe] */
CSP_SIGSAFE void mon_process_stop(void);

/* Whether sampling has stopped (mon_process_stop).  [async-signal-safe] */
CSP_SIGSAFE bool mon_process_stopped(void);

/* The next thread's index: 0 for the first thread of a profile, then 1, 2...
 * [async-signal-safe] */
CSP_SIGSAFE uint32_t mon_process_next_thread_index(void);

/* Set the MPI rank (-1: none) and the size of MPI_COMM_WORLD (0: unknown), from the
 * launcher's environment or MPI_Init (mpi.c).  [async-signal-safe] */
CSP_SIGSAFE void mon_process_set_rank(int32_t rank, uint32_t world_size);

/* Count an exec whose environment drops csprof (exec.not_followed).  [async-signal-safe] */
CSP_SIGSAFE void mon_process_count_exec_not_followed(void);

/* Execs counted by mon_process_count_exec_not_followed.  [async-signal-safe] */
CSP_SIGSAFE uint32_t mon_process_exec_not_followed(void);

/* Count a thread alive at the end that csprof had no state for, and its CPU time in ns
 * (threads.untracked, threads.untracked.cpu_ns).  [async-signal-safe] */
CSP_SIGSAFE void mon_process_count_untracked(uint64_t cpu_ns);

/* For mon_process_restart (process.c only): thread indices from 0 again, sampling no
 * longer stopped.  [async-signal-safe] */
CSP_SIGSAFE void mon_process_restart_counts(void);

/*
 * A new profile of this process: after fork in the child (@forked: generation 0) or after
 * a failed exec (same pid, same file: the next generation).  Thread indices start again at
 * 0, the untracked-thread counts at zero, sampling is no longer stopped, the start time and
 * the identity (the program, its command line) are read again.  [not async-signal-safe]
 */
void mon_process_restart(bool forked);

/* A warning from the monitor on stderr, "csprof: WHAT: DETAIL" (@detail may be NULL).
 * [not async-signal-safe (snprintf), though the fatal-signal path's writing may call it] */
void mon_warn(const char *what, const char *detail);

/* Set the monitor up now if the constructor has not run yet (a library constructor creating a
 * thread); the calling thread's sampling starts.  [not async-signal-safe] */
void mon_ensure_initialized(void);

/* Fork and exec (forkexec.c).  After a failed exec: the calling thread alone starts a new
 * profile (next generation).  [not async-signal-safe] */
void mon_restart_after_failed_exec(void);
/* pthread_atfork's child handler: a followed child starts its own profile and file with the
 * forking thread alone; any other runs unprofiled.  [not async-signal-safe] */
void mon_atfork_child(void);
/* CSPROF_FOLLOW=0: take libcsprof out of LD_PRELOAD, so that exec'd programs (by any route)
 * run unprofiled.  Constructor only.  [not async-signal-safe: getenv, setenv] */
void mon_stop_following(void);
/* Resolve the real fork and exec functions (mon_real.h), from mon_resolve_real_functions.
 * [not async-signal-safe: dlsym] */
void mon_resolve_forkexec_functions(void);

/* MPI (mpi.c).  Set mon_proc.rank and world_size from the launcher's environment (Open MPI,
 * PMI, Slurm); -1 and 0 when none says.  [not async-signal-safe: getenv] */
void mon_mpi_rank_from_env(void);
/* Format this process's measurement file name into @buf: PROG-rRANK-PID.cspm (rank zero-padded,
 * so names sort by rank) or PROG-PID.cspm without a rank, with -N before .cspm when @n > 0.
 * Returns snprintf's count.  [not async-signal-safe] */
int mon_mpi_file_name(char *buf, size_t len, int pid, unsigned n);

#endif /* CSP_MON_PROCESS_H */
