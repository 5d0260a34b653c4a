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

int
uw_backtrace(void *ucontext, struct uw_backtrace *bt)
{
    unw_cursor_t cursor;
    int rc;

    bt->depth = 0;
    if (unw_init_local2(&cursor, (unw_context_t *)ucontext, UNW_INIT_SIGNAL_FRAME) < 0)
        return UW_EINIT;
    for (;;) {
        unw_word_t ip, sp;

        if (bt->depth == bt->max)
            return UW_ETOODEEP;
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0)
            return bt->depth > 0 ? UW_OK : UW_EPARTIAL;
        bt->ips[bt->depth] = (uintptr_t)ip;
        if (bt->sps != NULL) {
            unw_get_reg(&cursor, UNW_REG_SP, &sp);
            bt->sps[bt->depth] = (uintptr_t)sp;
        }
        bt->depth++;
        rc = unw_step(&cursor);
        if (rc == 0)
            return UW_OK;
        if (rc < 0)
            return UW_EPARTIAL;
        if (bt->ra_locs != NULL) {
            unw_save_loc_t loc;

            /* After the step, the cursor's IP is the return address into the
             * caller; where the callee saved it is what the trampoline needs. */
            if (bt->depth < bt->max)
                bt->ra_locs[bt->depth] =
                    unw_get_save_loc(&cursor, UNW_REG_IP, &loc) == 0 && loc.type == UNW_SLT_MEMORY
                        ? (uintptr_t)loc.u.addr
                        : 0;
        }
    }
}
