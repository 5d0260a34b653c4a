/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uw_sig.c -- stack walks with libunwind, called from the sampling handler.
 *
 * Runs in signal context.  libunwind's local unwinder does not allocate on
 * this path once caches are per-thread (uw_init); it may take the loader's
 * lock through dl_iterate_phdr, which is why the monitor drops samples taken
 * while the same thread is inside dlopen/dlclose.
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <ucontext.h>

#include "unwind/arch/uw_arch.h"
#include "unwind/uw.h"

void
uw_init(void)
{
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
}

uintptr_t
uw_context_pc(const void *ucontext)
{
    return uw_arch_context_pc(ucontext);
}

uintptr_t
uw_context_sp(const void *ucontext)
{
    return uw_arch_context_sp(ucontext);
}

int
uw_backtrace(void *ucontext, struct uw_backtrace *bt)
{
    unw_cursor_t cursor;
    uintptr_t loc = 0;      /* where the current frame's pc was read from (0: the context) */
    uintptr_t prev_loc = 0; /* loc of the last frame recorded */
    int rc;

    bt->depth = 0;
    bt->stop_loc = 0;
    if (unw_init_local2(&cursor, (unw_context_t *)ucontext, UNW_INIT_SIGNAL_FRAME) < 0)
        return UW_EINIT;
    for (;;) {
        unw_word_t ip, sp;
        unw_save_loc_t save;

        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0)
            return bt->depth > 0 ? UW_OK : UW_EPARTIAL;
        if (bt->depth > 0 && bt->stop_ip != 0 && (uintptr_t)ip == bt->stop_ip) {
            bt->stop_loc = loc;
            return UW_STOPPED;
        }
        /* Two frames never read their return address from the same stack slot.  libunwind
         * 1.6.2's frame-pointer fallback, for a frame without unwind information (generated
         * code), takes the caller's pc from [rbp+8] but leaves its stack pointer at rbp, so
         * the next step finds the same pc in the same slot: that is one frame, whose stack
         * pointer is the later one. */
        if (bt->depth > 0 && loc != 0 && loc == prev_loc &&
            (uintptr_t)ip == bt->ips[bt->depth - 1]) {
            if (bt->sps != NULL && unw_get_reg(&cursor, UNW_REG_SP, &sp) == 0)
                bt->sps[bt->depth - 1] = (uintptr_t)sp;
            goto step;
        }
        if (bt->depth == bt->max &&
            (bt->grow == NULL || bt->grow(bt, bt->grow_arg) < 0 || bt->depth >= bt->max))
            return UW_ETOODEEP;
        bt->ips[bt->depth] = (uintptr_t)ip;
        if (bt->sps != NULL) {
            unw_get_reg(&cursor, UNW_REG_SP, &sp);
            bt->sps[bt->depth] = (uintptr_t)sp;
        }
        if (bt->ra_locs != NULL)
            bt->ra_locs[bt->depth] = loc;
        if (bt->sigframe != NULL)
            bt->sigframe[bt->depth] = unw_is_signal_frame(&cursor) > 0;
        bt->depth++;
        prev_loc = loc;
    step:
        rc = unw_step(&cursor);
        if (rc == 0)
            return UW_OK;
        if (rc < 0)
            return UW_EPARTIAL;
        /* After the step the cursor's pc is the return address into the caller; where the
         * callee had saved it is what the trampoline rewrites. */
        loc = unw_get_save_loc(&cursor, UNW_REG_IP, &save) == 0 && save.type == UNW_SLT_MEMORY
                  ? (uintptr_t)save.u.addr
                  : 0;
    }
}

int
uw_backtrace_here(struct uw_backtrace *bt)
{
    unw_context_t uc;

    if (unw_getcontext(&uc) < 0)
        return UW_EINIT;
    return uw_backtrace(&uc, bt);
}
