/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_internal.h -- state shared by the files of the monitor (libcsprof.so).
 *
 * Per-thread state (struct mon_thread) lives in its own mmap'd block and is
 * reached from initial-exec TLS, so the signal handler never allocates or
 * locks to find it.  Fields the handler reads are changed outside it only
 * while the thread's sample sources are stopped or its `inside` flag is set.
 */
#ifndef CSP_MON_INTERNAL_H
#define CSP_MON_INTERNAL_H

#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>

#include "fmt/fmt.h"
#include "monitor/mon_source.h"
#include "support/arena.h"
#include "support/compiler.h"
#include "trampoline/tramp.h"
#include "unwind/uw.h"

#define MON_MAX_EVENTS 8

/* si_value of a sampling signal sent by pthread_cancel: "take your trampoline out". */
#define MON_SIGVAL_TRAMPOLINE_OFF (-2)

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

/* The sampling handler measures its own CPU time on one signal in this many. */
#define MON_HANDLER_TIMED 16

#include "monitor/mon_process.h" /* mon_proc: the const view; its writers */

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
    /* CPUTIME by a POSIX timer: no file descriptor to spare for the task clock (source_perf.c) */
    bool timer_fallback;
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
 * OpenMP (omp_sig.c).  mon_omp_plain_walk: whether this sample must be a
 * full walk without the trampoline (the thread is in an OpenMP region, or
 * is a team thread).  mon_omp_insert: insert td->bt's sample below its
 * creation context (or as the runtime's waiting); returns false when the
 * sample is not OpenMP's (the caller inserts it as usual), else true with
 * *rc and *leaf as insert_full gives them and td->shadow_rooted set.
 * [async-signal-safe]
 */
struct mon_omp_thread;
CSP_SIGSAFE bool mon_omp_plain_walk(const struct mon_thread *td);
CSP_SIGSAFE bool mon_omp_insert(struct mon_thread *td, struct cct_node **leaf, int *rc);

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

/*
 * One system call @nr with six argument words, by the architecture's instruction
 * (arch/<cpu>/rawsys_sig.c): the kernel's return value, a negative errno on failure; errno is
 * not set.  [async-signal-safe]
 */
CSP_SIGSAFE long mon_raw_syscall(long nr, long a1, long a2, long a3, long a4, long a5, long a6);

/*
 * Move csprof's descriptor @fd out of the program's way: to the lowest free
 * number at or above the top 24 of the first 1024 (the measurement file and
 * directory), or with @many (one per thread: perf events, libunwind's pipe)
 * at or above half of them, close-on-exec, so that the program's open() gets
 * the numbers it gets without csprof.  Stays below 1024 (no select() limit,
 * no growth of the descriptor table) and below RLIMIT_NOFILE; keeps @fd where
 * it is when no such slot is free or the limit is under 64.  Returns the
 * descriptor (the old one closed), or @fd when negative.  [async-signal-safe:
 * prlimit64, fcntl, close]
 */
CSP_SIGSAFE int mon_fd_high(int fd, bool many);

/* uw_init() (libunwind's caching policy, which opens its validation pipe), with the pipe's
 * descriptors moved out of the program's way (unwind_guard_sig.c).  Constructor only.
 * [not async-signal-safe] */
void mon_unwind_init(void);

/* Make @td this thread's state (NULL to detach).  [async-signal-safe] */
CSP_SIGSAFE void mon_thread_set_self(struct mon_thread *td);

/* Process-wide count of an outcome (samples on threads without state).  [async-signal-safe] */
CSP_SIGSAFE uint64_t mon_process_count(enum mon_outcome what);

/* Count one sample outcome; td == NULL counts process-wide.  [async-signal-safe] */
CSP_SIGSAFE void mon_count(struct mon_thread *td, enum mon_outcome what);

/* The sampling handler (sample_sig.c).  [async-signal-safe] */
CSP_SIGSAFE void mon_sample_handler(int sig, siginfo_t *info, void *ucontext);

/* Handler of the fatal signals csprof watches: writes the profiles, then dies of @sig
 * as the program would have (signals.c).  [async-signal-safe, see mon_finalize_from_signal] */
void mon_fatal_handler(int sig, siginfo_t *info, void *ucontext);

/* SIGSEGV/SIGBUS filter: escapes a faulting walk, forwards everything else to the program's disposition (signals.c). */
CSP_SIGSAFE void mon_fault_handler(int sig, siginfo_t *info, void *ucontext);

/*
 * The clock the handler times itself by, in ns: the task clock open on descriptor @fd (the
 * thread's CPU time, without the time it was preempted: td->timing_fd), else, @fd < 0,
 * CLOCK_MONOTONIC (the vDSO: wall time).  UINT64_MAX when @fd cannot be read (closed since).
 * Never the thread's CPU clock: each read of it makes the kernel update the scheduler's
 * accounting, which moves the program's own CPU-time timers.  [async-signal-safe]
 */
CSP_SIGSAFE uint64_t mon_timing_clock(int fd);

/* Read a clock in ns.  [async-signal-safe] */
CSP_SIGSAFE uint64_t mon_clock_ns(clockid_t clock);

/* CPU time of thread @tid of this process, in ns; 0 when the thread is gone or the clock
 * cannot be read.  [async-signal-safe] */
CSP_SIGSAFE uint64_t mon_thread_cpu_ns(pid_t tid);

/* Load map (loadmap.c).  Take a snapshot now (outside signal context only). */
void mon_loadmap_refresh(void);
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
 * From the handler of a signal that kills the process (signals.c): write
 * every profile without refreshing the load map and without waiting on the
 * registry lock; if another thread is writing them, wait (10 s at most) for
 * it to finish.  @interrupted_mask is the signal mask of the code the fatal
 * signal interrupted (the handler's ucontext), NULL if unknown: the calling
 * thread's own mask inside the handler blocks the sampling signal, so it
 * says nothing about whether the thread could be sampled.
 * [async-signal-safe, except the load-map lookups of write.c]
 */
void mon_finalize_from_signal(int sig, const sigset_t *interrupted_mask);
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

/* Resolve every real function (the mon_real_* pointers, mon_real.h) once, in the constructor
 * (overrides.c).  [not async-signal-safe] */
void mon_resolve_real_functions(void);
/* Whether @pc is in libcsprof.so's code (ranges found at start-up).  [async-signal-safe] */
CSP_SIGSAFE bool mon_in_own_code(uintptr_t pc);

/* The functions that save their own return address, overridden in arch/<arch>/selfsave.S. */
enum mon_selfsave {
    MON_SELFSAVE_SETJMP = 0,
    MON_SELFSAVE__SETJMP,
    MON_SELFSAVE_SIGSETJMP,
    MON_SELFSAVE_GETCONTEXT,
    MON_NSELFSAVE
};
/* Their real definitions, in enum mon_selfsave order (read by selfsave.S). */
extern void *mon_selfsave_real[MON_NSELFSAVE];
/*
 * Called by a selfsave.S override whose return slot @slot holds the
 * trampoline (or whose real function is not resolved yet): takes the
 * trampoline out of @slot and returns the real function @which to jump to.
 * [program context; async-signal-safe unless it must resolve]
 */
void *mon_selfsave_prepare(uintptr_t *slot, int which);

/* Signal protection (signals.c): install csprof's handlers.  Returns 0 or -errno. */
int mon_signals_install(void);
/*
 * For the sigaction() override: if csprof owns @sig, record the program's
 * request instead of installing it, answer *old with the program's last
 * request, set *rc to 0 and return 1; otherwise return 0.  [not async-signal-safe]
 */
int mon_signals_intercept(int sig, const struct sigaction *act, struct sigaction *old, int *rc);

/*
 * Signal masks (sigmask_sig.c): the program never blocks the sampling signal.
 * (The real functions whose mask argument is filtered: mon_real.h.)
 */
/* Copy @in to @out without the sampling signal.  [async-signal-safe] */
CSP_SIGSAFE void mon_mask_filter(const sigset_t *in, sigset_t *out);
/* Whether the program, on this thread, asked for the sampling signal to be blocked (what a
 * mask query answers).  [async-signal-safe] */
CSP_SIGSAFE bool mon_mask_program_blocks(void);
/* Record that the program, on this thread, asked for the sampling signal blocked or not
 * (a new thread inherits its creator's).  [async-signal-safe] */
CSP_SIGSAFE void mon_mask_set_program_blocks(bool blocked);
/* Open the sampling signal in this thread's real mask.  Returns 0 or -errno.  [async-signal-safe] */
CSP_SIGSAFE int mon_mask_unblock_sampling(void);
/* Whether this thread's real mask blocks the sampling signal now.  [async-signal-safe] */
CSP_SIGSAFE bool mon_mask_sampling_blocked(void);

#endif /* CSP_MON_INTERNAL_H */
