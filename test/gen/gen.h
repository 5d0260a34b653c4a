/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen.h -- the plumbing of the synthetic-profile generators: the programs
 * that write measurement files with the lib/fmt writer for tests and
 * benchmarks (test/prof/prof_gen.c, test/viewer/hostile_gen.c,
 * bench/viewer/gen_db.c, bench/prof_scale/gen_scale.c).  Each keeps only
 * its model (a spec language, hostile strings, random tree shapes); this
 * library reads `nm -S` symbol tables, builds a calling-context tree with
 * shared prefixes as the monitor's would be, and writes the file.
 *
 * Test/bench tool code (ordinary process context, one thread): only
 * gen_rand and gen_unif are async-signal-safe, nothing is thread-safe, and
 * nothing may run in a profiled process.  Errors are fatal: a function that
 * fails prints one line naming the program and the file or value
 * ("NAME: PATH: what is wrong") and exits with status 1 (gen_die).
 */
#ifndef CSP_TESTGEN_GEN_H
#define CSP_TESTGEN_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "fmt/fmt.h"
#include "support/hashmap.h"

/* The program name gen_die prints first ("prof_gen"); @name is not copied (a string
 * literal).  Set it once, first thing in main.  [not async-signal-safe] */
void gen_set_name(const char *name);
/* Print "NAME: " and the formatted message on one stderr line, exit(1).
 * [not async-signal-safe] */
void gen_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* calloc(3) / strdup(3) that die ("out of memory") on failure.  The caller frees.
 * [not async-signal-safe] */
void *gen_xcalloc(size_t n, size_t size);
char *gen_xstrdup(const char *s);

/* xorshift64 (G. Marsaglia, "Xorshift RNGs", J. Stat. Softw. 8(14), 2003; shifts 13, 7,
 * 17): advance *@state (seeded by the caller, not 0) and return it.  Deterministic.
 * [async-signal-safe] */
uint64_t gen_rand(uint64_t *state);
/* Uniform in [0, 1): the top 53 bits of gen_rand(@state).  [async-signal-safe] */
double gen_unif(uint64_t *state);

/* One symbol of an `nm -S` listing. */
struct gen_sym {
    char *name;      /* without a version suffix (nm -D "@@GLIBC_2.2.5"); the table owns it */
    uint64_t addr;   /* value (link-time address) */
    uint64_t size;   /* bytes */
    char type;       /* nm's type letter: 'T' / 't' text, 'W' weak, 'i' indirect, ... */
    uint32_t module; /* the caller's module number given to gen_syms_load */
};

/* The symbols of one or more listings, in file order.  Zero-initialise. */
struct gen_syms {
    struct gen_sym *v;
    size_t n, cap;
};

/*
 * Append to @t the symbols of @path, `nm -S [--defined-only] [-D]` output,
 * each with @module: every line that sscanf(3) reads as "%llx %llx %c %s"
 * (ADDR SIZE TYPE NAME, hex; a line without a size does not).  Any type:
 * the caller picks (text symbols: 'T' and 't').  Dies when @path cannot be
 * opened or memory runs out.  [not async-signal-safe]
 */
void gen_syms_load(struct gen_syms *t, const char *path, uint32_t module);
/* The first symbol named @name (in load order), NULL if none; owned by @t.  Linear
 * search.  [not async-signal-safe] */
const struct gen_sym *gen_syms_find(const struct gen_syms *t, const char *name);
/* Free the names and the array; @t is empty again.  [not async-signal-safe] */
void gen_syms_free(struct gen_syms *t);

/* One node of a gen_cct.  Index 0 is the root (FMT_NODE_ROOT, module FMT_MODULE_NONE). */
struct gen_node {
    uint64_t offset;  /* in @module (absolute for FMT_MODULE_NONE) */
    uint64_t samples; /* samples of a leaf */
    uint64_t calls;   /* call edges of a call site */
    uint32_t parent;  /* node index */
    uint32_t module;  /* fmt module id */
    uint8_t kind;     /* FMT_NODE_* */
    uint8_t mark;     /* free for the model (gen_cct leaves it alone; 0 when created) */
};

/*
 * A calling-context tree: nodes in creation order (a parent before its
 * children), so a node's index is its fmt node id.  Call sites and leaves
 * are keyed by (parent, kind, module, offset), found through a hash table.
 */
struct gen_cct {
    struct gen_node *nodes;
    uint64_t *values; /* nvalues per node: raw event values, values[i * nvalues + e] */
    uint32_t nnodes, cap, nvalues;
    struct csp_hmap index; /* hashed keys (support/hashmap.h): the hash of (parent, kind,
                            * module, offset) -> node index + 1 */
};

/* An empty tree (the root only) whose nodes carry @nvalues event values each; @c owns
 * its arrays until gen_cct_free.  Dies when memory runs out.  [not async-signal-safe] */
void gen_cct_init(struct gen_cct *c, uint32_t nvalues);
/* Back to the root only, keeping the memory.  [not async-signal-safe] */
void gen_cct_reset(struct gen_cct *c);
/* Free the arrays of @c.  [not async-signal-safe] */
void gen_cct_free(struct gen_cct *c);
/* Index of the child (@kind, @module, @offset) of @parent, created (zeroed) if absent;
 * the arrays may move (indices stay).  Dies when memory runs out.  [not async-signal-safe] */
uint32_t gen_cct_child(struct gen_cct *c, uint32_t parent, uint32_t kind, uint32_t module,
                       uint64_t offset);
/* A new child of @parent, even if one with the same key exists (then gen_cct_child may
 * return either: a tree built with gen_cct_add is written, not searched).  As
 * gen_cct_child otherwise.  [not async-signal-safe] */
uint32_t gen_cct_add(struct gen_cct *c, uint32_t parent, uint32_t kind, uint32_t module,
                     uint64_t offset);
/* The nvalues values of node @i (zero when created), owned by @c; valid until the next
 * node is created.  [not async-signal-safe] */
uint64_t *gen_cct_values(struct gen_cct *c, uint32_t i);

/*
 * Create the file @path (0644, truncated) and write the header, the
 * @nevents events, the @nmodules modules and the opening of a CCT section
 * of @nnodes nodes (epoch 0).  Then call gen_file_node @nnodes times (or
 * gen_file_cct once) and gen_file_close.  One file at a time (the writer is
 * static).  Dies when @path cannot be created.  [not async-signal-safe]
 */
void gen_file_open(const char *path, const struct fmt_header *hdr, const struct fmt_event *events,
                   uint32_t nevents, const struct fmt_module *modules, uint32_t nmodules,
                   uint64_t nnodes);
/* Write one node (errors stick in the writer: gen_file_close reports them).
 * [not async-signal-safe] */
void gen_file_node(const struct fmt_node *n);
/*
 * Write every node of @c, in index order (id = index), with its samples,
 * calls and one metric for each event e < @nevents (at most c->nvalues)
 * whose value is not 0.  [not async-signal-safe]
 */
void gen_file_cct(const struct gen_cct *c, uint32_t nevents);
/* Close the CCT section, write the @nstats statistics, finish and close the file.
 * Dies, naming the file and the fmt error (fmt_strerror), when any step failed.
 * [not async-signal-safe] */
void gen_file_close(const struct fmt_stat *stats, uint32_t nstats);

#endif
