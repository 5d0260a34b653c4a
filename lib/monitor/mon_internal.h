/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_internal.h -- the monitor's thread: its state (struct mon_thread), the
 * outcomes and the ledger each sample and event is accounted in, and the
 * thread registry and life cycle (thread.c).  The rest of libcsprof.so's
 * shared declarations are by concern: mon_process.h (the process state, its
 * configuration and life cycle: fork, exec, MPI), mon_signals.h (handlers and
 * masks), mon_real.h (real functions), mon_nonlocal.h (own code, selfsave),
 * mon_sys.h (system calls, clocks, descriptors), mon_source.h, mon_loadmap.h,
 * mon_write.h, mon_omp.h, mon_sync.h.
 *
 * Per-thread state (struct mon_thread) lives in its own mmap'd block and is
 * reached from initial-exec TLS, so the signal handler never allocates or
 * locks to find it.  Fields the handler reads are changed outside it only
 * while the thread's sample sources are stopped or its `inside` flag is set.
 */
#ifndef CSP_MON_INTERNAL_H
#define CSP_MON_INTERNAL_H

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "fmt/fmt.h"
#include "monitor/mon_process.h" /* MON_MAX_EVENTS; mon_proc, the read-only view */
#include "monitor/mon_source.h"
#include "support/arena.h"
#include "support/compiler.h"
#include "trampoline/tramp.h"
#include "unwind/uw.h"

/* Sample outcomes and drop reasons; every sample ends in exactly one. */
enum mon_outcome {
    MON_SAMPLE_OK = 0,       /* recorded, unwind reached the thread's root */
    MON_SAMPLE_PARTIAL,      /* recorded, unwind stopped early */
    MON_DROP_REENTERED,      /* arrived while csprof code ran on this thread */
    MON_DROP_NO_THREAD,      /* arrived on a thread csprof has no state for */
    MON_DROP_STOPPED,        /* arrived after sampling stopped (exit, exec, finalisation) */
    MON_DROP_NO_MEMORY,      /* arena limit reached (also: no room to hold a deep stack's walk) */
    MON_DROP_UNWIND_FAULT,   /* the stack walk faulted (SIGSEGV/SIGBUS caught) */
    MON_DROP_NO_FRAMES,      /* libunwind could not start */
    MON_DROP_UNKNOWN_SOURCE, /* signal we cannot tie to an event */
    MON_DROP_IN_TRAMPOLINE,  /* interrupted inside the trampoline or its return handler */
    MON_DROP_IN_MONITOR,     /* interrupted inside csprof's own code (an override) */
    MON_DROP_DEBUG,          /* dropped on purpose: CSPROF_DEBUG_DROP_EVERY (tests) */
    MON_NOUTCOMES
};

/* The drop outcomes are fmt_drop_reasons' (lib/fmt/fmt.h), in its order. */
_Static_assert(MON_NOUTCOMES - MON_DROP_REENTERED == FMT_NDROP_REASONS,
               "one drop outcome per samples.dropped.REASON counter");

/*
 * Where the value one event measured on one thread went, in the event's raw
 * unit (ns, events): the ledger of the trust report (share/schemas/
 * measurement-format.md, "event.NAME.*").  What is measured equals recorded
 * + dropped + unplaced + tail, except what the signal never brought to the
 * handler (blocked, still pending when sampling stopped, or lost), which
 * the reader gives as the remainder.  Written by the handler and by the
 * sources' thread_stop, on the thread itself.
 */
struct mon_ledger {
    uint64_t measured; /* CPU time (CPUTIME), wall time (REALTIME) or count while armed */
    uint64_t recorded; /* charged to the tree by recorded samples (equals the tree's total) */
    uint64_t kernel;   /* of recorded, charged to [kernel] children (equals the tree's) */
    uint64_t dropped;  /* stood for by signals whose sample was dropped, or records lost */
    uint64_t unplaced; /* ended in kernel mode where the event samples user mode only */
    uint64_t tail;     /* after the last period boundary (or sample record) of each span */
    uint64_t pending;  /* sample records made whose signal the handler never took (perf) */
};

#define MON_LEDGER_FIELDS 7 /* struct mon_ledger's, in order (record_sig.c names them) */

/* The sampling handler measures its own CPU time on one signal in this many. */
#define MON_HANDLER_TIMED 16

enum mon_thread_state { MON_THREAD_RUNNING = 0, MON_THREAD_WRITING, MON_THREAD_DONE };

struct cct;
struct mon_snapshot;

/* Per-thread profile state: one mmap'd block per thread, never freed while the process runs. */
struct mon_thread {
    struct mon_thread *next;          /* registry link (mon_registry_lock) */
    atomic_int state;                 /* enum mon_thread_state: who writes the profile */
    volatile sig_atomic_t inside;     /* csprof code is running on this thread */
    volatile sig_atomic_t in_unwind;  /* SIGSEGV/SIGBUS during the walk escape via unwind_escape */
    volatile sig_atomic_t unw_masked; /* libunwind's signal-blocking sections open in the walk */
    sigjmp_buf unwind_escape;
    pid_t tid;
    pthread_t self;
    uint32_t thread_index;
    uint64_t start_ns; /* CLOCK_REALTIME at thread profile start */
    struct arena arena;
    struct cct *tree;
    struct uw_backtrace bt;
    struct cct_node **bt_nodes;      /* CCT node of each frame of bt (trampoline splice) */
    uintptr_t *bt_keys;              /* CCT key of each frame of bt (mon_snapshot_keys) */
    const struct mon_snapshot *snap; /* load-map snapshot the current sample reads, or NULL */
    struct tramp_thread tramp;
    bool shadow_rooted;           /* the walk that built the shadow stack reached the root */
    uintptr_t stack_lo, stack_hi; /* the thread's stack [lo, hi), or 0, 0 when unknown */
    struct mon_source_thread src[MON_MAX_EVENTS]; /* each event's source state (mon_source.h) */
    uint64_t counts[MON_NOUTCOMES];
    uint64_t event_samples[MON_MAX_EVENTS];   /* samples recorded per event */
    struct mon_ledger ledger[MON_MAX_EVENTS]; /* where each event's value went */
    uint64_t timer_overruns; /* expirations merged into one signal (POSIX timers) */
    uint64_t signals_merged; /* signals whose periods an earlier signal's sample took */
    /* csprof's CPU time in the sampling handler, measured on one signal in MON_HANDLER_TIMED
     * (two reads of the thread's CPU clock, a system call each) and scaled by the signals
     * handled: handler_timed_ns over handler_timed of handler_signals. */
    uint64_t handler_signals, handler_timed, handler_timed_ns;
    uint64_t handler_first_ns; /* the first signal's (always timed: arena set-up, a full walk) */
    uint64_t clock_floor_ns;   /* what two back-to-back reads of mon_timing_clock measure */
    int timing_fd;             /* the task clock's descriptor that times the handler, or -1 */
    uint64_t writer_cpu_ns; /* thread CPU time spent writing this thread's records (checkpoints) */
    bool sampling_blocked;  /* the real mask blocked the sampling signal when the thread ended */
    /* CPU time while the thread's sample sources were armed (thread.sampled_cpu_ns): the time a
     * CPUTIME rate applies to, without csprof's start-up and the writing of the profiles. */
    bool sources_armed;
    uint64_t armed_cpu_start_ns; /* thread CPU time when they were armed, ns */
    uint64_t armed_cpu_ns;       /* CPU time of earlier armed spans, ns */
    /* Records (mon_write.h): */
    uint64_t record_seq;   /* sequence number of the next record of this thread */
    uint64_t ckpt_last_ns; /* CLOCK_MONOTONIC at the last checkpoint (or thread start) */
    uint64_t slot_off[2];  /* the two checkpoint slots: file offset and capacity, bytes */
    uint64_t slot_cap[2];
    uint64_t ckpt_written;      /* checkpoints written */
    uint64_t ckpt_failed;       /* checkpoints not written (no memory, write error) */
    struct mon_omp_thread *omp; /* OpenMP creation contexts (mon_omp.h); NULL until needed */
};

/*
 * Deep stacks (depth_sig.c).  mon_bt_grow is td->bt's uw_grow_fn (@arg is
 * the thread's struct mon_thread): it doubles the walk arrays and bt_nodes
 * from the thread's arena, keeping the frames walked so far; returns 0, or
 * -1 when the arena limit is reached.  (The trampoline's shadow stack grows
 * from the same arena in tramp_sample_commit.)  [async-signal-safe]
 */
CSP_SIGSAFE int mon_bt_grow(struct uw_backtrace *bt, void *arg);

/* This thread's state, NULL before set-up.  [async-signal-safe] */
CSP_SIGSAFE struct mon_thread *mon_thread_self(void);

/* Make @td this thread's state (NULL to detach).  [async-signal-safe] */
CSP_SIGSAFE void mon_thread_set_self(struct mon_thread *td);

/* Process-wide count of an outcome (samples on threads without state).  [async-signal-safe] */
CSP_SIGSAFE uint64_t mon_process_count(enum mon_outcome what);

/* Count one sample outcome; td == NULL counts process-wide.  [async-signal-safe] */
CSP_SIGSAFE void mon_count(struct mon_thread *td, enum mon_outcome what);

/* The state of the thread @t, or NULL.  Takes the registry lock.  [not async-signal-safe] */
struct mon_thread *mon_thread_find(pthread_t t);
/*
 * The thread registry and the threads' life cycle (thread.c).  mon_threads_init: the TLS key
 * whose destructor ends a thread (constructor; 0 or -1).  mon_thread_begin: state for the
 * calling thread, registered, sampling started; NULL when out of memory.  mon_thread_end:
 * stop its sampling, write its profile unless written, free its tree.  mon_finalize_process:
 * write every profile once (exit, _exit, exec; @why is for the reader).
 * [not async-signal-safe]
 */
int mon_threads_init(void);
struct mon_thread *mon_thread_begin(void);
void mon_thread_end(struct mon_thread *td);
void mon_finalize_process(const char *why);
/* A fork child that is not followed: the calling thread's sources forgotten (the parent's),
 * its trampoline taken out, no thread state.  [not async-signal-safe] */
void mon_thread_forget_self(void);
/* After fork in the child (@forked: the sources are the parent's, forgotten) or a failed
 * exec (stopped): an empty registry, the calling thread's state dropped, nothing
 * finalised yet.  The caller begins the thread again.  [not async-signal-safe] */
void mon_threads_restart(bool forked);
/*
 * From the handler of a signal that kills the process (faults.c): write
 * every profile without refreshing the load map and without waiting on the
 * registry lock; if another thread is writing them, wait (10 s at most) for
 * it to finish.  @interrupted_mask is the signal mask of the code the fatal
 * signal interrupted (the handler's ucontext), NULL if unknown: the calling
 * thread's own mask inside the handler blocks the sampling signal, so it
 * says nothing about whether the thread could be sampled.
 * [async-signal-safe, except the load-map lookups of write.c]
 */
void mon_finalize_from_signal(int sig, const sigset_t *interrupted_mask);

#endif /* CSP_MON_INTERNAL_H */
