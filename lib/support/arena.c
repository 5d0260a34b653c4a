/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arena.c -- bump allocator over mmap or malloc chunks.
 *
 * Runs in signal context when the chunk source is mmap: it calls nothing
 * but the chunk source and must stay free of locks and stdio.
 */
#include "support/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

struct arena_chunk {
    struct arena_chunk *next;
    size_t size; /* bytes in the chunk, header included */
};

#define ARENA_ALIGN 16
#define ARENA_HDR_BYTES \
    ((sizeof(struct arena_chunk) + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1))

static void *
mmap_chunk(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    return p == MAP_FAILED ? NULL : p;
}

static void
munmap_chunk(void *chunk, size_t size)
{
    munmap(chunk, size);
}

static void *
malloc_chunk(size_t size)
{
    return calloc(1, size);
}

static void
free_chunk(void *chunk, size_t size)
{
    CSP_UNUSED(size);
    free(chunk);
}

static void
arena_init(struct arena *a, size_t chunk_size, size_t limit, arena_chunk_alloc_fn *alloc,
           arena_chunk_free_fn *release)
{
    a->chunks = NULL;
    a->cur = a->end = NULL;
    a->chunk_size = chunk_size < 4096 ? 4096 : chunk_size;
    a->bytes_in_use = a->bytes_mapped = 0;
    a->limit = limit;
    a->chunk_alloc = alloc;
    a->chunk_free = release;
}

void
arena_init_mmap(struct arena *a, size_t chunk_size, size_t limit)
{
    arena_init(a, chunk_size, limit, mmap_chunk, munmap_chunk);
}

void
arena_init_malloc(struct arena *a, size_t chunk_size, size_t limit)
{
    arena_init(a, chunk_size, limit, malloc_chunk, free_chunk);
}

void *
arena_alloc(struct arena *a, size_t size)
{
    size_t need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    char *p;

    if (need == 0)
        need = ARENA_ALIGN;
    if (a->cur == NULL || (size_t)(a->end - a->cur) < need) {
        size_t csize = a->chunk_size;
        struct arena_chunk *c;

        if (need + ARENA_HDR_BYTES > csize)
            csize = (need + ARENA_HDR_BYTES + 4095) & ~(size_t)4095;
        if (a->limit != 0 && a->bytes_mapped + csize > a->limit)
            return NULL;
        c = a->chunk_alloc(csize);
        if (c == NULL)
            return NULL;
        c->size = csize;
        c->next = a->chunks;
        a->chunks = c;
        a->bytes_mapped += csize;
        a->cur = (char *)c + ARENA_HDR_BYTES;
        a->end = (char *)c + csize;
    }
    p = a->cur;
    a->cur += need;
    a->bytes_in_use += need;
    return p;
}

void
arena_destroy(struct arena *a)
{
    struct arena_chunk *c = a->chunks;

    while (c != NULL) {
        struct arena_chunk *next = c->next;

        a->chunk_free(c, c->size);
        c = next;
    }
    a->chunks = NULL;
    a->cur = a->end = NULL;
    a->bytes_in_use = a->bytes_mapped = 0;
}
