/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arena.h -- bump allocator for memory used in signal context.
 *
 * An arena hands out memory from chunks obtained from a chunk source: mmap
 * for the monitor (async-signal-safe), malloc for unit tests.  Memory is
 * never freed individually; arena_destroy() returns every chunk at once.
 * An arena belongs to one thread; it has no lock.
 */
#ifndef CSP_ARENA_H
#define CSP_ARENA_H

#include <stddef.h>

#include "support/compiler.h"

/* Chunk source: returns @size bytes of zeroed memory or NULL; release undoes it. */
typedef void *arena_chunk_alloc_fn(size_t size);
typedef void arena_chunk_free_fn(void *chunk, size_t size);

struct arena_chunk;

/* Fields are public so an arena can live in TLS or a static without malloc. */
struct arena {
    struct arena_chunk *chunks; /* newest first */
    char *cur;                  /* next free byte in the newest chunk */
    char *end;                  /* one past the newest chunk's last byte */
    size_t chunk_size;          /* bytes per chunk (a larger request gets its own) */
    size_t bytes_in_use;        /* bytes handed out, for statistics */
    size_t bytes_mapped;        /* bytes obtained from the chunk source */
    size_t limit;               /* most bytes the arena may map; 0 means no limit */
    arena_chunk_alloc_fn *chunk_alloc;
    arena_chunk_free_fn *chunk_free;
};

/*
 * Set up @a with chunks of @chunk_size bytes from mmap(2), mapping at most
 * @limit bytes in all (0: unlimited).  Maps nothing yet.  [async-signal-safe]
 */
CSP_SIGSAFE void arena_init_mmap(struct arena *a, size_t chunk_size, size_t limit);

/* Same, with chunks from malloc/calloc: for unit tests.  [not async-signal-safe use] */
void arena_init_malloc(struct arena *a, size_t chunk_size, size_t limit);

/*
 * Return @size bytes aligned to 16, zeroed, or NULL when the chunk source
 * fails or the limit is reached (the caller counts a dropped sample).
 * [async-signal-safe when the chunk source is mmap]
 */
CSP_SIGSAFE void *arena_alloc(struct arena *a, size_t size);

/* Release every chunk; @a can be initialised again.  [async-signal-safe for mmap arenas] */
CSP_SIGSAFE void arena_destroy(struct arena *a);

#endif /* CSP_ARENA_H */
