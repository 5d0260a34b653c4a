/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tramp_sig.c -- the trampoline's C side: install, remove, the return
 * handler, and the sampler's protocol (begin / reconcile / commit), so that
 * every change of struct tramp_thread, and the call-count invariant of
 * tramp.h, is in this file ([csprof 2005] §2.3-2.5).
 *
 * Runs in signal context (the sampler's protocol, from the sampling
 * handler; the overrides' calls) and at arbitrary return points of the
 * program (tramp_on_return).  Compiled with
 * -mgeneral-regs-only so that no x87/SSE/AVX register is touched between a
 * return into the trampoline and the jump to the real return address (see
 * arch/x86_64/tramp.S).  No libc calls, no locks; memory only from the
 * arena the sampler passes (a deeper shadow stack).
 */
#include "trampoline/tramp.h"

#include "cct/cct.h"
#include "support/arena.h"
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

bool
tramp_enabled(const struct tramp_thread *tt)
{
    return tt->enabled;
}

bool
tramp_off_acked(const struct tramp_thread *tt)
{
    return tt->off_acked != 0;
}

uint64_t
tramp_count(const struct tramp_thread *tt, enum tramp_counter which)
{
    return tt->counts[which];
}

/* ---- The sampler's protocol: begin, reconcile, commit (tramp.h) ------- */

bool
tramp_sample_blocked(const struct tramp_thread *tt, uintptr_t pc)
{
    return tt->busy || tramp_contains_pc(pc);
}

bool
tramp_sample_begin(struct tramp_thread *tt, uintptr_t sp, bool plain, uintptr_t *stop_ip)
{
    bool trampolining;

    if (tt->suspended && sp >= tt->suspend_sp)
        tt->suspended = 0; /* at or above the caller of the unwinder: the unwinding is over */
    trampolining = tt->enabled && !tt->suspended && !plain;
    *stop_ip = trampolining && tt->slot != 0 ? (uintptr_t)tramp_entry : 0;
    return trampolining;
}

/*
 * Whether a frame of the walk is inside the trampoline's code: then the
 * sample interrupted tramp_on_return (or what it calls), reached from the
 * trampoline's own call.  libunwind may even walk on past the trampoline
 * frame with frame-pointer guesses, so every frame is checked, not only
 * the last.  A stop at the trampoline's entry (a return address equal to
 * it) is not such a frame: uw_backtrace does not record it.
 */
static bool
walk_meets_trampoline(const struct uw_backtrace *bt)
{
    for (size_t i = 0; i < bt->depth; i++)
        if (tramp_contains_pc(bt->ips[i]))
            return true;
    return false;
}

enum tramp_walk
tramp_sample_reconcile(struct tramp_thread *tt, const struct uw_backtrace *bt, int rc,
                       bool trampolining, struct cct_node **parent)
{
    if (walk_meets_trampoline(bt))
        return TRAMP_WALK_DROP; /* interrupted inside tramp_on_return: its state is in flux */
    if (rc == UW_STOPPED && bt->stop_loc == tt->slot && tt->depth > 0 && bt->depth > 0) {
        *parent = tt->stack[tt->depth - 1].node; /* [csprof 2005] §2.3: only new frames below */
        return TRAMP_WALK_SPLICE;
    }
    if (rc == UW_STOPPED) {
        /* Met at a slot it was not installed at: fix that slot, forget the cache, walk all. */
        tt->counts[TRAMP_MISPLACED]++;
        if (bt->stop_loc != 0 && *(uintptr_t *)bt->stop_loc == (uintptr_t)tramp_entry)
            *(uintptr_t *)bt->stop_loc = tt->saved_ra;
        tramp_invalidate(tt);
        return TRAMP_WALK_AGAIN;
    }
    if (tt->slot != 0) {
        tt->counts[TRAMP_LOST]++; /* longjmp, exception, context switch... */
        tramp_invalidate(tt);
    } else if (trampolining) {
        tramp_invalidate(tt);
    }
    return TRAMP_WALK_FULL;
}

/* Room for @n shadow-stack entries, doubling from @arena (the old array stays in the arena). */
static bool
shadow_reserve(struct tramp_thread *tt, size_t n, struct arena *arena)
{
    size_t cap = tt->max ? tt->max : CSP_INITIAL_FRAMES;
    struct tramp_frame *stack;

    if (n <= tt->max)
        return true;
    if (tt->stack == NULL || arena == NULL) /* no shadow stack: the trampoline is off */
        return false;
    while (cap < n)
        cap *= 2;
    stack = arena_alloc(arena, cap * sizeof(*stack));
    if (stack == NULL)
        return false;
    for (size_t i = 0; i < tt->depth; i++)
        stack[i] = tt->stack[i];
    tt->stack = stack;
    tt->max = cap;
    return true;
}

/*
 * Whether @slot can be a live return-address slot of the interrupted code,
 * whose stack pointer is @sp: at or above it (below it the stack is dead),
 * and inside the thread's stack [@lo, @hi) when the code runs on it (not on
 * a coroutine's or a signal stack).  A walk through wrong unwind rules can
 * yield any address; the trampoline must never be written outside the live
 * stack.
 */
static bool
in_live_stack(uintptr_t slot, uintptr_t sp, uintptr_t lo, uintptr_t hi)
{
    if (slot < sp)
        return false;
    if (sp >= lo && sp < hi)
        return slot < hi;
    return true;
}

/*
 * Cache the frames bt->ips[from-1] .. ips[1] (return addresses, outermost
 * first) with their CCT nodes on top of the shadow stack, growing it as
 * needed.  Returns false when it cannot grow (the caller withdraws the
 * trampoline).
 */
static bool
shadow_push(struct tramp_thread *tt, const struct uw_backtrace *bt, size_t from,
            struct cct_node *const *nodes_of, struct arena *arena, uintptr_t lo, uintptr_t hi)
{
    if (from < 2)
        return true;
    if (tt->depth + (from - 1) > tt->max && !shadow_reserve(tt, tt->depth + (from - 1), arena)) {
        tt->counts[TRAMP_SHADOW_FULL]++;
        return false;
    }
    for (size_t i = from - 1; i >= 1; i--) {
        struct tramp_frame *f = &tt->stack[tt->depth++];

        f->ra = bt->ips[i];
        f->ra_loc = bt->ra_locs[i];
        f->node = nodes_of[i];
        /* A pc taken from a signal context is no return address: never replace it.  Nor
         * the return address of a function that saves it (getcontext, setjmp...), nor one
         * the unwind rules read from anywhere but the slot below the caller's stack
         * pointer (setcontext mid-switch reads it from the ucontext_t). */
        f->installable = tramp_is_return_slot(f->ra_loc, bt->sps[i]) && !bt->sigframe[i - 1] &&
                         tramp_may_hold(bt->ips[i - 1]) && *(const uintptr_t *)f->ra_loc == f->ra &&
                         tramp_is_return_address(f->ra);
        if (f->installable && !in_live_stack(f->ra_loc, bt->sps[0], lo, hi)) {
            f->installable = false;
            tt->counts[TRAMP_OUT_OF_STACK]++;
        }
    }
    return true;
}

void
tramp_sample_commit(struct tramp_thread *tt, const struct uw_backtrace *bt,
                    struct cct_node *const *nodes, enum tramp_walk walk, struct arena *arena,
                    uintptr_t stack_lo, uintptr_t stack_hi)
{
    size_t n = bt->depth;

    if (walk == TRAMP_WALK_SPLICE) {
        /* The walk met the trampoline above frame n-1: cache the new frames on top of the
         * old and move the trampoline to the interrupted frame, which is below its slot. */
        tt->counts[TRAMP_PARTIAL_WALKS]++;
        if (n >= 2) {
            tramp_remove(tt);
            if (!shadow_push(tt, bt, n, nodes, arena, stack_lo, stack_hi))
                tramp_invalidate(tt);
            else if (tramp_install_top(tt))
                tt->counts[TRAMP_INSTALLS]++;
        }
        return;
    }
    /* A full walk: a fresh shadow stack, when the insertion gave the path's nodes. */
    tt->counts[TRAMP_FULL_WALKS]++;
    if (nodes == NULL)
        return; /* no cached nodes, no trampoline this time */
    tt->depth = 0;
    if (shadow_push(tt, bt, n, nodes, arena, stack_lo, stack_hi) && tramp_install_top(tt))
        tt->counts[TRAMP_INSTALLS]++;
}

void
tramp_sample_abandon(struct tramp_thread *tt)
{
    tt->slot = 0;
    tt->depth = 0;
    tt->enabled = false;
}
