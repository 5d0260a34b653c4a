/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_loadmap.h -- the monitor's load map (loadmap.c) and the snapshot of
 * the live modules that signal context reads (loadmap_sig.c).
 *
 * The load map keeps every module seen since start (ordinary context, one
 * mutex).  The snapshot lists the modules mapped now, with copies of their
 * program headers and names; each refresh publishes a new one by pointer.
 * A sample reads one snapshot from start to end (mon_snapshot_enter/exit):
 * its stack walk finds unwind tables there instead of in the loader (whose
 * lock the interrupted code may hold) and its addresses are attributed to
 * the modules of that snapshot.  Old snapshots are freed only when no
 * sample is reading any.
 */
#ifndef CSP_MON_LOADMAP_H
#define CSP_MON_LOADMAP_H

#include <link.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt/fmt.h"
#include "support/compiler.h"

/* The load map's modules are the measurement file's module records (struct fmt_module, one
 * type from the map to the file): their path and build-id bytes are owned by the load map,
 * allocated when the module is first seen (never in a handler), and live until process exit,
 * so a copy of a record stays valid wherever it goes (the published map, a writer's scratch). */
#define MON_BUILD_ID_MAX 64 /* longest GNU build-id kept, in bytes (a longer note: none) */

/* Module containing run-time @addr: *id and module-relative *offset.  Returns 0, or -1 if no
 * module or more than one (a reused range) ever contained it.
 * [not async-signal-safe: takes the load-map mutex] */
int mon_loadmap_lookup(uintptr_t addr, uint32_t *id, uint64_t *offset);
/* Copy up to @max modules (in id order) into @out; returns how many.  [not async-signal-safe] */
uint32_t mon_loadmap_copy(struct fmt_module *out, uint32_t max);
/* Number of modules seen so far.  [not async-signal-safe] */
uint32_t mon_loadmap_size(void);
/* Current load-map epoch (0 at start, +1 per snapshot that found new modules). */
uint32_t mon_loadmap_epoch(void);

/* One mapped module of a snapshot. */
struct mon_snap_module {
    struct dl_phdr_info info; /* as the loader reported it; phdr and name point into the
                               * snapshot, dlpi_tls_data is NULL (it is per thread) */
    uint32_t id;              /* load-map module id */
    uint64_t start, end;      /* run-time [start, end) of the PT_LOAD segments */
};

/* The modules mapped at one refresh, in the loader's order; immutable once published. */
struct mon_snapshot {
    struct mon_snapshot *retired_next; /* list of replaced snapshots waiting to be freed */
    uint64_t seq;                      /* 1 for the first snapshot published, then +1 each */
    uint32_t nmodules;
    struct mon_snap_module modules[];
};

/* Shared by loadmap.c (writer) and loadmap_sig.c (readers); sequentially consistent. */
extern _Atomic(struct mon_snapshot *) mon_snapshot_current; /* NULL before the first refresh */
extern atomic_uint_fast64_t mon_snapshot_readers;           /* samples between enter and exit */
extern atomic_uint_fast64_t mon_snapshot_nmisses;           /* walk look-ups that found no module */

struct mon_thread;

/*
 * Start reading the current snapshot for one sample: td->snap is set and
 * stays valid until mon_snapshot_exit.  Not nested.  [async-signal-safe]
 */
CSP_SIGSAFE void mon_snapshot_enter(struct mon_thread *td);
/* End the reading started by mon_snapshot_enter.  [async-signal-safe] */
CSP_SIGSAFE void mon_snapshot_exit(struct mon_thread *td);

/*
 * CCT keys of @n run-time addresses, through td->snap (inside
 * mon_snapshot_enter): an address in a module of the snapshot becomes
 * MON_KEY_MODULE | id << MON_KEY_ID_SHIFT | module-relative offset, so a
 * module loaded later at the same address gets other keys.  Any other
 * user-space address (below 2^47; a module being loaded, one glibc loaded
 * itself) becomes address | (snapshot seq mod 2^16) << MON_KEY_ID_SHIFT:
 * mon_key_decode gives it to the first module that appeared after that
 * snapshot and contains it.  Any address at or above 2^47 (the vsyscall
 * page, garbage from a failed step) gets bit 63 and every id bit set,
 * MON_KEY_MODULE | MON_KEY_RAW, so it never reads as a module's key.
 * [async-signal-safe]
 */
CSP_SIGSAFE void mon_snapshot_keys(const struct mon_thread *td, const uintptr_t *addrs,
                                   uintptr_t *keys, size_t n);

#define MON_KEY_MODULE   ((uint64_t)1 << 63)
#define MON_KEY_ID_SHIFT 47
#define MON_KEY_ID_MAX   0xfffeu                                 /* ids above are not encoded */
#define MON_KEY_RAW      ((uint64_t)0xffff << MON_KEY_ID_SHIFT)  /* with MON_KEY_MODULE: raw */
#define MON_KEY_OFFSET   (((uint64_t)1 << MON_KEY_ID_SHIFT) - 1) /* offsets at or above: raw */
/* The CCT key of the [kernel] leaf (sample_sig.c): a raw key, written as module none at
 * FMT_KERNEL_OFFSET (share/schemas/measurement-format.md). */
#define MON_KERNEL_KEY ((uintptr_t)FMT_KERNEL_OFFSET)
_Static_assert((FMT_KERNEL_OFFSET & (MON_KEY_MODULE | MON_KEY_RAW)) ==
                   (MON_KEY_MODULE | MON_KEY_RAW),
               "the kernel's key must read as a raw key");

/*
 * Module id and module-relative offset of a CCT key (see mon_snapshot_keys).
 * An address taken outside the snapshot goes to the first module that appeared in a later
 * snapshot and contains it, else to the one module that ever contained it (mon_loadmap_lookup).
 * Returns 0, or -1 when no module contains it (or the key names no module).
 * [not async-signal-safe]
 */
int mon_key_decode(uintptr_t key, uint32_t *id, uint64_t *offset);

/* The run-time address of a key that names no module (the key itself for a module's key).
 * [not async-signal-safe: ordinary context only, though it takes no lock] */
uintptr_t mon_key_address(uintptr_t key);

/*
 * The loader's dl_iterate_phdr(3): the real one (mon_real_dl_iterate_phdr, overrides.c),
 * resolved on first use.  [not async-signal-safe: the loader's lock]
 */
int mon_loader_dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data);

/* In a fork child: the load map's and the loader overrides' locks are free again, no other
 * thread reads a snapshot, and a fresh one is taken.  [not async-signal-safe] */
void mon_loadmap_after_fork(void);
/* In a fork child: release the lock dlopen/dlclose hold (overrides.c).  [not async-signal-safe] */
void mon_loader_lock_reset(void);
/* dlopen/dlclose calls that gave up waiting for that lock (overrides.c).  [not async-signal-safe] */
uint64_t mon_loader_lock_timeouts(void);
/*
 * dlopen(@file, @mode) through @real (glibc's dlopen) as if called from
 * @caller, an address in the object that called the dlopen override: a bare
 * name is searched in that object's run paths (DT_RPATH, DT_RUNPATH, as
 * ld.so(8) orders them) before glibc's own search, which would use
 * libcsprof.so's.  Returns the handle, or NULL with dlerror(3) set by the
 * last attempt (dlopen_caller.c).  [not async-signal-safe]
 */
void *mon_dlopen_as_caller(void *(*real)(const char *, int), const char *file, int mode,
                           const void *caller);

/* Counters (process-wide, for the main thread's profile). */
/* Walk look-ups (dl_iterate_phdr inside a sample) that found no module of the snapshot. */
uint64_t mon_snapshot_misses(void);
/* Snapshots published since start. */
uint64_t mon_snapshot_count(void);

/* Load map (loadmap.c).  Take a snapshot now (outside signal context only). */
void mon_loadmap_refresh(void);

#endif /* CSP_MON_LOADMAP_H */
