/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_sys.h -- the monitor's system primitives: a raw system call, clocks
 * read without disturbing the program (the thread's CPU time, the handler's
 * own timing clock), and descriptors kept out of the program's way.
 */
#ifndef CSP_MON_SYS_H
#define CSP_MON_SYS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "support/compiler.h"

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

#endif /* CSP_MON_SYS_H */
