/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_output.h -- the process's measurement file's state, private to its
 * writer: write.c (opening, the fork child's new file, the load map's
 * publication, the MPI rename) and record_sig.c (the records, from the
 * handler).  Everyone else goes through mon_write.h's functions; the layering
 * test checks that no other file includes this header.
 */
#ifndef CSP_MON_OUTPUT_H
#define CSP_MON_OUTPUT_H

#include <stdatomic.h>
#include <sys/types.h>

#include "fmt/fmt.h"
#include "monitor/mon_internal.h"
#include "monitor/mon_write.h"

/* The process's measurement file; set up outside signal context, read by the writers. */
struct mon_output {
    atomic_int fd; /* the file, at a high number, close-on-exec; -1 when none */
    int dirfd;     /* the measurement directory, O_NOFOLLOW-opened, close-on-exec */
    dev_t dev;     /* identity of the file, to notice the program closing our fd */
    ino_t ino;
    atomic_uint_fast64_t end;       /* next free byte of the file (records are appended there) */
    char name[MON_OUTPUT_NAME_MAX]; /* file name inside the directory */
    char path[4096 + 512];          /* absolute path (for re-opening) */
    char drop_stat[FMT_NDROP_REASONS][48]; /* "samples.dropped.REASON", prepared likewise */
    char event_stat[8][160];               /* "event.NAME.samples", prepared at open time */
    char event_enabled_stat[8][160];       /* "event.NAME.enabled_ns" (perf events) */
    char event_running_stat[8][160];       /* "event.NAME.running_ns" (perf events) */
    /* the ledger (struct mon_ledger): "event.NAME.measured", .recorded, .kernel, .dropped,
     * .unplaced, .tail (signal-driven events) */
    char event_ledger_stat[8][MON_LEDGER_FIELDS][160];
    struct mon_map_buf *map[2];
    atomic_uint map_active;        /* index of the buffer the writers read */
    atomic_uint_fast64_t lost;     /* records that could not be written */
    atomic_uint_fast64_t reopened; /* times the file descriptor was found closed and re-opened */
    atomic_int map_frozen; /* 1: writers use the published load map as is (a fatal-signal path
                            * sets it: publishing takes the load-map mutex) */
};

extern struct mon_output mon_out;

#endif /* CSP_MON_OUTPUT_H */
