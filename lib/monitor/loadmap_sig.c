/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loadmap_sig.c -- the load-map snapshot as signal context reads it, and the
 * dl_iterate_phdr override that lets libunwind use it.
 *
 * libunwind finds a frame's unwind table with dl_iterate_phdr(3), which
 * takes the loader's lock.  When the sample interrupted code holding that
 * lock (dl_iterate_phdr, dladdr, dlopen, dlclose, a C++ throw, backtrace),
 * the walk waited for it forever.  libunwind calls dl_iterate_phdr through
 * its PLT, so the definition here is the one it uses: inside the calling
 * thread's stack walk it iterates the snapshot the sample entered
 * (mon_snapshot_enter), which takes no lock; everywhere else it is the
 * loader's.  A module not in the snapshot (loaded behind dlopen's back, by
 * glibc itself, or being loaded right now) has no unwind table for the walk:
 * such look-ups are counted, and the walk may end early.
 * Everything here runs in signal context except the override's outside-walk
 * path, which is the loader's function.
 */
#include <link.h>
#include <stdatomic.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"

void
mon_snapshot_enter(struct mon_thread *td)
{
    /* Count first, then load (both sequentially consistent): a refresh that saw no reader
     * after swapping the pointer is one whose new snapshot this load returns. */
    atomic_fetch_add(&mon_snapshot_readers, 1);
    td->snap = atomic_load(&mon_snapshot_current);
}

void
mon_snapshot_exit(struct mon_thread *td)
{
    td->snap = NULL;
    atomic_fetch_sub(&mon_snapshot_readers, 1);
}

void
mon_snapshot_keys(const struct mon_thread *td, const uintptr_t *addrs, uintptr_t *keys, size_t n)
{
    const struct mon_snapshot *s = td->snap;
    uint32_t last = 0; /* consecutive frames are often in the same module */

    for (size_t i = 0; i < n; i++) {
        uintptr_t a = addrs[i];

        if ((uint64_t)a > MON_KEY_OFFSET) /* no user-space address */
            keys[i] = (uintptr_t)((uint64_t)a | MON_KEY_MODULE | MON_KEY_RAW);
        else if (s != NULL)
            keys[i] = (uintptr_t)((uint64_t)a | (s->seq & 0xffff) << MON_KEY_ID_SHIFT);
        else
            keys[i] = a;
        if (s == NULL || s->nmodules == 0)
            continue;
        for (uint32_t j = 0; j < s->nmodules; j++) {
            uint32_t k = (last + j) % s->nmodules;
            const struct mon_snap_module *m = &s->modules[k];
            uint64_t off;

            if (a < m->start || a >= m->end)
                continue;
            off = (uint64_t)a - (uint64_t)m->info.dlpi_addr;
            if (m->id <= MON_KEY_ID_MAX && off <= MON_KEY_OFFSET)
                keys[i] = (uintptr_t)(MON_KEY_MODULE | (uint64_t)m->id << MON_KEY_ID_SHIFT | off);
            last = k;
            break;
        }
    }
}

/*
 * Override of dl_iterate_phdr(3).  Inside the calling thread's stack walk:
 * calls @cb on each module of the sample's snapshot, in the loader's order,
 * until it returns non-zero, and returns that value (0 after the last).
 * libunwind blocks signals around this call because the loader holds a lock
 * here; the snapshot holds none, so a fault in @cb (a module unmapped since
 * the snapshot) may still escape the walk.  Elsewhere: the loader's.
 * [async-signal-safe inside a walk]
 */
CSP_EXPORT int
dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
    struct mon_thread *td = mon_thread_self();
    const struct mon_snapshot *s;
    sig_atomic_t masked;
    int rc = 0;

    if (td == NULL || !td->in_unwind)
        return mon_loader_dl_iterate_phdr(cb, data);
    s = td->snap;
    if (s == NULL) { /* no snapshot could be built: no module, never the loader's lock */
        atomic_fetch_add_explicit(&mon_snapshot_nmisses, 1, memory_order_relaxed);
        return 0;
    }
    masked = td->unw_masked;
    td->unw_masked = 0;
    for (uint32_t i = 0; i < s->nmodules && rc == 0; i++) {
        struct dl_phdr_info info = s->modules[i].info; /* the callback may write it */

        rc = cb(&info, sizeof(info), data);
    }
    td->unw_masked = masked;
    if (rc == 0)
        atomic_fetch_add_explicit(&mon_snapshot_nmisses, 1, memory_order_relaxed);
    return rc;
}
