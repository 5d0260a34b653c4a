/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_process.h -- the process state (struct mon_process, mon_internal.h)
 * and its one owner, process.c.
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

#include <stdbool.h>
#include <stdint.h>

#include "support/compiler.h"

struct mon_process;

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

#endif /* CSP_MON_PROCESS_H */
