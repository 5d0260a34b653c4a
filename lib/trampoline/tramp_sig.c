/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tramp_sig.c -- the trampoline's C side: install, remove, and the return
 * handler ([csprof 2005] §2.3-2.5).
 *
 * Runs in signal context (install/remove from the sampling handler) and at
 * arbitrary return points of the program (tramp_on_return).  Compiled with
 * -mgeneral-regs-only so that no x87/SSE/AVX register is touched between a
 * return into the trampoline and the jump to the real return address (see
 * arch/x86_64/tramp.S).  No libc calls, no locks, no allocation.
 */
#include "trampoline/tramp.h"

#include "cct/cct.h"
#include "trampoline/arch/tramp_arch.h"

extern char tramp_entry[], tramp_end[]; /* arch/<arch>/tramp.S */

static CSP_TLS struct tramp_thread *tramp_current;

const char *const tramp_counter_names[TRAMP_NCOUNTERS] = {
    [TRAMP_FIRED] = "trampoline.fired",
    [TRAMP_INSTALLS] = "trampoline.installs",
    [TRAMP_PARTIAL_WALKS] = "trampoline.partial_walks",
    [TRAMP_FULL_WALKS] = "trampoline.full_walks",
    [TRAMP_LOST] = "trampoline.lost",
    [TRAMP_MISPLACED] = "trampoline.misplaced",
    [TRAMP_RETURN_MISMATCH] = "trampoline.return_mismatch",
    [TRAMP_NONLOCAL_EXITS] = "trampoline.nonlocal_exits",
    [TRAMP_NOT_INSTALLED] = "trampoline.not_installed",
    [TRAMP_SHADOW_FULL] = "trampoline.shadow_full",
    [TRAMP_SELF_SAVING] = "trampoline.self_saving",
    [TRAMP_OUT_OF_STACK] = "trampoline.out_of_stack",
};

static struct {
    uintptr_t lo, hi;
} avoid[32];
static unsigned navoid;

void
tramp_avoid_range(uintptr_t lo, uintptr_t hi)
{
    if (navoid < sizeof(avoid) / sizeof(avoid[0]) && lo < hi) {
        avoid[navoid].lo = lo;
        avoid[navoid].hi = hi;
        navoid++;
    }
}

bool
tramp_may_hold(uintptr_t pc)
{
    for (unsigned i = 0; i < navoid; i++)
        if (pc >= avoid[i].lo && pc < avoid[i].hi)
            return false;
    return true;
}

void
tramp_set_self(struct tramp_thread *tt)
{
    tramp_current = tt;
}

struct tramp_thread *
tramp_self(void)
{
    return tramp_current;
}

void
tramp_thread_init(struct tramp_thread *tt, struct tramp_frame *stack, size_t max, bool enabled)
{
    tt->stack = stack;
    tt->max = stack != NULL ? max : 0;
    tt->depth = 0;
    tt->slot = 0;
    tt->saved_ra = 0;
    tt->busy = 0;
    tt->suspended = 0;
    tt->suspend_sp = 0;
    tt->enabled = enabled && stack != NULL;
    tt->off_acked = 0;
    for (int i = 0; i < TRAMP_NCOUNTERS; i++)
        tt->counts[i] = 0;
}

uintptr_t
tramp_address(void)
{
    return (uintptr_t)tramp_entry;
}

bool
tramp_contains_pc(uintptr_t pc)
{
    return pc >= (uintptr_t)tramp_entry && pc < (uintptr_t)tramp_end;
}

bool
tramp_is_return_address(uintptr_t ra)
{
    return tramp_arch_follows_call(ra);
}

bool
tramp_is_return_slot(uintptr_t ra_loc, uintptr_t caller_sp)
{
    return ra_loc != 0 && ra_loc + TRAMP_ARCH_SLOT_TO_SP == caller_sp;
}

bool
tramp_install_top(struct tramp_thread *tt)
{
    struct tramp_frame *top;
    volatile uintptr_t *slot;

    if (!tt->enabled || tt->suspended || tt->depth == 0 || tt->slot != 0)
        return false;
    top = &tt->stack[tt->depth - 1];
    if (!top->installable || top->ra_loc == 0)
        return false;
    slot = (volatile uintptr_t *)top->ra_loc;
    if (*slot != top->ra)
        return false; /* the frame is gone or the cache is stale */
    tt->saved_ra = top->ra;
    tt->slot = top->ra_loc;
    *slot = (uintptr_t)tramp_entry;
    return true;
}

void
tramp_remove(struct tramp_thread *tt)
{
    if (tt->slot != 0) {
        volatile uintptr_t *slot = (volatile uintptr_t *)tt->slot;

        if (*slot == (uintptr_t)tramp_entry)
            *slot = tt->saved_ra;
        tt->slot = 0;
    }
}

void
tramp_invalidate(struct tramp_thread *tt)
{
    tramp_remove(tt);
    tt->depth = 0;
}

void
tramp_nonlocal_exit(struct tramp_thread *tt, uintptr_t sp, bool suspend)
{
    if (tt == NULL)
        return;
    tt->busy = 1; /* a sample arriving now is dropped rather than see half-changed state */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (tt->slot != 0 || tt->depth != 0)
        tt->counts[TRAMP_NONLOCAL_EXITS]++;
    tramp_invalidate(tt);
    if (suspend) {
        tt->suspended = 1;
        tt->suspend_sp = sp;
    }
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    tt->busy = 0;
}

bool
tramp_leave_slot(struct tramp_thread *tt, uintptr_t slot)
{
    if (tt == NULL || slot == 0 || tt->slot != slot)
        return false;
    tt->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    tt->counts[TRAMP_SELF_SAVING]++;
    tramp_invalidate(tt);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    tt->busy = 0;
    return true;
}

void
tramp_disable(struct tramp_thread *tt)
{
    if (tt == NULL)
        return;
    tt->enabled = false;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (!tt->busy) /* else tramp_on_return, which we interrupted, sees !enabled and cleans up */
        tramp_invalidate(tt);
    tt->off_acked = 1;
}

void
tramp_resume(struct tramp_thread *tt)
{
    if (tt != NULL)
        tt->suspended = 0;
}

uintptr_t
tramp_on_return(uintptr_t sp)
{
    struct tramp_thread *tt = tramp_current;
    uintptr_t ra;

    /* No state can only mean the thread's state went away under an installed
     * trampoline, which the monitor prevents; there is no address to return to. */
    ra = tt->saved_ra;
    tt->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    tt->counts[TRAMP_FIRED]++;
    if (tt->slot + TRAMP_ARCH_SLOT_TO_SP != sp || tt->depth == 0) {
        /* Fired from a slot it was not known at (a copied stack, a misread frame):
         * the saved address is still the only candidate.  Start afresh. */
        tt->counts[TRAMP_RETURN_MISMATCH]++;
        tt->slot = 0;
        tt->depth = 0;
    } else {
        cct_add_calls(tt->stack[tt->depth - 1].node, 1); /* the returning context's edge */
        tt->slot = 0;
        tt->depth--;
        tramp_install_top(tt); /* one frame up; stays out if that slot does not check out */
    }
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (!tt->enabled) /* turned off while we ran (tramp_disable interrupted us) */
        tramp_invalidate(tt);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    tt->busy = 0;
    return ra;
}
