/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_write.h -- the process's measurement file (write.c, record_sig.c).
 *
 * Each process appends every thread's profile, as one complete record, to
 * one file OUTDIR/PROG-PID.cspm, opened once (in the constructor and in a
 * fork child) relative to a directory descriptor, 0600, O_EXCL|O_NOFOLLOW,
 * and kept at a high descriptor number with close-on-exec.  A record is
 * serialised in mmap'd memory, then written with one pwrite(2) at an offset
 * reserved with an atomic add: no lock, no new descriptor, no malloc.  A
 * running thread's sampling handler writes a checkpoint of its own tree
 * every flush period into one of two slots of its own, so a killed run
 * keeps what the last checkpoints held, and the file stays bounded
 * (measurement-format.md, "Records").
 */
#ifndef CSP_MON_WRITE_H
#define CSP_MON_WRITE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "monitor/mon_loadmap.h"
#include "support/compiler.h"

struct mon_thread;

#define MON_MAX_MODULES 4096

/* The published load map: two buffers, the handler reads the active one (seq even = stable). */
struct mon_map_buf {
    atomic_uint seq; /* odd while the publisher writes this buffer */
    uint32_t n;
    struct mon_module mods[MON_MAX_MODULES];
};

/* The process's measurement file; set up outside signal context, read by the writers. */
struct mon_output {
    atomic_int fd; /* the file, at a high number, close-on-exec; -1 when none */
    int dirfd;     /* the measurement directory, O_NOFOLLOW-opened, close-on-exec */
    dev_t dev;     /* identity of the file, to notice the program closing our fd */
    ino_t ino;
    atomic_uint_fast64_t end; /* next free byte of the file (records are appended there) */
    char name[512];           /* file name inside the directory */
    char path[4096 + 512];    /* absolute path (for re-opening) */
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

/*
 * Open (creating it 0700 if absent) the measurement directory @outdir and
 * create this process's file in it.  Refuses a symbolic link, a directory
 * owned by another user, and an existing file.  Returns 0, or -1 with a
 * one-line reason in @why.  Called in the constructor.  [not async-signal-safe]
 */
int mon_output_open(const char *outdir, char *why, size_t whylen);

/* In a fork child: a new file for the new process (replacing the parent's descriptor, so
 * it needs no free descriptor slot).  Returns 0 or -1 with errno.  [not async-signal-safe] */
int mon_output_after_fork(void);

/* Copy the load map into the buffer the writers read.  [not async-signal-safe: takes the
 * load-map mutex; a publication in progress elsewhere is left to finish] */
void mon_output_publish_loadmap(void);

/*
 * Append @td's final profile to the process's file.  The thread's sources
 * must be stopped.  Publishes the load map first, unless mon_out.map_frozen
 * is set.  Returns 0, or -1 with errno set.  [not async-signal-safe: publishes
 * the load map; async-signal-safe once mon_out.map_frozen is 1]
 */
int mon_write_profile(struct mon_thread *td);

/*
 * Write @td's profile as one record: @checkpoint, into one of the thread's
 * two checkpoint slots (flagged FMT_RECORD_CHECKPOINT), else appended as
 * its final record.  Uses the published load map.  Returns 0 or -errno.
 * [async-signal-safe: mmap, pwrite, fstat, openat only; the tree must not
 * change meanwhile, so call it on @td's own thread or with its sources
 * stopped]
 */
CSP_SIGSAFE int mon_record_write(struct mon_thread *td, bool checkpoint);

/* In a fork child (one thread): release the record buffers that other threads of the parent
 * held.  [async-signal-safe] */
void mon_record_after_fork(void);

/* Name the per-event counters (mon_output.event_stat) once mon_proc.events is set.
 * [async-signal-safe] */
void mon_record_name_events(void);

/* From the sampling handler: write a checkpoint of @td if the flush period has passed since
 * the last one (mon_proc.flush_period_ns; 0 = never).  [async-signal-safe] */
CSP_SIGSAFE void mon_checkpoint_maybe(struct mon_thread *td);

#endif /* CSP_MON_WRITE_H */
