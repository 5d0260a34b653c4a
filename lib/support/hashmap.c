/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hashmap.c -- open-addressing hash map from uint64_t to pointers (see
 * hashmap.h).  Tool code.
 */
#include <stdint.h>
#include <stdlib.h>

#include "support/hashmap.h"

uint64_t
csp_hash_u64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

uint64_t
csp_hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    for (; *s != '\0'; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* Slot of @key in a table of @cap slots: where it is, or the empty slot ending its probe. */
static size_t
slot_of(const uint64_t *keys, void *const *vals, size_t cap, uint64_t key)
{
    size_t i = (size_t)csp_hash_u64(key) & (cap - 1);

    while (vals[i] != NULL && keys[i] != key)
        i = (i + 1) & (cap - 1);
    return i;
}

void *
csp_hmap_get(const struct csp_hmap *h, uint64_t key)
{
    if (h->cap == 0)
        return NULL;
    return h->vals[slot_of(h->keys, h->vals, h->cap, key)];
}

/* The first empty slot of @key's probe sequence (the table has one). */
static size_t
free_slot(void *const *vals, size_t cap, uint64_t key)
{
    size_t i = (size_t)csp_hash_u64(key) & (cap - 1);

    while (vals[i] != NULL)
        i = (i + 1) & (cap - 1);
    return i;
}

/* Rehash into a table of @cap slots (a power of two, room for every key). */
static int
rehash(struct csp_hmap *h, size_t cap)
{
    uint64_t *keys;
    void **vals;

    keys = malloc(cap * sizeof(*keys));
    vals = calloc(cap, sizeof(*vals));
    if (keys == NULL || vals == NULL) {
        free(keys);
        free(vals);
        return -1;
    }
    /* First free slot, not slot_of(): values added under one hash all stay. */
    for (size_t i = 0; i < h->cap; i++)
        if (h->vals[i] != NULL) {
            size_t j = free_slot(vals, cap, h->keys[i]);

            keys[j] = h->keys[i];
            vals[j] = h->vals[i];
        }
    free(h->keys);
    free(h->vals);
    h->keys = keys;
    h->vals = vals;
    h->cap = cap;
    return 0;
}

/* Make room for @n keys in all: at most 3/4 of the slots used. */
int
csp_hmap_reserve(struct csp_hmap *h, size_t n)
{
    size_t cap = h->cap ? h->cap : 64;

    while (n > cap / 4 * 3) {
        if (cap > SIZE_MAX / 2 / sizeof(uint64_t))
            return -1;
        cap *= 2;
    }
    return cap == h->cap ? 0 : rehash(h, cap);
}

/* Room for one more key (the test first: it runs on every insertion). */
static int
grow(struct csp_hmap *h)
{
    return h->n + 1 <= h->cap / 4 * 3 ? 0 : csp_hmap_reserve(h, h->n + 1);
}

int
csp_hmap_put(struct csp_hmap *h, uint64_t key, void *val)
{
    size_t i;

    if (val == NULL)
        return -1;
    if (grow(h) != 0)
        return -1;
    i = slot_of(h->keys, h->vals, h->cap, key);
    if (h->vals[i] == NULL)
        h->n++;
    h->keys[i] = key;
    h->vals[i] = val;
    return 0;
}

void *
csp_hmap_find(const struct csp_hmap *h, uint64_t hash, csp_hmap_eq_fn *eq, const void *key)
{
    if (h->cap == 0)
        return NULL;
    for (size_t i = (size_t)csp_hash_u64(hash) & (h->cap - 1); h->vals[i] != NULL;
         i = (i + 1) & (h->cap - 1))
        if (h->keys[i] == hash && eq(h->vals[i], key))
            return h->vals[i];
    return NULL;
}

int
csp_hmap_add(struct csp_hmap *h, uint64_t hash, void *val)
{
    size_t i;

    if (val == NULL || grow(h) != 0)
        return -1;
    i = free_slot(h->vals, h->cap, hash);
    h->keys[i] = hash;
    h->vals[i] = val;
    h->n++;
    return 0;
}

void
csp_hmap_free(struct csp_hmap *h)
{
    free(h->keys);
    free(h->vals);
    *h = (struct csp_hmap){0};
}
