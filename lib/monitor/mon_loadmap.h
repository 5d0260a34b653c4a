/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_loadmap.h -- the monitor's load map (loadmap.c).  Not for signal context.
 */
#ifndef CSP_MON_LOADMAP_H
#define CSP_MON_LOADMAP_H

#include <stdint.h>

/* One module; path is owned by the load map and lives until process exit. */
struct mon_module {
    uint32_t id;
    uint32_t epoch;
    const char *path;
    uint8_t build_id[64];
    uint32_t build_id_len;
    uint64_t load_bias;  /* run-time address minus link-time address */
    uint64_t start, end; /* run-time [start, end) of the PT_LOAD segments */
};

/* Module containing run-time @addr: *id and module-relative *offset.  Returns 0 or -1 if none.
 * [not async-signal-safe: takes the load-map mutex] */
int mon_loadmap_lookup(uintptr_t addr, uint32_t *id, uint64_t *offset);
/* Copy up to @max modules (in id order) into @out; returns how many.  [not async-signal-safe] */
uint32_t mon_loadmap_copy(struct mon_module *out, uint32_t max);
/* Number of modules seen so far.  [not async-signal-safe] */
uint32_t mon_loadmap_size(void);
/* Current load-map epoch (0 at start, +1 per snapshot that found new modules). */
uint32_t mon_loadmap_epoch(void);

#endif /* CSP_MON_LOADMAP_H */
