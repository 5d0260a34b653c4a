/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_sync.h -- synchronous sample sources: samples taken in ordinary
 * context, from inside an overridden function, at the caller's calling
 * context, with a cost in bytes (MEMALLOC, MEMLEAK, IO, IO_READ, IO_WRITE).
 *
 * No signal is involved.  An override counts the bytes of each call into a
 * per-thread counter per event; when the counter crosses a randomised
 * threshold (exponential gaps with mean PERIOD bytes, as tcmalloc samples
 * allocations), sample_sync.c walks the stack from where it is, drops
 * csprof's own frames, and charges PERIOD bytes per crossing to the
 * program's context: an unbiased estimate of the bytes per context whose
 * cost is one walk per PERIOD bytes.
 *
 * The overrides (src_alloc.c, src_io.c) call mon_sync_account(); everything
 * here is [not async-signal-safe] unless marked, and never runs inside the
 * sampling handler: the handler sets td->inside, which makes an override
 * forward to the real function without sampling.
 */
#ifndef CSP_MON_SYNC_H
#define CSP_MON_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/compiler.h"

struct cct_node;
struct mon_thread;

/* The synchronous events, in the order of the per-thread counters. */
enum mon_sync_kind {
    MON_SYNC_MEMALLOC = 0, /* bytes allocated */
    MON_SYNC_MEMLEAK,      /* bytes allocated and not freed when the profile is written */
    MON_SYNC_IO,           /* bytes read plus bytes written */
    MON_SYNC_IO_READ,      /* bytes read */
    MON_SYNC_IO_WRITE,     /* bytes written */
    MON_SYNC_NKINDS
};

/*
 * Event index (in mon_proc.events) of each kind, -1 when not requested.
 * Set once by mon_sync_init before sampling starts, read-only afterwards.
 */
extern int mon_sync_event[MON_SYNC_NKINDS];

/* Whether any allocation event (MEMALLOC, MEMLEAK) / IO event is requested. */
extern bool mon_sync_alloc_on, mon_sync_io_on;

/*
 * The synchronous kind of event @name, or -1 for an event that is not
 * synchronous.  [async-signal-safe]
 */
int mon_sync_kind_of(const char *name);

/*
 * Find the requested synchronous events in mon_proc.events (parsed by
 * monitor.c).  Call once, in the constructor, before the first thread
 * starts sampling.  [not async-signal-safe]
 */
void mon_sync_init(void);

/*
 * Account @bytes of one call of kind @a (and, when @b >= 0, of kind @b:
 * IO charges IO and IO_READ with one walk) at the caller's calling context.
 * @addr is the allocation's address (MEMLEAK keeps sampled ones until they
 * are freed), else NULL.  Returns at once when no event of these kinds is
 * on, the thread has no profile, csprof code is running on this thread, or
 * the call comes from csprof itself (@caller, the override's return
 * address, lies in libcsprof).  Preserves errno.  [not async-signal-safe]
 */
void mon_sync_account(int a, int b, uint64_t bytes, const void *addr, uintptr_t caller);

/*
 * Forget the sampled allocation at @addr (free, realloc): it is not a
 * leak.  Cheap when MEMLEAK is off or @addr was not sampled.
 * [async-signal-safe: lock-free table]
 */
void mon_sync_forget(const void *addr);

/*
 * Charge every sampled allocation of @td's thread still live now to the
 * MEMLEAK metric of its allocating context, and forget them.  Called by the
 * thread that writes @td's profile, with @td quiesced (no sample can run on
 * it), just before the profile is written.  [async-signal-safe]
 */
CSP_SIGSAFE void mon_sync_charge_leaks(struct mon_thread *td);

/* After fork, in the child: the parent's sampled allocations are not this process's. */
void mon_sync_after_fork(void);

/*
 * The walk of a synchronous sample (sample_sig.c's take_sample, shared with
 * the sampling handler): walk from @ucontext (an unw_getcontext context of
 * the sampling function), drop the leading frames in csprof's own code,
 * insert the path (reusing the trampoline's cached prefix), and add @value
 * to metric @ev of the leaf.  Returns the leaf, or NULL when the sample was
 * dropped (counted).  The caller has set td->inside and entered the load-map
 * snapshot.  [async-signal-safe]
 */
CSP_SIGSAFE struct cct_node *mon_take_sample_sync(struct mon_thread *td, uint32_t ev,
                                                  void *ucontext, uint64_t value);

#endif /* CSP_MON_SYNC_H */
