/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sample_sync.c -- synchronous samples: bytes counted by overridden
 * functions, sampled every PERIOD bytes, charged to the caller's context.
 *
 * Sampling (the scheme of tcmalloc's heap sampler, gperftools
 * docs/heapprofile and tcmalloc/sampler.h): each thread keeps, per event, the
 * bytes left until its next sample.  A call of n bytes subtracts n; each
 * time the counter reaches zero it is refilled with an exponentially
 * distributed gap of mean PERIOD bytes, and the call is charged PERIOD
 * bytes per refill.  The sample points form a Poisson process over the
 * bytes, so the number of points falling in a call of n bytes has mean
 * n / PERIOD, and charging PERIOD per point is unbiased for every context.
 *
 * MEMLEAK keeps each sampled allocation (address, allocating context,
 * charge) in a process-wide lock-free table; free removes it; when a
 * thread's profile is written (thread exit or process exit), the ones the
 * thread allocated and nobody freed are charged to their contexts.
 *
 * Ordinary context: runs inside the program's calls of the overridden
 * functions, never inside the sampling handler (which sets td->inside, and
 * then overrides only forward).  While a sample walks, every asynchronous
 * signal is blocked (a raw rt_sigprocmask: the program's handlers must not
 * run in the middle of the walk's state) and the sampling signal that
 * arrives meanwhile is dropped as re-entered when it is delivered.  Nothing
 * here calls malloc; libunwind's allocations during the walk find `inside`
 * set and are not sampled.
 */
#define UNW_LOCAL_ONLY
#include <errno.h>
#include <libunwind.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cct/cct.h"
#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"
#include "monitor/mon_nonlocal.h"
#include "monitor/mon_sync.h"
#include "monitor/mon_write.h"

/* The byte events' source: no per-thread start or stop and no signal hooks; the overrides
 * (src_alloc.c, src_io.c) take the samples through mon_sync_account. */
const struct mon_source mon_source_sync = {
    .mechanism = "synchronous",
};

int mon_sync_event[MON_SYNC_NKINDS] = {-1, -1, -1, -1, -1};
bool mon_sync_alloc_on, mon_sync_io_on;

static const char *const kind_names[MON_SYNC_NKINDS] = {
    [MON_SYNC_MEMALLOC] = "MEMALLOC", [MON_SYNC_MEMLEAK] = "MEMLEAK",   [MON_SYNC_IO] = "IO",
    [MON_SYNC_IO_READ] = "IO_READ",   [MON_SYNC_IO_WRITE] = "IO_WRITE",
};

/* Per-thread sampler state.  Zero (unseeded) in a new thread. */
struct sync_thread {
    bool seeded;
    uint64_t rng;                  /* xorshift64* state, never 0 once seeded */
    int64_t left[MON_SYNC_NKINDS]; /* bytes until the next sample of each kind */
};
static CSP_TLS struct sync_thread sync_self;

int
mon_sync_kind_of(const char *name)
{
    for (int k = 0; k < MON_SYNC_NKINDS; k++)
        if (strcmp(name, kind_names[k]) == 0)
            return k;
    return -1;
}

/* ---- the sampler ---- */

/* xorshift64* (Vigna, "An experimental exploration of Marsaglia's xorshift generators"). */
static uint64_t
next_random(struct sync_thread *st)
{
    st->rng ^= st->rng >> 12;
    st->rng ^= st->rng << 25;
    st->rng ^= st->rng >> 27;
    return st->rng * 0x2545F4914F6CDD1Dull;
}

/* An exponentially distributed gap of mean @period bytes, at least 1. */
static int64_t
next_gap(struct sync_thread *st, uint64_t period)
{
    double u = (double)((next_random(st) >> 11) + 1) * 0x1.0p-53; /* (0, 1] */
    double gap = -log(u) * (double)period;

    if (gap < 1.0)
        return 1;
    return gap > 0x1.0p62 ? (int64_t)1 << 62 : (int64_t)gap;
}

static void
seed(struct sync_thread *st)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    st->rng = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
              ((uint64_t)syscall(SYS_gettid) * 0x9E3779B97F4A7C15ull);
    if (st->rng == 0)
        st->rng = 1;
    for (int k = 0; k < MON_SYNC_NKINDS; k++)
        if (mon_sync_event[k] >= 0)
            st->left[k] = next_gap(st, mon_proc.events[mon_sync_event[k]].period);
    st->seeded = true;
}

/* Subtract @bytes from kind @k's counter; return the bytes to charge (PERIOD per crossing). */
static uint64_t
crossings(struct sync_thread *st, int k, uint64_t bytes)
{
    uint64_t period, n = 0;

    if (k < 0 || mon_sync_event[k] < 0)
        return 0;
    if (bytes > ((uint64_t)1 << 62))
        bytes = (uint64_t)1 << 62;
    st->left[k] -= (int64_t)bytes;
    if (st->left[k] > 0)
        return 0;
    period = mon_proc.events[mon_sync_event[k]].period;
    while (st->left[k] <= 0) {
        st->left[k] += next_gap(st, period);
        n++;
    }
    return n * period;
}

/* ---- MEMLEAK: the table of sampled live allocations ---- */

/*
 * Open addressing with at most LEAK_PROBES probes from the hash, so a free
 * costs a bounded number of loads however many removals have left
 * tombstones.  A key is the block's address, or one of the markers below.
 * An insertion claims a slot by CAS to LEAK_BUSY, fills the value, then
 * publishes the address; a removal CASes the address to LEAK_GONE, so each
 * entry is either freed or charged, exactly once.
 *
 * Most frees are of blocks that were never sampled, and a probe of the
 * 1 MiB key array is a cache miss: a counting filter (16-bit counters, 64
 * KiB, indexed by other bits of the hash) answers them first.  A counter
 * is raised before its entry is published and lowered after the entry is
 * removed, so a zero counter means no entry of that hash is in the table.
 */
#define LEAK_SLOTS  ((size_t)1 << 17)
#define LEAK_PROBES 16
#define LEAK_EMPTY  ((uintptr_t)0)
#define LEAK_BUSY   ((uintptr_t)1)
#define LEAK_GONE   ((uintptr_t)2)
#define LEAK_FILTER ((size_t)1 << 15)

struct leak_value {
    struct mon_thread *owner; /* thread whose tree holds leaf */
    struct cct_node *leaf;    /* allocating context */
    uint64_t bytes;           /* charge (PERIOD per crossing) */
};

static _Atomic uintptr_t *leak_keys;
static struct leak_value *leak_values;
static _Atomic uint16_t *leak_filter;
static atomic_long leak_live; /* entries published and not yet removed */

static size_t
leak_hash(uintptr_t addr)
{
    return (size_t)(((uint64_t)addr >> 4) * 0x9E3779B97F4A7C15ull >> 47) & (LEAK_SLOTS - 1);
}

static _Atomic uint16_t *
leak_counter(uintptr_t addr)
{
    return &leak_filter[(size_t)(((uint64_t)addr >> 4) * 0xC2B2AE3D27D4EB4Full >> 49) &
                        (LEAK_FILTER - 1)];
}

static bool
leak_insert(struct mon_thread *td, const void *addr, struct cct_node *leaf, uint64_t bytes)
{
    size_t h = leak_hash((uintptr_t)addr);

    if (leak_keys == NULL || (uintptr_t)addr <= LEAK_GONE)
        return false;
    if (atomic_load(leak_counter((uintptr_t)addr)) == UINT16_MAX)
        return false; /* 65535 live entries under one counter: cannot happen in practice */
    atomic_fetch_add(leak_counter((uintptr_t)addr), 1);
    for (size_t i = 0; i < LEAK_PROBES; i++) {
        size_t s = (h + i) & (LEAK_SLOTS - 1);
        uintptr_t k = atomic_load(&leak_keys[s]);

        if ((k == LEAK_EMPTY || k == LEAK_GONE) &&
            atomic_compare_exchange_strong(&leak_keys[s], &k, LEAK_BUSY)) {
            leak_values[s] = (struct leak_value){td, leaf, bytes};
            atomic_fetch_add(&leak_live, 1);
            atomic_store(&leak_keys[s], (uintptr_t)addr);
            return true;
        }
    }
    atomic_fetch_sub(leak_counter((uintptr_t)addr), 1);
    return false;
}

void
mon_sync_forget(const void *addr)
{
    size_t h;

    if (addr == NULL || leak_keys == NULL || atomic_load(leak_counter((uintptr_t)addr)) == 0)
        return;
    h = leak_hash((uintptr_t)addr);
    for (size_t i = 0; i < LEAK_PROBES; i++) {
        size_t s = (h + i) & (LEAK_SLOTS - 1);
        uintptr_t k = atomic_load_explicit(&leak_keys[s], memory_order_acquire);

        if (k == LEAK_EMPTY)
            return;
        if (k == (uintptr_t)addr) {
            if (atomic_compare_exchange_strong(&leak_keys[s], &k, LEAK_GONE)) {
                atomic_fetch_sub(&leak_live, 1);
                atomic_fetch_sub(leak_counter((uintptr_t)addr), 1);
            }
            return;
        }
    }
}

void
mon_sync_charge_leaks(struct mon_thread *td)
{
    int ev = mon_sync_event[MON_SYNC_MEMLEAK];

    if (ev < 0 || leak_keys == NULL || td->tree == NULL)
        return;
    for (size_t s = 0; s < LEAK_SLOTS && atomic_load(&leak_live) > 0; s++) {
        uintptr_t k = atomic_load(&leak_keys[s]);
        struct leak_value v;

        if (k <= LEAK_GONE)
            continue;
        v = leak_values[s]; /* published before the key (seq_cst store) */
        if (v.owner != td || !atomic_compare_exchange_strong(&leak_keys[s], &k, LEAK_GONE))
            continue;
        atomic_fetch_sub(&leak_live, 1);
        atomic_fetch_sub(leak_counter(k), 1);
        /* (the allocation's sample was counted when it was taken) */
        if (cct_add_value(td->tree, v.leaf, (uint32_t)ev, v.bytes) != CCT_OK)
            mon_count(td, MON_DROP_NO_MEMORY);
    }
}

void
mon_sync_after_fork(void)
{
    if (leak_keys == NULL)
        return;
    for (size_t s = 0; s < LEAK_SLOTS; s++)
        atomic_store_explicit(&leak_keys[s], LEAK_EMPTY, memory_order_relaxed);
    for (size_t i = 0; i < LEAK_FILTER; i++)
        atomic_store_explicit(&leak_filter[i], 0, memory_order_relaxed);
    atomic_store(&leak_live, 0);
}

void
mon_sync_init(void)
{
    for (int k = 0; k < MON_SYNC_NKINDS; k++)
        mon_sync_event[k] = -1;
    for (uint32_t i = 0; i < mon_proc.nevents; i++)
        if (mon_proc.events[i].src == &mon_source_sync) {
            int k = mon_sync_kind_of(mon_proc.events[i].name);

            if (k >= 0)
                mon_sync_event[k] = (int)i;
        }
    if (mon_sync_event[MON_SYNC_MEMLEAK] >= 0) {
        size_t kb = LEAK_SLOTS * sizeof(*leak_keys), vb = LEAK_SLOTS * sizeof(*leak_values);
        size_t fb = LEAK_FILTER * sizeof(*leak_filter);
        void *p =
            mmap(NULL, kb + vb + fb, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        if (p != MAP_FAILED) {
            leak_values = (struct leak_value *)p;
            leak_filter = (void *)((char *)p + vb); /* (both offsets are multiples of 8) */
            leak_keys = (void *)((char *)p + vb + fb);
        }
        pthread_atfork(NULL, NULL, mon_sync_after_fork);
    }
    mon_sync_alloc_on =
        mon_sync_event[MON_SYNC_MEMALLOC] >= 0 || mon_sync_event[MON_SYNC_MEMLEAK] >= 0;
    mon_sync_io_on = mon_sync_event[MON_SYNC_IO] >= 0 || mon_sync_event[MON_SYNC_IO_READ] >= 0 ||
                     mon_sync_event[MON_SYNC_IO_WRITE] >= 0;
}

/* ---- one sample ---- */

/*
 * Walk from here and charge @charge_a bytes to kind @a and @charge_b to @b
 * (either may be 0) at the caller's context.  td->inside is set.  Kept out
 * of line so that its context (unw_getcontext) is a frame of its own, below
 * which everything is csprof's and dropped by the walk.
 */
static CSP_NOINLINE void
sample_here(struct mon_thread *td, int a, uint64_t charge_a, int b, uint64_t charge_b,
            const void *addr)
{
    int first = charge_a > 0 ? a : b, second = charge_a > 0 && charge_b > 0 ? b : -1;
    uint64_t leak = a == MON_SYNC_MEMLEAK ? charge_a : b == MON_SYNC_MEMLEAK ? charge_b : 0;
    /* MEMLEAK's bytes are charged when the profile is written, if the block is still live. */
    uint64_t first_value = first == MON_SYNC_MEMLEAK ? 0 : charge_a > 0 ? charge_a : charge_b;
    uint64_t second_value = second == MON_SYNC_MEMLEAK ? 0 : charge_b;
    struct cct_node *leaf;
    unw_context_t uc;

    if (unw_getcontext(&uc) != 0)
        return;
    mon_snapshot_enter(td);
    leaf = mon_take_sample_sync(td, (uint32_t)mon_sync_event[first], &uc, first_value);
    mon_snapshot_exit(td);
    if (leaf == NULL)
        return;
    /* (one sample, two events: counted once in the tree, once per event in event.NAME.samples) */
    if (second >= 0 &&
        cct_add_value(td->tree, leaf, (uint32_t)mon_sync_event[second], second_value) == CCT_OK)
        td->event_samples[mon_sync_event[second]]++;
    if (leak > 0 && !leak_insert(td, addr, leaf, leak))
        mon_count(td, MON_DROP_NO_MEMORY); /* no free slot near its hash: this block goes unseen */
    mon_checkpoint_maybe(td);
}

void
mon_sync_account(int a, int b, uint64_t bytes, const void *addr, uintptr_t caller)
{
    struct mon_thread *td = mon_thread_self();
    struct sync_thread *st = &sync_self;
    uint64_t charge_a, charge_b;
    sigset_t block, old;
    int saved_errno, cancel_state;

    if (td == NULL || td->inside || !mon_proc.active || mon_in_own_code(caller))
        return;
    if (!st->seeded)
        seed(st);
    charge_a = crossings(st, a, bytes);
    charge_b = crossings(st, b, bytes);
    if (charge_a == 0 && charge_b == 0)
        return;
    saved_errno = errno;
    /* Every asynchronous signal blocked during the walk; the synchronous ones stay open so
     * that a fault in the walk reaches mon_fault_handler (which escapes the walk). */
    sigfillset(&block);
    sigdelset(&block, SIGSEGV);
    sigdelset(&block, SIGBUS);
    sigdelset(&block, SIGILL);
    sigdelset(&block, SIGFPE);
    sigdelset(&block, SIGTRAP);
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, &block, &old, (size_t)(_NSIG / 8));
    td->inside = 1;
    atomic_thread_fence(memory_order_seq_cst); /* orders `inside` against the finaliser */
    if (!mon_process_stopped() && atomic_load(&td->state) == MON_THREAD_RUNNING &&
        td->tree != NULL) {
        /* libunwind may read(2), a cancellation point: no cancellation inside the walk. */
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
        sample_here(td, a, charge_a, b, charge_b, addr);
        pthread_setcancelstate(cancel_state, NULL);
    } else {
        mon_count(td, MON_DROP_STOPPED);
    }
    /* A sampling signal that arrived meanwhile is delivered as the mask opens, with `inside`
     * still set: dropped as re-entered, its time charged to the next sample. */
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, (size_t)(_NSIG / 8));
    atomic_thread_fence(memory_order_seq_cst);
    td->inside = 0;
    errno = saved_errno;
}
