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
    struct fmt_module mods[MON_MAX_MODULES]; /* strings owned by the load map */
};

/* The longest measurement file name (inside its directory), NUL included. */
#define MON_OUTPUT_NAME_MAX 512

/*
 * Rename this process's measurement file to @name (in the same directory),
 * keeping its descriptor: MPI_Init learned the rank (mpi.c).  Never replaces
 * a file that exists.  Returns 1 when renamed, 0 when the name is already
 * @name or there is no file, -1 when the rename failed (the old name kept).
 * [not async-signal-safe; blocks the sampling signal on the calling thread
 * while the name the handler re-opens by changes]
 */
int mon_output_rename(const char *name);

/* From now on the writers use the published load map as is, never taking the load-map
 * mutex (a fatal signal's finalisation).  [async-signal-safe] */
CSP_SIGSAFE void mon_output_freeze_map(void);

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
 * must be stopped.  Publishes the load map first, unless the map is frozen
 * (mon_output_freeze_map).  Returns 0, or -1 with errno set.  [not async-signal-safe: publishes
 * the load map; async-signal-safe once the map is frozen]
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

/* Name the per-event counters (mon_output.h's event_stat) once mon_proc.events is set.
 * [async-signal-safe] */
void mon_record_name_events(void);

/* From the sampling handler: write a checkpoint of @td if the flush period has passed since
 * the last one (mon_proc.flush_period_ns; 0 = never).  [async-signal-safe] */
CSP_SIGSAFE void mon_checkpoint_maybe(struct mon_thread *td);

#endif /* CSP_MON_WRITE_H */
