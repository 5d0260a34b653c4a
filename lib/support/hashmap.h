/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hashmap.h -- a hash map from 64-bit keys (addresses, pointers, hashes
 * of names) to non-NULL pointers.
 *
 * Open addressing with linear probing in a power-of-two table kept at
 * most 3/4 full; keys are mixed with a 64-bit finalizer (Stafford's
 * variant 13 of the MurmurHash3 fmix64), so clustered keys such as
 * aligned addresses spread well.  No deletion: tools build a map, query
 * it, and free it.  A zeroed struct is an empty map.  Tool code: uses
 * malloc.  [not async-signal-safe]
 *
 * Two ways to use a map, never mixed on one map:
 *   - unique keys: csp_hmap_get() and csp_hmap_put() (one value a key);
 *   - hashed keys: the key is a 64-bit hash of a larger key that the value
 *     holds; csp_hmap_add() stores values side by side under one hash and
 *     csp_hmap_find() picks the one the caller's equality accepts, so hash
 *     collisions are harmless.
 */
#ifndef CSP_HASHMAP_H
#define CSP_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct csp_hmap {
    uint64_t *keys;
    void **vals; /* NULL: empty slot */
    size_t cap;  /* slots, 0 or a power of two */
    size_t n;    /* keys stored */
};

/* The value stored for @key, or NULL.  [not async-signal-safe] */
void *csp_hmap_get(const struct csp_hmap *h, uint64_t key);

/*
 * Store @val (non-NULL) for @key, replacing any value it had.  Returns 0,
 * or -1 on allocation failure (the map is then unchanged) or when @val
 * is NULL.  [not async-signal-safe]
 */
int csp_hmap_put(struct csp_hmap *h, uint64_t key, void *val);

/*
 * Make room for @n keys in all without growing again.  Returns 0, or -1
 * on allocation failure (the map is then unchanged).  [not async-signal-safe]
 */
int csp_hmap_reserve(struct csp_hmap *h, size_t n);

/* Does the stored value @val stand for the key @key (a csp_hmap_find() argument)? */
typedef bool csp_hmap_eq_fn(const void *val, const void *key);

/*
 * Hashed keys: the value stored under @hash for which @eq(value, @key)
 * holds, or NULL.  [not async-signal-safe]
 */
void *csp_hmap_find(const struct csp_hmap *h, uint64_t hash, csp_hmap_eq_fn *eq, const void *key);

/*
 * Hashed keys: store @val (non-NULL) under @hash beside the values already
 * there (the caller has made sure, with csp_hmap_find(), that its key is
 * new).  Returns 0, or -1 on allocation failure (the map is then unchanged)
 * or when @val is NULL.  [not async-signal-safe]
 */
int csp_hmap_add(struct csp_hmap *h, uint64_t hash, void *val);

/* Release the table (not the values); the map is empty afterwards. */
void csp_hmap_free(struct csp_hmap *h);

/* 64-bit mix of @x (bijective): a hash for integer keys.  [async-signal-safe] */
uint64_t csp_hash_u64(uint64_t x);

/* FNV-1a 64-bit hash of the NUL-terminated @s.  [async-signal-safe] */
uint64_t csp_hash_str(const char *s);

#endif /* CSP_HASHMAP_H */
