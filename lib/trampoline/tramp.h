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
 * Correctness never depends on the trampoline: when it is not where the
 * thread state says, the monitor falls back to a full walk and rebuilds the
 * shadow stack.  Everything here runs in signal context or at arbitrary
 * return points of the program: no libc calls, no locks, no allocation.
 */
#ifndef CSP_TRAMP_H
#define CSP_TRAMP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/compiler.h"

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

/* Per-thread trampoline state, owned by the monitor's per-thread block. */
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
