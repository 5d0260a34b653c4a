/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tramp.h -- the csprof return-address trampoline ([csprof 2005] §2.3-2.5,
 * [csprof 2004] §2.2-2.4).
 *
 * At most one trampoline per thread: it replaces the return address of the
 * frame that was interrupted by the last sample.  Frames outside it are
 * known to the profiler and cached, outermost first, in the thread's
 * shadow stack, each with the CCT node of its call site; a sample walks
 * only the frames below the trampoline and inserts them starting at the
 * cached node.  When the frame returns into the trampoline, the call-edge
 * count of the returning context is incremented ([csprof 2005] §2.4), the
 * shadow stack is popped and the trampoline moves one frame up.
 *
 * The call-count invariant.  Between samples and returns, for the state of
 * struct tramp_thread (all of it kept in tramp_sig.c):
 *   (1) stack[0 .. depth-1] are activations that were live at the last
 *       sample, outermost first: stack[i].ra is the return address into
 *       the caller's call site, read from stack[i].ra_loc, and stack[i].node
 *       is the CCT node of that call site on the sample's path.
 *   (2) slot != 0 means the trampoline is installed: slot ==
 *       stack[depth-1].ra_loc, saved_ra == stack[depth-1].ra, and the slot
 *       held tramp_entry when it was written (the innermost cached frame's
 *       return goes through the trampoline).
 *   (3) A return through the trampoline from that slot adds exactly one
 *       call to stack[depth-1].node, pops it and installs the trampoline in
 *       the new top's slot if that slot still holds its return address;
 *       from any other slot it counts nothing but return_mismatch and
 *       forgets the shadow stack.
 *   (4) A sample keeps the shadow stack only when its walk met the
 *       trampoline in `slot` (the frames below are the new ones); in every
 *       other case the state is forgotten and rebuilt from a full walk.
 *       Either way the sample ends with the trampoline in the interrupted
 *       frame's return slot, the new top, when that slot checks out
 *       (tramp_sample_commit), else nowhere.  Whatever moves the stack
 *       behind the sampler's back (longjmp, exceptions, setjmp's save,
 *       cancellation, a fault in the walk) forgets the state first.
 * So a node's call count is the number of returns, seen through the
 * trampoline, of activations that a sample found calling from that call
 * site; each activation is counted at most once, and never without a
 * return.  Correctness of the samples never depends on the trampoline.
 *
 * The sampler's protocol (lib/monitor/sample_sig.c), one sample:
 *   tramp_sample_blocked  drop the sample: it interrupted the trampoline
 *   tramp_sample_begin    may the sample use the trampoline, where the walk stops
 *   (the walk: uw_backtrace with that stop)
 *   tramp_sample_reconcile  what the walk met: splice below a cached node,
 *                         insert from the root, walk again, or drop
 *   (the CCT insertion, the monitor's)
 *   tramp_sample_commit   cache the frames just inserted, move the trampoline
 *   tramp_sample_abandon  the walk faulted: forget everything, turn it off
 * The program's side: tramp_on_return (the returns), and from the
 * monitor's overrides tramp_nonlocal_exit / tramp_resume (longjmp,
 * exceptions, context switches), tramp_leave_slot (setjmp, getcontext),
 * tramp_disable (cancellation), tramp_invalidate (thread exit).
 *
 * Everything here runs in signal context or at arbitrary return points of
 * the program: no libc calls, no locks; memory only from the caller's arena.
 */
#ifndef CSP_TRAMP_H
#define CSP_TRAMP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/compiler.h"
#include "unwind/uw.h"

struct arena;
struct cct_node;

/* One cached activation: the call site in its caller, outermost first in the shadow stack. */
struct tramp_frame {
    uintptr_t ra;          /* real return address into the caller (the CCT key) */
    uintptr_t ra_loc;      /* stack address holding it */
    struct cct_node *node; /* CCT call-site node keyed by ra */
    bool installable;      /* ra_loc is a plain return-address slot (not a signal context) */
};

/* Events counted per thread; written into the profile as "trampoline.<name>". */
enum tramp_counter {
    TRAMP_FIRED = 0,       /* returns caught by the trampoline */
    TRAMP_INSTALLS,        /* trampoline placed by a sample */
    TRAMP_PARTIAL_WALKS,   /* samples that walked only the new frames */
    TRAMP_FULL_WALKS,      /* samples that walked the whole stack */
    TRAMP_LOST,            /* trampoline not found where the thread state said: full walk */
    TRAMP_MISPLACED,       /* trampoline met at an unexpected stack slot: full walk */
    TRAMP_RETURN_MISMATCH, /* the trampoline fired from a slot it was not known at */
    TRAMP_NONLOCAL_EXITS,  /* longjmp, exceptions, context switches, backtraces seen */
    TRAMP_NOT_INSTALLED,   /* the return address failed validation: no trampoline */
    TRAMP_SHADOW_FULL,     /* shadow stack full: trampoline withdrawn */
    TRAMP_SELF_SAVING,     /* taken out of the return slot of setjmp/getcontext before it ran */
    TRAMP_OUT_OF_STACK,    /* a walk gave a slot outside the live stack: not installed there */
    TRAMP_NCOUNTERS
};

extern const char *const tramp_counter_names[TRAMP_NCOUNTERS];

/*
 * Per-thread trampoline state, embedded in the monitor's per-thread block
 * (a complete type only for that).  Fields private to lib/trampoline: the
 * monitor goes through the functions below (test/check_layering.sh checks
 * that lib/monitor reads and writes none of them).
 */
struct tramp_thread {
    struct tramp_frame *stack;       /* shadow stack, [0] outermost; arena memory */
    size_t depth;                    /* valid entries */
    size_t max;                      /* capacity */
    uintptr_t slot;                  /* where the trampoline is installed; 0 when nowhere */
    uintptr_t saved_ra;              /* what *slot held before; == stack[depth-1].ra */
    volatile sig_atomic_t busy;      /* tramp_on_return is running */
    volatile sig_atomic_t suspended; /* program is unwinding its stack: install nothing */
    uintptr_t suspend_sp;            /* stack pointer when the suspension began */
    volatile bool enabled; /* false: install nothing (and tramp_on_return takes itself out) */
    volatile sig_atomic_t off_acked; /* tramp_disable_from_handler has run */
    uint64_t counts[TRAMP_NCOUNTERS];
};

/* The calling thread's state, or NULL (then the trampoline is never installed).
 * Set by the monitor outside signal context with sampling stopped. */
CSP_SIGSAFE void tramp_set_self(struct tramp_thread *tt);
CSP_SIGSAFE struct tramp_thread *tramp_self(void);

/*
 * Initialise @tt with a shadow stack of @max entries at @stack (arena
 * memory, owned by the caller).  @enabled false: never install.
 * [async-signal-safe]
 */
CSP_SIGSAFE void tramp_thread_init(struct tramp_thread *tt, struct tramp_frame *stack, size_t max,
                                   bool enabled);

/* Address a return into the trampoline jumps to.  [async-signal-safe] */
CSP_SIGSAFE uintptr_t tramp_address(void);

/* Whether @pc lies in the trampoline's code (a sample there is dropped).  [async-signal-safe] */
CSP_SIGSAFE bool tramp_contains_pc(uintptr_t pc);

/*
 * Whether the trampoline can work in this process.  False when user-space
 * shadow stacks (CET SHSTK) are active, since a changed return address
 * would fault; *why then says so.  [not async-signal-safe: call at start-up]
 */
bool tramp_supported(const char **why);

/*
 * Functions that save their own return address (getcontext, swapcontext,
 * the setjmp family): a trampoline in their return slot would be saved too
 * and jumped to later, long after it moved.  Register their code ranges at
 * start-up; tramp_may_hold(pc) then says whether the frame interrupted at
 * @pc may get the trampoline.  At most 32 ranges.
 * [tramp_avoid_range: not async-signal-safe, call before sampling starts]
 */
void tramp_avoid_range(uintptr_t lo, uintptr_t hi);
CSP_SIGSAFE bool tramp_may_hold(uintptr_t pc);

/*
 * Whether @ra looks like a return address: the bytes before it end in a
 * call instruction.  Reads code memory: call under the fault guard.
 * [async-signal-safe]
 */
CSP_SIGSAFE bool tramp_is_return_address(uintptr_t ra);

/*
 * Whether @ra_loc is an ordinary return-address slot for a frame whose
 * caller resumes with stack pointer @caller_sp: the slot a call instruction
 * pushed, just below @caller_sp.  False when the unwind rules place the
 * return address elsewhere -- e.g. inside a ucontext_t while glibc's
 * setcontext is switching stacks, where a trampoline would be copied onto
 * the new stack and the ucontext left holding it.  [async-signal-safe]
 */
CSP_SIGSAFE bool tramp_is_return_slot(uintptr_t ra_loc, uintptr_t caller_sp);

/*
 * Put the trampoline into the slot of the shadow stack's top entry, which
 * must hold that entry's return address.  Returns true when installed.
 * Any trampoline elsewhere must have been removed first.  [async-signal-safe]
 */
CSP_SIGSAFE bool tramp_install_top(struct tramp_thread *tt);

/*
 * Take the trampoline out: restore the saved return address if the slot
 * still holds the trampoline (a slot in a frame that was unwound past may
 * hold anything now and is left alone).  Writes program memory: call under
 * the fault guard in signal context.  [async-signal-safe]
 */
CSP_SIGSAFE void tramp_remove(struct tramp_thread *tt);

/* tramp_remove, and forget the shadow stack.  [async-signal-safe] */
CSP_SIGSAFE void tramp_invalidate(struct tramp_thread *tt);

/*
 * The program is about to unwind or switch its stack (longjmp, exception,
 * swapcontext, backtrace, pthread_exit): take the trampoline out, forget
 * the shadow stack, and if @suspend, install nothing until
 * tramp_resume() or a sample whose stack pointer is at or above @sp (the
 * stack pointer of the code that called the unwinder, after the call: the
 * unwinder runs strictly below it).  Called
 * from overrides, with the thread's sampling signal possibly arriving:
 * it blocks nothing and is safe against the handler because it sets
 * `busy` while it changes state.  [async-signal-safe]
 */
CSP_SIGSAFE void tramp_nonlocal_exit(struct tramp_thread *tt, uintptr_t sp, bool suspend);

/*
 * Turn the trampoline off for good on the calling thread, which is about to
 * be cancelled (glibc unwinds a cancelled thread with a libgcc it reaches
 * through dlopen, past csprof's overrides, so no trampoline may remain).
 * Called from the sampling handler on request of the cancelling thread, or
 * directly on self-cancellation.  If it interrupted tramp_on_return, that
 * call takes out whatever it installs.  Sets off_acked.  [async-signal-safe]
 */
CSP_SIGSAFE void tramp_disable(struct tramp_thread *tt);

/*
 * A function that saves its own return address (setjmp, getcontext) is
 * about to run with its return address at @slot: if the trampoline is
 * installed there, take it out (the slot gets the real return address back)
 * and forget the shadow stack, so the function saves the program's address,
 * not tramp_entry.  Returns true when it did.  Called from the monitor's
 * overrides of those functions, with the thread's sampling signal possibly
 * arriving (guarded by `busy`, as tramp_nonlocal_exit).  [async-signal-safe]
 */
CSP_SIGSAFE bool tramp_leave_slot(struct tramp_thread *tt, uintptr_t slot);

/* End a suspension begun by tramp_nonlocal_exit.  [async-signal-safe] */
CSP_SIGSAFE void tramp_resume(struct tramp_thread *tt);

/* Whether the trampoline may still be installed on @tt's thread (not disabled). */
CSP_SIGSAFE bool tramp_enabled(const struct tramp_thread *tt);

/* Whether tramp_disable has run on @tt (the cancelling thread waits for it). */
CSP_SIGSAFE bool tramp_off_acked(const struct tramp_thread *tt);

/* @tt's counter @which (enum tramp_counter), for the profile's statistics. */
CSP_SIGSAFE uint64_t tramp_count(const struct tramp_thread *tt, enum tramp_counter which);

/* ---- The sampler's protocol (see the top of this file) ---------------- */

/*
 * Whether a sample that interrupted the program at @pc must be dropped
 * because it interrupted the trampoline: its code, or tramp_on_return or an
 * override changing @tt's state (`busy`).  [async-signal-safe]
 */
CSP_SIGSAFE bool tramp_sample_blocked(const struct tramp_thread *tt, uintptr_t pc);

/*
 * A sample begins on @tt's thread, interrupted with stack pointer @sp;
 * @plain: the sampler will walk the whole stack regardless (OpenMP).  Ends
 * a suspension (tramp_nonlocal_exit) when @sp is at or above where it
 * began.  Returns whether this sample works with the trampoline (stops at
 * it, caches its frames, installs it); *stop_ip gets the address the walk
 * stops at (uw_backtrace's stop_ip): the trampoline's when it is
 * installed, else 0 (a full walk).  [async-signal-safe]
 */
CSP_SIGSAFE bool tramp_sample_begin(struct tramp_thread *tt, uintptr_t sp, bool plain,
                                    uintptr_t *stop_ip);

/* What a sample's walk met, and so what the sampler does with it. */
enum tramp_walk {
    TRAMP_WALK_FULL = 0, /* insert the whole walk from the root */
    TRAMP_WALK_SPLICE,   /* stopped at the trampoline's slot: insert the frames below *parent */
    TRAMP_WALK_AGAIN,    /* stopped where it was not installed (fixed, state forgotten):
                            walk again with stop_ip 0 and reconcile that walk */
    TRAMP_WALK_DROP,     /* the walk passed through the trampoline's code: drop the sample */
};

/*
 * Judge the walk @bt (uw_backtrace returned @rc; the monitor's own frames
 * of a synchronous sample already removed), for a sample begun with
 * tramp_sample_begin's result @trampolining.  On TRAMP_WALK_SPLICE,
 * *parent is the cached CCT node of the trampoline's call site, below
 * which bt's frames (all new since the last sample) go.  Every other
 * verdict has taken the trampoline out and forgotten the shadow stack
 * (counting trampoline.lost or .misplaced where it was not found where it
 * was installed).  Writes program memory (a misplaced slot): call under
 * the fault guard.  [async-signal-safe]
 */
CSP_SIGSAFE enum tramp_walk tramp_sample_reconcile(struct tramp_thread *tt,
                                                   const struct uw_backtrace *bt, int rc,
                                                   bool trampolining, struct cct_node **parent);

/*
 * The sample's frames are in the CCT: nodes[i] is the node of bt->ips[i]
 * (i < bt->depth), or @nodes is NULL when the insertion gave none (full
 * walk without the memo: nothing cached, no trampoline).  @walk is the
 * verdict the frames were inserted under (TRAMP_WALK_SPLICE or
 * TRAMP_WALK_FULL).  Caches the frames above the interrupted one on the
 * shadow stack (spliced: on top of the cached ones; full: afresh), growing
 * it from @arena (doubling, from CSP_INITIAL_FRAMES) when needed, and
 * moves the trampoline to the interrupted frame's return slot if that
 * slot is a plain return-address slot inside the live stack ([@stack_lo,
 * @stack_hi) when the interrupted code runs there; 0, 0 when unknown).
 * When the shadow stack cannot grow the trampoline is withdrawn
 * (trampoline.shadow_full).  Call only for a sample tramp_sample_begin let
 * trampoline, after a successful insertion.  Reads and writes return
 * slots: call under the fault guard.  [async-signal-safe]
 */
CSP_SIGSAFE void tramp_sample_commit(struct tramp_thread *tt, const struct uw_backtrace *bt,
                                     struct cct_node *const *nodes, enum tramp_walk walk,
                                     struct arena *arena, uintptr_t stack_lo, uintptr_t stack_hi);

/*
 * The sample's walk or a return-slot access faulted: whatever the state
 * was, stop trusting it.  Forgets the trampoline's place and the shadow
 * stack without touching program memory (saved_ra is kept for a
 * trampoline still on the stack, which tramp_on_return then returns
 * through) and turns the trampoline off for the thread.  [async-signal-safe]
 */
CSP_SIGSAFE void tramp_sample_abandon(struct tramp_thread *tt);

/*
 * Called by the trampoline's assembly when a return lands in it, with the
 * stack pointer at that moment (one past the slot).  Counts the call edge,
 * pops the shadow stack, moves the trampoline to the caller's slot, and
 * returns the real return address to jump to.  Never fails: with no usable
 * state it still returns the saved address.  [runs at a return point of
 * the program: async-signal-safe code only]
 */
CSP_SIGSAFE uintptr_t tramp_on_return(uintptr_t sp);

#endif /* CSP_TRAMP_H */
