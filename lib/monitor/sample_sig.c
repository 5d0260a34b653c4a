/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sample_sig.c -- the sampling signal path: from the kernel's ucontext to a
 * CCT leaf.
 *
 * Everything in this file runs in signal context.  Allowed here: the
 * per-thread arena, lib/unwind, lib/cct insertion, atomics, raw syscalls,
 * sigsetjmp.  Not allowed: malloc/free, stdio, locks, dlsym, getenv.
 * test/integration/monitor_exports.sh checks what *_sig.o files import.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "cct/cct.h"
#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"
#include "monitor/mon_nonlocal.h"
#include "monitor/mon_omp.h"
#include "monitor/mon_signals.h"
#include "monitor/mon_sync.h"
#include "monitor/mon_sys.h"
#include "monitor/mon_write.h"
#include "trampoline/tramp.h"
#include "unwind/uw.h"

static CSP_TLS struct mon_thread *mon_self;

/* Outcomes of samples that arrive on threads without state. */
static atomic_uint_fast64_t process_counts[MON_NOUTCOMES];

struct mon_thread *
mon_thread_self(void)
{
    return mon_self;
}

void
mon_thread_set_self(struct mon_thread *td)
{
    mon_self = td;
}

void
mon_count(struct mon_thread *td, enum mon_outcome what)
{
    if (td == NULL)
        atomic_fetch_add_explicit(&process_counts[what], 1, memory_order_relaxed);
    else
        td->counts[what]++;
}

uint64_t
mon_process_count(enum mon_outcome what)
{
    return atomic_load_explicit(&process_counts[what], memory_order_relaxed);
}

/*
 * A full walk: memoized insertion from the root; when the sample trampolines,
 * the path's nodes go to the trampoline for a fresh shadow stack.
 */
static int
insert_full(struct mon_thread *td, bool trampolining, struct cct_node **leaf)
{
    struct cct_node *const *memo, **nodes = NULL;
    size_t n = td->bt.depth, nmemo;
    int rc;

    mon_snapshot_keys(td, td->bt.ips, td->bt_keys, n);
    rc = cct_insert_path_memo(td->tree, td->bt_keys, n, leaf, NULL);
    if (rc != CCT_OK || !trampolining)
        return rc;
    memo = cct_memo_nodes(td->tree, &nmemo);
    if (memo != NULL && nmemo == n) { /* (else no cached nodes, no trampoline this time) */
        for (size_t i = 0; i < n; i++)
            td->bt_nodes[i] = memo[n - 1 - i];
        nodes = td->bt_nodes;
    }
    tramp_sample_commit(&td->tramp, &td->bt, nodes, TRAMP_WALK_FULL, &td->arena, td->stack_lo,
                        td->stack_hi);
    return CCT_OK;
}

/*
 * The walk met the trampoline in its slot ([csprof 2005] §2.3): its frames
 * are the new ones; insert them below the cached call site @parent, then let
 * the trampoline cache them and move to the interrupted frame.
 */
static int
insert_spliced(struct mon_thread *td, struct cct_node *parent, struct cct_node **leaf)
{
    size_t k = td->bt.depth;
    int rc;

    mon_snapshot_keys(td, td->bt.ips, td->bt_keys, k);
    rc = cct_insert_path_nodes(td->tree, parent, td->bt_keys, k, td->bt_nodes);
    if (rc != CCT_OK)
        return rc;
    *leaf = td->bt_nodes[0];
    tramp_sample_commit(&td->tramp, &td->bt, td->bt_nodes, TRAMP_WALK_SPLICE, &td->arena,
                        td->stack_lo, td->stack_hi);
    return CCT_OK;
}

/*
 * A synchronous sample walks from inside csprof's override: drop the leading frames in
 * csprof's own code, so that frame 0 is the program's call of the overridden function.
 */
static void
drop_own_frames(struct uw_backtrace *bt)
{
    size_t k = 0;

    while (k < bt->depth && mon_in_own_code(bt->ips[k]))
        k++;
    if (k == 0)
        return;
    bt->depth -= k;
    memmove(bt->ips, bt->ips + k, bt->depth * sizeof(*bt->ips));
    memmove(bt->sps, bt->sps + k, bt->depth * sizeof(*bt->sps));
    memmove(bt->ra_locs, bt->ra_locs + k, bt->depth * sizeof(*bt->ra_locs));
    memmove(bt->sigframe, bt->sigframe + k, bt->depth * sizeof(*bt->sigframe));
    /* Frame 0's pc is now a return address: its call instruction is the sampled statement. */
    if (bt->depth > 0)
        bt->ips[0]--;
}

/*
 * Charge @c to the sample's @leaf: its user part to the leaf, its kernel
 * part to a [kernel] leaf below the leaf's address taken as a call site
 * (the instruction the kernel returned to: a system call's, or a faulting
 * one).  @leaf_key is the leaf's CCT key.  Returns CCT_OK, or CCT_ENOMEM
 * with nothing charged.
 */
static int
charge_sample(struct mon_thread *td, struct cct_node *leaf, uintptr_t leaf_key, uint32_t ev,
              const struct mon_charge *c)
{
    struct mon_ledger *l = &td->ledger[ev];
    struct cct_node *kleaf;

    if (c->kernel == 0) {
        if (cct_add_sample(td->tree, leaf, ev, c->user) != CCT_OK)
            return CCT_ENOMEM;
        l->recorded += c->user;
        return CCT_OK;
    }
    {
        uintptr_t path[2] = {(uintptr_t)MON_KERNEL_KEY, leaf_key};

        if (cct_insert_path(td->tree, cct_node_parent(leaf), path, 2, &kleaf) != CCT_OK)
            return CCT_ENOMEM;
    }
    /* The sample is counted once: at the leaf when part of it ran there, else at [kernel]
     * (a signal whose periods all ended in the kernel leaves the leaf without one). */
    if (c->user == 0 ? cct_add_sample(td->tree, kleaf, ev, c->kernel) != CCT_OK
                     : cct_add_value(td->tree, kleaf, ev, c->kernel) != CCT_OK)
        return CCT_ENOMEM;
    l->recorded += c->kernel;
    l->kernel += c->kernel;
    if (c->user > 0 && cct_add_sample(td->tree, leaf, ev, c->user) != CCT_OK) {
        /* No room for the leaf's cell: the sample is the kernel part's (whose cell exists,
         * so this cannot fail), its user part dropped.  Tree and ledger stay in step. */
        cct_add_sample(td->tree, kleaf, ev, 0);
        l->dropped += c->user;
        return CCT_OK;
    }
    l->recorded += c->user;
    return CCT_OK;
}

static bool walk_and_charge(struct mon_thread *td, uint32_t ev, void *ucontext,
                            const struct mon_charge *c, bool synchronous, struct cct_node **leafp);

static void
take_sample(struct mon_thread *td, uint32_t ev, void *ucontext, const struct mon_charge *c,
            bool synchronous, struct cct_node **leafp)
{
    if (!walk_and_charge(td, ev, ucontext, c, synchronous, leafp))
        td->ledger[ev].dropped += c->user + c->kernel;
}

/*
 * take_sample's work; returns whether the sample was recorded.  The
 * trampoline's part is its protocol (tramp.h): begin, the walk, reconcile,
 * the insertion, commit.
 */
static bool
walk_and_charge(struct mon_thread *td, uint32_t ev, void *ucontext, const struct mon_charge *c,
                bool synchronous, struct cct_node **leafp)
{
    struct cct_node *leaf = NULL, *parent = NULL;
    enum tramp_walk walk;
    bool trampolining;
    int rc;

    td->bt.depth = 0;
    td->unw_masked = 0;
    td->in_unwind = 1;
    /* 0: no signal mask saved (a syscall per sample).  The fault handler is SA_NODEFER and
     * adds nothing to the mask, so after the escape the mask is this handler's again. */
    if (sigsetjmp(td->unwind_escape, 0) != 0) {
        /* Faulted walking or touching a return-address slot: stop trusting the trampoline. */
        td->in_unwind = 0;
        tramp_sample_abandon(&td->tramp);
        mon_count(td, MON_DROP_UNWIND_FAULT);
        return false;
    }
    trampolining = tramp_sample_begin(&td->tramp, uw_context_sp(ucontext), mon_omp_plain_walk(td),
                                      &td->bt.stop_ip);
    for (;;) {
        rc = uw_backtrace(ucontext, &td->bt);
        if (synchronous)
            drop_own_frames(&td->bt);
        walk = tramp_sample_reconcile(&td->tramp, &td->bt, rc, trampolining, &parent);
        if (walk != TRAMP_WALK_AGAIN)
            break;
        td->bt.stop_ip = 0; /* met where it was not installed: walk it all */
    }
    if (walk == TRAMP_WALK_DROP) {
        /* Interrupted inside tramp_on_return: its state is in flux, take nothing. */
        td->in_unwind = 0;
        mon_count(td, MON_DROP_IN_TRAMPOLINE);
        return false;
    }
    if (walk == TRAMP_WALK_SPLICE) {
        /* Complete when the walk that built the cached prefix reached the root
         * (td->shadow_rooted, kept from that walk). */
        rc = insert_spliced(td, parent, &leaf);
    } else {
        if (rc == UW_ETOODEEP) {
            /* The arena cannot hold the whole walk: a path cut at either end would be
             * charged to the wrong context, so the sample is dropped (and counted). */
            td->in_unwind = 0;
            mon_count(td, MON_DROP_NO_MEMORY);
            return false;
        }
        if (td->bt.depth == 0) {
            td->in_unwind = 0;
            mon_count(td, MON_DROP_NO_FRAMES);
            return false;
        }
        td->shadow_rooted = rc == UW_OK;
        if (!mon_omp_insert(td, &leaf, &rc)) /* OpenMP: below the creation context (omp_sig.c) */
            rc = insert_full(td, trampolining, &leaf);
    }
    td->in_unwind = 0;
    if (rc != CCT_OK || charge_sample(td, leaf, td->bt_keys[0], ev, c) != CCT_OK) {
        mon_count(td, MON_DROP_NO_MEMORY);
        return false;
    }
    td->event_samples[ev]++;
    mon_count(td, td->shadow_rooted ? MON_SAMPLE_OK : MON_SAMPLE_PARTIAL);
    if (leafp != NULL)
        *leafp = leaf;
    return true;
}

struct cct_node *
mon_take_sample_sync(struct mon_thread *td, uint32_t ev, void *ucontext, uint64_t value)
{
    struct mon_charge c = {.user = value, .kernel = 0};
    struct cct_node *leaf = NULL;

    take_sample(td, ev, ucontext, &c, true, &leaf);
    return leaf;
}

/*
 * Whether this signal's sample is dropped on purpose: CSPROF_DEBUG_DROP_EVERY=N
 * drops every Nth sample of each thread (samples.dropped.debug), so that
 * tests can check that known losses are reported as dropped, never as
 * anything else.
 */
static bool
debug_drop(struct mon_thread *td)
{
    return mon_proc.debug_drop_every > 0 &&
           td->handler_signals % mon_proc.debug_drop_every == mon_proc.debug_drop_every - 1;
}

/* Drop this signal's sample for @why: what the signal stood for goes to the ledger. */
static void
drop_charged(struct mon_thread *td, int ev, const siginfo_t *info, enum mon_outcome why)
{
    struct mon_charge c;

    mon_count(td, why);
    if (ev < 0)
        return;
    mon_source_charge(td, (uint32_t)ev, info, &c);
    td->ledger[ev].dropped += c.user + c.kernel;
}

void
mon_sample_handler(int sig, siginfo_t *info, void *ucontext)
{
    int saved_errno = errno; /* the interrupted code may be between a call and its errno check */
    struct mon_thread *td = mon_self;
    uint64_t t0 = 0, w0 = 0;
    int tfd = -1;
    bool timed;
    int ev;

    CSP_UNUSED(sig);
    if (td == NULL) {
        if (info->si_code != SI_QUEUE || info->si_value.sival_int != MON_SIGVAL_TRAMPOLINE_OFF)
            mon_count(NULL, MON_DROP_NO_THREAD);
        goto out_restore_errno;
    }
    if (info->si_code == SI_QUEUE && info->si_value.sival_int == MON_SIGVAL_TRAMPOLINE_OFF) {
        tramp_disable(&td->tramp); /* a request from pthread_cancel, not a sample */
        goto out_restore_errno;
    }
    /* The handler's own time, on one signal in MON_HANDLER_TIMED (the first, then one in 16),
     * by mon_timing_clock: never the thread's CPU clock, whose every read makes the kernel
     * update the scheduler's accounting and so moved the program's own ITIMER_PROF ticks
     * (rel_06 at 5 kHz on a shared CPU: 19-78 of 100). */
    timed = td->handler_signals % MON_HANDLER_TIMED == 0 && !mon_process_stopped();
    if (timed) {
        tfd = td->timing_fd;
        t0 = mon_timing_clock(tfd);
        w0 = td->writer_cpu_ns; /* a checkpoint's writing is the writer's, not the handler's */
    }
    ev = mon_source_event_of(td, info);
    if (td->inside) {
        drop_charged(td, ev, info, MON_DROP_REENTERED);
        goto out_rearm;
    }
    td->inside = 1;
    atomic_thread_fence(memory_order_seq_cst); /* orders `inside` against the finaliser */
    if (tramp_sample_blocked(&td->tramp, uw_context_pc(ucontext))) {
        drop_charged(td, ev, info, MON_DROP_IN_TRAMPOLINE);
    } else if (mon_in_own_code(uw_context_pc(ucontext))) {
        drop_charged(td, ev, info, MON_DROP_IN_MONITOR);
    } else if (ev < 0) {
        mon_count(td, MON_DROP_UNKNOWN_SOURCE);
    } else if (mon_process_stopped() || atomic_load(&td->state) != MON_THREAD_RUNNING) {
        /* (not charged: the sources are stopped and their ledger closed; the period is in
         * the remainder, with the signals still pending when sampling stopped) */
        mon_count(td, MON_DROP_STOPPED);
    } else if (debug_drop(td)) {
        drop_charged(td, ev, info, MON_DROP_DEBUG);
    } else {
        struct mon_charge c;
        int cancel_state;

        mon_source_charge(td, (uint32_t)ev, info, &c);
        if (c.user == 0 && c.kernel == 0) {
            td->signals_merged++; /* an earlier signal's sample took its periods */
        } else {
            /* libunwind may call read(2), a cancellation point: a pending cancel must not be
             * acted on inside this handler. */
            pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
            /* The walk finds unwind tables in this snapshot, never through the loader's
             * lock, and the sample's addresses are attributed to its modules
             * (loadmap_sig.c). */
            mon_snapshot_enter(td);
            take_sample(td, (uint32_t)ev, ucontext, &c, false, NULL);
            mon_snapshot_exit(td);
            mon_checkpoint_maybe(td);
            pthread_setcancelstate(cancel_state, NULL);
        }
    }
    atomic_thread_fence(memory_order_seq_cst); /* orders `inside` against the finaliser */
    td->inside = 0;
out_rearm:
    if (ev >= 0)
        mon_source_rearm(td, (uint32_t)ev, info);
    if (timed) {
        /* (not the descriptor once the finaliser may be closing the sources) */
        uint64_t t1 = mon_process_stopped() && tfd >= 0 ? UINT64_MAX : mon_timing_clock(tfd);
        uint64_t w = td->writer_cpu_ns - w0;
        uint64_t t = t0 != UINT64_MAX && t1 != UINT64_MAX && t1 > t0 ? t1 - t0 : 0;

        /* (less the reads' own cost, which the untimed signals do not pay) */
        w += td->clock_floor_ns;

        if (td->handler_signals == 0) { /* (counted apart: it would weigh as 16) */
            td->handler_first_ns = t > w ? t - w : 0;
        } else {
            td->handler_timed++;
            td->handler_timed_ns += t > w ? t - w : 0;
        }
    }
    td->handler_signals++;
out_restore_errno:
    errno = saved_errno;
}
