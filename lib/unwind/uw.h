/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uw.h -- stack walks from a signal context, for the sampling handler.
 *
 * A thin layer over libunwind's local-only API (libunwind(3), unw_init_local2
 * with UNW_INIT_SIGNAL_FRAME, unw_step, unw_get_save_loc) that returns, for
 * each frame, its instruction pointer, its stack pointer and where its
 * return address is stored -- the last is what the trampoline rewrites.
 * Names use the uw_ prefix: libunwind defines unw_* as macros.
 */
#ifndef CSP_UW_H
#define CSP_UW_H

#include <stddef.h>
#include <stdint.h>

#include "support/compiler.h"

enum uw_status {
    UW_STOPPED = 1, /* met bt->stop_ip as a return address: the frames below it are valid */
    UW_OK = 0,      /* reached the thread's root (the outermost frame marks its caller undefined) */
    UW_EPARTIAL = -1, /* a step failed before the root: the frames so far are valid */
    UW_ETOODEEP = -2, /* more frames than the arrays hold and bt->grow could not add room */
    UW_EINIT = -3,    /* libunwind could not start from the context */
};

struct uw_backtrace;

/*
 * Called by uw_backtrace when @bt's arrays are full: make room for more
 * frames (replace the arrays with longer ones holding the bt->depth frames
 * so far, raise bt->max) and return 0, or return -1 to cut the walk there
 * (UW_ETOODEEP).  Runs inside the walk, so in signal context.
 */
typedef int uw_grow_fn(struct uw_backtrace *bt, void *arg);

/*
 * Output of one walk; the caller owns the arrays (arena memory in the
 * monitor).  sps and ra_locs may be NULL when not wanted.
 */
struct uw_backtrace {
    uintptr_t *ips; /* [0] interrupted pc, [i>0] return address into frame i */
    uintptr_t *sps; /* stack pointer (CFA of the callee) of frame i, or NULL */
    uintptr_t *
        ra_locs; /* address where frame i-1's return address (ips[i]) is saved; 0 when in a register */
    uint8_t *
        sigframe; /* 1 when frame i is a signal frame (its successor's pc is no return address), or NULL */
    size_t max;         /* capacity of the arrays, in frames */
    size_t depth;       /* frames filled */
    uintptr_t stop_ip;  /* 0, or stop when a return address equals it (the trampoline) */
    uintptr_t stop_loc; /* UW_STOPPED: where that return address was read from */
    uw_grow_fn *grow;   /* NULL: a walk deeper than max is cut (UW_ETOODEEP) */
    void *grow_arg;
};

/*
 * One-time set-up: per-thread unwind caches, so walks take no lock.  Call
 * from the monitor's constructor before any sampling signal is armed.
 * [not async-signal-safe]
 */
void uw_init(void);

/*
 * Walk the stack of the interrupted code described by @ucontext (the third
 * argument of an SA_SIGINFO handler) into @bt.  Returns UW_OK when the walk
 * reached the thread's root, UW_STOPPED when frame bt->depth's return
 * address was bt->stop_ip (read from bt->stop_loc; frames 0..depth-1 are
 * the ones below it), else a negative uw_status; bt->depth frames are valid
 * in every case (0 on UW_EINIT).  May fault on a corrupt stack: the
 * caller guards the call (see mon_sample_handler).  [async-signal-safe]
 */
CSP_SIGSAFE int uw_backtrace(void *ucontext, struct uw_backtrace *bt);

/* Interrupted program counter of a signal context.  [async-signal-safe] */
/*
 * As uw_backtrace, from the caller's own frame (a context made here with
 * unw_getcontext): bt->ips[0] is a pc inside this function or its caller,
 * then the return addresses outwards.  For the monitor's overrides that
 * record a calling context outside the sampling handler (OpenMP creation
 * contexts); the caller keeps its sampling handler off this thread's walk
 * arrays meanwhile.  [async-signal-safe, as uw_backtrace]
 */
CSP_SIGSAFE int uw_backtrace_here(struct uw_backtrace *bt);

CSP_SIGSAFE uintptr_t uw_context_pc(const void *ucontext);

/* Interrupted stack pointer of a signal context.  [async-signal-safe] */
CSP_SIGSAFE uintptr_t uw_context_sp(const void *ucontext);

#endif /* CSP_UW_H */
