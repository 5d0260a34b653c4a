/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fmt.h -- the measurement file: one binary file per thread profile.
 *
 * Layout, field by field, in share/schemas/measurement-format.md.  The
 * writer runs inside the profiled process (at thread exit, process exit,
 * exec, or in a fork child): it never allocates and never uses stdio; it
 * buffers into the struct fmt_writer and calls write(2) as a raw system
 * call (support/sysio.h: never libcsprof's write override), so it is safe
 * in any context where write(2) is, including after fork in a
 * multi-threaded program.  The reader runs in the tools only; it allocates with malloc.
 *
 * Addresses in a file are module-relative: (module id, offset), where offset
 * is the run-time address minus the module's load bias, i.e. the link-time
 * virtual address that symbol tables and DWARF use.
 */
#ifndef CSP_FMT_H
#define CSP_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "support/compiler.h"

#define FMT_MAGIC       "CSPROFM\0" /* 8 bytes at offset 0 */
#define FMT_VERSION     1u          /* major version; a reader rejects others */
#define FMT_MODULE_NONE UINT32_MAX  /* node address not in any known module: offset is absolute */
/* A leaf of module FMT_MODULE_NONE at this offset is the kernel: the time its parent call
 * site (the instruction the kernel returned to: a system call's, a faulting one) spent in
 * the kernel.  No user-space address: above the x86-64 canonical user half. */
#define FMT_KERNEL_OFFSET 0xffffffffffffff00ull

/*
 * Why the monitor dropped a sample: the counters samples.dropped.REASON of a
 * record (measurement-format.md, "Counters"), in the order of the monitor's
 * drop outcomes (lib/monitor/mon_internal.h, enum mon_outcome).  The one
 * list behind the monitor's counters and every reader's.
 */
#define FMT_NDROP_REASONS 10
extern const char *const fmt_drop_reasons[FMT_NDROP_REASONS];

/* RECORD flag: a checkpoint written while the thread still ran (its data ends early). */
#define FMT_RECORD_CHECKPOINT 1u

enum fmt_status {
    FMT_OK = 0,
    FMT_EIO = -1,      /* read/write/open failed; errno holds the reason */
    FMT_EMAGIC = -2,   /* not a csprof measurement file */
    FMT_EVERSION = -3, /* a version this reader does not know */
    FMT_ETRUNC = -4,   /* the file ends inside a record */
    FMT_ECORRUPT = -5, /* a field holds an impossible value */
    FMT_ENOMEM = -6,   /* reader: malloc failed */
    FMT_EINVAL = -7,   /* caller error: out-of-order writer call, bad argument */
};

/* Node kinds; the same numbers as enum cct_node_kind. */
enum fmt_node_kind {
    FMT_NODE_ROOT = 0,
    FMT_NODE_CALLSITE = 1, /* offset is a return address */
    FMT_NODE_LEAF = 2,     /* offset is a sampled instruction pointer */
};

/* Who and what was measured.  Strings are borrowed; NULL is written as "". */
struct fmt_header {
    uint32_t pid;          /* process id */
    uint32_t tid;          /* kernel thread id */
    uint32_t thread_index; /* 0 for the main thread, then creation order within the process */
    int32_t rank;          /* MPI rank, -1 when none */
    uint32_t generation;   /* bumped at each fork child / failed exec within one pid */
    uint64_t start_ns;     /* CLOCK_REALTIME at profile start, ns since the epoch */
    uint64_t end_ns;       /* CLOCK_REALTIME when the file was written */
    uint64_t cpu_ns;       /* CPU time of this thread while profiled, ns */
    const char *program;   /* path of the executable (/proc/self/exe) */
    const char *command;   /* command line, arguments separated by spaces */
    const char *host;      /* host name */
    /* The csrun run this process belongs to (CSPROF_RUN_ID, at most FMT_RUN_ID_MAX bytes);
     * NULL or "" for none: the writer then writes no RUN section, and the reader gives "". */
    const char *run_id;
};

/* Longest run id: csrun's are 16 hex digits, or "mpi-" and 16 (run ids: docs/csrun.md). */
#define FMT_RUN_ID_MAX 64
/* The bytes a run id is made of (csrun refuses a CSPROF_RUN_ID of others; the monitor ignores
 * it). */
#define FMT_RUN_ID_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-"

/* One measured event: a metric column.  Strings are borrowed. */
struct fmt_event {
    const char *name;         /* "CPUTIME", "REALTIME", later "PAPI_TOT_CYC", ... */
    const char *unit;         /* raw unit of node values: "ns", "events", "bytes" */
    const char *mechanism;    /* how it was sampled: "posix-timer", "perf-task-clock", ... */
    uint64_t period;          /* requested sample period, in the raw unit */
    double display_scale;     /* raw value * display_scale = value in display_unit */
    const char *display_unit; /* "s" for time events */
};

/* One load module as mapped in the process.  Strings/bytes are borrowed. */
struct fmt_module {
    uint32_t id;             /* referenced by fmt_node.module; unique in the file */
    uint32_t epoch;          /* load-map epoch in which it was first seen (0 = start) */
    const char *path;        /* absolute path when known; "[vdso]" etc. otherwise */
    const uint8_t *build_id; /* GNU build-id bytes, may be NULL */
    uint32_t build_id_len;   /* bytes in build_id, 0 when none */
    uint64_t load_bias;      /* run-time address minus link-time address */
    uint64_t start, end;     /* run-time address range of its PT_LOAD segments, [start, end) */
};

/* One sparse metric value of a node. */
struct fmt_metric {
    uint32_t event; /* index into the file's event table */
    uint64_t value; /* in the event's raw unit */
};

/* One CCT node.  Pointers are borrowed (writer) or owned by the profile (reader). */
struct fmt_node {
    uint64_t id;     /* 0 is the root; ids are unique in the file */
    uint64_t parent; /* parent's id; 0 for children of the root; ignored for the root */
    uint32_t kind;   /* enum fmt_node_kind */
    uint32_t module; /* module id, or FMT_MODULE_NONE */
    uint64_t offset; /* module-relative address (absolute when module is FMT_MODULE_NONE) */
    uint64_t samples;
    uint64_t calls; /* call-edge count (trampoline); 0 when not measured */
    uint32_t nmetrics;
    const struct fmt_metric *metrics;
};

/* A named counter: samples recorded, partial, dropped by reason, arena bytes... */
struct fmt_stat {
    const char *name;
    uint64_t value;
};

/*
 * Streaming writer.  Call order: fmt_writer_init, fmt_write_header,
 * fmt_write_events, fmt_write_loadmap, fmt_begin_cct, fmt_write_node x N,
 * fmt_end_cct, fmt_write_stats, fmt_writer_finish.  Any other order returns
 * FMT_EINVAL.  The first error sticks: later calls return it again.  The
 * struct is large (it holds the buffer); keep it static or in an mmap'd
 * area rather than on a small stack.
 */
struct fmt_writer {
    int fd;
    int error;              /* first error, 0 if none */
    int saved_errno;        /* errno of the first FMT_EIO */
    int state;              /* position in the call order */
    uint64_t offset;        /* bytes written so far (flushed or buffered) */
    uint64_t section_start; /* file offset of the open section's header */
    uint64_t nodes_expected, nodes_written;
    size_t used;      /* bytes in buf */
    uint32_t crc;     /* CRC-32 of the section payloads written so far (END carries it) */
    uint32_t nevents; /* entries in the event table, to check node metric indices */
    uint8_t *mem;     /* memory mode (fmt_writer_init_mem): the record goes here, not to fd */
    uint64_t mem_cap; /* bytes at mem */
    uint8_t buf[16384];
};

/*
 * Start writing to @fd (opened by the caller, left open).  @fd must be a
 * seekable file at offset 0 without O_APPEND: section lengths are patched
 * in place with pwrite(2).  FMT_EIO if @fd is not open or not seekable (a
 * pipe), FMT_EINVAL if it is at another offset or in append mode.
 * [async-signal-safe]
 */
CSP_SIGSAFE int fmt_writer_init(struct fmt_writer *w, int fd);
/*
 * Start writing one record into the @cap bytes at @mem instead of a file:
 * fmt_writer.offset is its length after fmt_writer_finish.  A record that
 * does not fit fails with FMT_EIO and errno ENOBUFS.  The caller then
 * appends the bytes wherever it wants (the monitor: at an offset of the
 * process's measurement file, with one pwrite).  [async-signal-safe]
 */
CSP_SIGSAFE int fmt_writer_init_mem(struct fmt_writer *w, void *mem, uint64_t cap);
/* Fixed header and identity section, then the RUN section when h->run_id is not empty.
 * [async-signal-safe] */
CSP_SIGSAFE int fmt_write_header(struct fmt_writer *w, const struct fmt_header *h);
/* Event table; node metric indices refer to it.  [async-signal-safe] */
CSP_SIGSAFE int fmt_write_events(struct fmt_writer *w, const struct fmt_event *ev, uint32_t n);
/* Load map.  [async-signal-safe] */
CSP_SIGSAFE int fmt_write_loadmap(struct fmt_writer *w, const struct fmt_module *m, uint32_t n);
/* Open the CCT section of @epoch holding exactly @nnodes nodes.  [async-signal-safe] */
CSP_SIGSAFE int fmt_begin_cct(struct fmt_writer *w, uint32_t epoch, uint64_t nnodes);
/* One node; a parent must be written before its children.  [async-signal-safe] */
CSP_SIGSAFE int fmt_write_node(struct fmt_writer *w, const struct fmt_node *node);
/* Close the CCT section; FMT_EINVAL if fewer/more nodes than announced.  [async-signal-safe] */
CSP_SIGSAFE int fmt_end_cct(struct fmt_writer *w);
/* Sample statistics.  [async-signal-safe] */
CSP_SIGSAFE int fmt_write_stats(struct fmt_writer *w, const struct fmt_stat *s, uint32_t n);
/*
 * Optional RECORD section, after the statistics: @flags (FMT_RECORD_*) and
 * @seq, the thread's record sequence number (later records of the same
 * thread supersede earlier ones).  [async-signal-safe]
 */
CSP_SIGSAFE int fmt_write_record(struct fmt_writer *w, uint32_t flags, uint64_t seq);
/* End marker and final flush; the file is complete only after this.  [async-signal-safe] */
CSP_SIGSAFE int fmt_writer_finish(struct fmt_writer *w);

/* A whole file in memory, as the reader returns it.  Everything is owned by the profile. */
struct fmt_profile {
    uint32_t version;
    struct fmt_header header;
    struct fmt_event *events;
    uint32_t nevents;
    struct fmt_module *modules;
    uint32_t nmodules;
    uint32_t epoch;
    struct fmt_node *nodes; /* in file order: parents before children */
    uint64_t nnodes;
    struct fmt_stat *stats;
    uint32_t nstats;
    uint32_t record_flags; /* FMT_RECORD_*; 0 without a RECORD section */
    uint64_t record_seq;   /* the thread's record sequence number; 0 without a RECORD section */
};

/*
 * Read the whole file at @path.  On success *out owns everything and is
 * released with fmt_profile_free().  On failure returns a negative
 * fmt_status and, if @err is non-NULL, writes one line into it naming the
 * file, the byte offset and what is wrong, e.g.
 * "m/a-1-0.cspm: byte 4128: file ends inside a CCT node (truncated)".
 * Never crashes on any input.  [not async-signal-safe]
 */
int fmt_read_file(const char *path, struct fmt_profile **out, char *err, size_t errlen);

/* Same, from a buffer of @len bytes; @name is used in messages.  [not async-signal-safe] */
int fmt_read_buffer(const void *buf, size_t len, const char *name, struct fmt_profile **out,
                    char *err, size_t errlen);

/*
 * Every record of the measurement file at @path.  A file holds one record
 * or more (the monitor appends each thread's profile, and checkpoints of
 * running threads, to one file per process), each one a complete v1 file
 * image at an offset that is a multiple of 8.  Bytes between records (a
 * hole left by a record never written, the rest of a checkpoint slot) are
 * skipped; a record that starts with the magic but does not read (cut off
 * by a kill, overwritten halfway) is counted as damaged and skipped, and
 * the first such message goes to @err.  Of the records of one thread
 * (same pid, generation, thread index) only the one with the highest
 * RECORD sequence number is kept.  Returns 0 when at least one record
 * reads (damaged ones are counted, the first described in @err), else the
 * status of the first failure (FMT_EMAGIC for a file without any record,
 * FMT_ETRUNC for an empty one, FMT_EIO, FMT_ENOMEM) with @err set.
 * Release with fmt_record_set_free().  [not async-signal-safe]
 */
struct fmt_record_set {
    struct fmt_profile **profiles; /* latest record of each thread, by (pid, generation, index) */
    size_t nprofiles;
    size_t nrecords;        /* records that read correctly */
    size_t superseded;      /* of those, checkpoints replaced by a later record of their thread */
    size_t damaged;         /* records that start with the magic but do not read */
    uint64_t skipped_bytes; /* bytes outside any correct record */
};
int fmt_read_records(const char *path, struct fmt_record_set *out, char *err, size_t errlen);

/*
 * The run id of the measurement file at @path, without reading it whole: the first record's
 * RUN section, which the writer puts right after IDENT, copied NUL-terminated into @id (at
 * least FMT_RUN_ID_MAX + 1 bytes); "" when that record has none (a file written before run
 * ids, or by a monitor preloaded without csrun).  *@start_ns (if non-NULL) gets that record's
 * start time.  Returns 1 with an id, 0 without one, or a negative fmt_status when no record
 * header can be read (an empty file, one still being written, not a measurement file, not a
 * regular file: a FIFO is not waited on), with one line in @err.  [not async-signal-safe]
 */
int fmt_peek_run_id(const char *path, char *id, size_t idlen, uint64_t *start_ns, char *err,
                    size_t errlen);

/* Release what fmt_read_records() returned; the struct itself is the caller's.
 * [not async-signal-safe] */
void fmt_record_set_free(struct fmt_record_set *s);

/* Release a profile from the reader; NULL is allowed.  [not async-signal-safe] */
void fmt_profile_free(struct fmt_profile *p);

/* Look up a counter by name; returns 0 when absent.  [not async-signal-safe] */
uint64_t fmt_profile_stat(const struct fmt_profile *p, const char *name);

/* CPU time of the thread while its sample sources were armed, in ns: the time a CPUTIME
 * sample period applies to (counter thread.sampled_cpu_ns, which leaves out csprof's start-up
 * and the writing of profiles at exit).  Files written before that counter existed give the
 * header's cpu_ns.  [not async-signal-safe] */
uint64_t fmt_profile_sampled_cpu_ns(const struct fmt_profile *p);

/* Samples the thread's own counters account for although none was recorded, in samples:
 * dropped ones (samples.dropped.*), timer expirations merged into one signal
 * (timer.overruns) and perf periods that ended in the kernel (perf.unsampled_periods).  The
 * one list behind csrun's and csprof-prof's sampling shortfall.  [not async-signal-safe] */
uint64_t fmt_profile_explained_samples(const struct fmt_profile *p);

/*
 * Print @p as text, one record per line, every field named (the format of
 * csprof-prof --dump).  Returns 0 or FMT_EIO.  [not async-signal-safe]
 */
int fmt_dump(const struct fmt_profile *p, FILE *out);

/* Text of a status.  Static storage.  [async-signal-safe] */
const char *fmt_strerror(int status);

#endif /* CSP_FMT_H */
