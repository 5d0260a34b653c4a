/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tvfile.h -- DB/thread-values.bin, the per-thread values csprof-prof writes
 * beside experiment.xml (its specification: share/schemas/thread-values.md):
 * the one encoder and decoder of its header, groups and entries, with the
 * sizes and flag bits named.  csprof-prof writes it (lib/profile/prof_threads.c);
 * csprof-report's threads view (lib/report/threads.c) and the viewer's data
 * (lib/viewer/viewer.c) read it.
 *
 * Layout: a 32-byte header, then groups (one per thread), each a 12-byte
 * group header and that many entries of 16 bytes (node, column and flags,
 * inclusive value) or 24 (the exclusive value after them).  Integers and
 * doubles are little-endian.
 *
 * Tool code: no allocation but tvf_load(); not meant for signal context.
 */
#ifndef CSP_TVFILE_H
#define CSP_TVFILE_H

#include <stddef.h>
#include <stdint.h>

#define TVF_MAGIC        "CSPTHRV1" /* 8 bytes, no NUL in the file */
#define TVF_VERSION      1u
#define TVF_HEADER_SIZE  32u /* magic, version, ncols, nthreads, nprocesses, nnodes */
#define TVF_GROUP_SIZE   12u /* over, index, count */
#define TVF_ENTRY_SIZE   16u /* node, column | flags, inclusive */
#define TVF_EXCL_SIZE    8u  /* the exclusive value, when stored */
#define TVF_ENTRY_MAX    (TVF_ENTRY_SIZE + TVF_EXCL_SIZE)
#define TVF_EXCL_IS_INCL 0x80000000u /* flag: exclusive = inclusive, not stored */
#define TVF_EXCL_ZERO    0x40000000u /* flag: exclusive = 0, not stored */
#define TVF_COLUMN_MASK  0x3fffffffu /* the event column (Metric 2e / 2e+1) */
#define TVF_OVER_THREAD  0u          /* a group of one thread (1 is reserved: processes) */

/* The file's header (magic and version checked by tvf_read_header). */
struct tvf_header {
    uint32_t ncols;      /* value columns: one per event */
    uint32_t nthreads;   /* thread indexes are below it */
    uint32_t nprocesses; /* process indexes (Input process=) are below it */
    uint64_t nnodes;     /* node ids (experiment.xml i=) are below it */
};

/* A group header: @count entries of thread @index follow. */
struct tvf_group {
    uint32_t over;  /* TVF_OVER_THREAD */
    uint32_t index; /* thread index */
    uint32_t count; /* entries */
};

/* One entry: a node's values in one event column (its Metric unit, e.g. seconds, bytes). */
struct tvf_entry {
    uint32_t node;   /* experiment.xml node id; 0: the whole run */
    uint32_t column; /* event column, below the header's ncols */
    double incl, excl;
};

/* Writes @h (with the magic and version) into @out. */
void tvf_put_header(unsigned char out[TVF_HEADER_SIZE], const struct tvf_header *h);

/* Writes @g into @out. */
void tvf_put_group(unsigned char out[TVF_GROUP_SIZE], const struct tvf_group *g);

/* Writes @e into @out (the exclusive value left out when it equals the inclusive one or is
 * 0); returns the bytes written, TVF_ENTRY_SIZE or TVF_ENTRY_MAX.  @e->column must fit
 * TVF_COLUMN_MASK. */
size_t tvf_put_entry(unsigned char out[TVF_ENTRY_MAX], const struct tvf_entry *e);

/* A decoder over the bytes of a whole file (not owned; they must outlive it). */
struct tvf_reader {
    const unsigned char *base, *p, *end;
    uint32_t left; /* entries left in the current group */
};

/* Starts @r on @buf (@len bytes) and decodes the header into @h.  Returns 0, or -1 when the
 * bytes are shorter than a header or have another magic or version. */
int tvf_read_header(struct tvf_reader *r, const unsigned char *buf, size_t len,
                    struct tvf_header *h);

/* The next group header into @g (the rest of the current group is skipped).  Returns 1, 0 at
 * the end of the bytes, -1 when they end inside a group header or a skipped entry. */
int tvf_next_group(struct tvf_reader *r, struct tvf_group *g);

/* The next entry of the current group into @e (its exclusive value filled in from the
 * flags).  Returns 1, 0 when the group has no more, -1 when the bytes end inside it. */
int tvf_next_entry(struct tvf_reader *r, struct tvf_entry *e);

/* The byte offset @r has reached, for error messages. */
size_t tvf_offset(const struct tvf_reader *r);

/* Reads the whole file @path into a new buffer (*@buf, the caller frees it; *@len bytes).
 * Returns 0, or an errno value (ENOMEM, or open's or read's). */
int tvf_load(const char *path, unsigned char **buf, size_t *len);

#endif
