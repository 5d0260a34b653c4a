/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * module.c -- the structure model: module objects, scope creation,
 * string interning, canonical ordering and numbering, and the address
 * lookup index behind struct_lookup().
 *
 * Tool code only; never runs in a profiled process.  Not thread-safe:
 * struct_lookup() builds its index on first use, so a module shared by
 * threads needs one call before it is shared.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "structure/structure_internal.h"
#include "support/hashmap.h"
#include "support/search.h"
#include "support/sort.h"
#include "support/vec.h"

#define MODULE_CHUNK_BYTES (256 * 1024)
#define MODULE_HUGE_BYTES  ((size_t)2 * 1024 * 1024) /* one x86-64 transparent huge page */
#define VEC_FIRST_BYTES    ((size_t)64 * 1024)       /* first mapping of a struct_vec array */

/*
 * Chunk source for the arenas of analyzed modules, which grow to tens of
 * megabytes: MODULE_HUGE_BYTES-aligned anonymous mappings that the kernel
 * may back with transparent huge pages (MADV_HUGEPAGE), so filling them
 * costs one page fault per 2 MB instead of one per 4 KB.  Zeroed, as the
 * arena needs.  Larger requests get a plain mapping.
 */
static void *
huge_chunk_alloc(size_t size)
{
    size_t len = size == MODULE_HUGE_BYTES ? 2 * size : size;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uintptr_t a;

    if (p == MAP_FAILED)
        return NULL;
    if (len == size)
        return p;
    a = ((uintptr_t)p + MODULE_HUGE_BYTES - 1) & ~(uintptr_t)(MODULE_HUGE_BYTES - 1);
    if (a > (uintptr_t)p)
        munmap(p, a - (uintptr_t)p);
    if ((uintptr_t)p + len > a + size)
        munmap((char *)a + size, (uintptr_t)p + len - (a + size));
    (void)madvise((void *)a, size, MADV_HUGEPAGE); /* a hint: no huge pages is fine */
    return (void *)a;
}

static void
huge_chunk_free(void *chunk, size_t size)
{
    munmap(chunk, size);
}

/* Bytes mapped for a struct_vec array of @cap elements of @size bytes. */
static size_t
vec_map_bytes(size_t cap, size_t size)
{
    return (cap * size + VEC_FIRST_BYTES - 1) & ~(VEC_FIRST_BYTES - 1);
}

void *
struct_vec_reserve(void *v, size_t *cap, size_t n, size_t size)
{
    size_t old = vec_map_bytes(*cap, size), bytes;
    void *p;

    if (n <= *cap)
        return v;
    /* Mappings are multiples of VEC_FIRST_BYTES: an element never spans its rounding. */
    if (size == 0 || size > VEC_FIRST_BYTES || n > SIZE_MAX / 2 / size)
        return NULL;
    bytes = old != 0 ? old * 2 : VEC_FIRST_BYTES;
    while (bytes < n * size)
        bytes *= 2;
    if (v == NULL)
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    else
        p = mremap(v, old, bytes, MREMAP_MAYMOVE);
    if (p == MAP_FAILED)
        return NULL;
    if (bytes >= MODULE_HUGE_BYTES)
        (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint: no huge pages is fine */
    *cap = bytes / size;
    return p;
}

void
struct_vec_free(void *v, size_t cap, size_t size)
{
    if (v != NULL)
        munmap(v, vec_map_bytes(cap, size));
}

/*
 * Set up @a: 256 KB malloc chunks for modules read from XML (many small
 * ones in csprof-prof), huge-page chunks when @large.
 */
static void
module_arena_init(struct arena *a, bool large)
{
    arena_init_malloc(a, large ? MODULE_HUGE_BYTES : MODULE_CHUNK_BYTES, 0);
    if (large) { /* the fields are public; arena.c has no constructor for this source */
        a->chunk_alloc = huge_chunk_alloc;
        a->chunk_free = huge_chunk_free;
    }
}

struct struct_module *
struct_module_new(const char *path)
{
    return struct_module_new_large(path, false);
}

struct struct_module *
struct_module_new_large(const char *path, bool large)
{
    struct struct_module *m = calloc(1, sizeof(*m));

    if (m == NULL)
        return NULL;
    m->large = large;
    module_arena_init(&m->arena, large);
    m->root.kind = CSP_SCOPE_MODULE;
    m->root.name = struct_intern(m, path);
    m->build_id = struct_intern(m, "");
    m->next_id = 1;
    if (m->root.name == NULL || m->build_id == NULL) {
        struct_module_free(m);
        return NULL;
    }
    return m;
}

void
struct_module_free(struct struct_module *m)
{
    if (m == NULL)
        return;
    free(m->index);
    csp_hmap_free(&m->strings);
    for (size_t i = 0; i < m->nxarenas; i++)
        arena_destroy(&m->xarenas[i]);
    free(m->xarenas);
    arena_destroy(&m->arena);
    free(m);
}

void *
struct_module_alloc(struct struct_module *m, size_t size)
{
    return arena_alloc(&m->arena, size);
}

/*
 * Return the module's copy of @s.  The table maps a 64-bit key to a
 * string: the key is the string's hash, and on a collision (another
 * string under the key) the next key of a fixed chain (csp_hash_u64 of
 * key + 1).  Nothing is ever removed, so a lookup that follows the chain
 * to an absent key proves the string absent.
 */
const char *
struct_intern(struct struct_module *m, const char *s)
{
    const char *hit;
    uint64_t key;
    size_t len;
    char *copy;

    if (s == NULL)
        return NULL;
    for (key = csp_hash_str(s); (hit = csp_hmap_get(&m->strings, key)) != NULL;
         key = csp_hash_u64(key + 1))
        if (strcmp(hit, s) == 0)
            return hit;
    len = strlen(s);
    copy = arena_alloc(&m->arena, len + 1);
    if (copy == NULL)
        return NULL;
    memcpy(copy, s, len + 1);
    return csp_hmap_put(&m->strings, key, copy) == 0 ? copy : NULL;
}

struct arena *
struct_module_arenas(struct struct_module *m, size_t n)
{
    struct arena *v = realloc(m->xarenas, (m->nxarenas + n) * sizeof(*v));

    if (v == NULL)
        return NULL;
    m->xarenas = v;
    for (size_t i = 0; i < n; i++)
        module_arena_init(&v[m->nxarenas + i], m->large);
    m->nxarenas += n;
    return &v[m->nxarenas - n];
}

const char *
struct_enclosing_file(const struct struct_scope *s)
{
    for (const struct struct_scope *p = s->parent; p != NULL; p = p->parent)
        if (p->kind == CSP_SCOPE_PROC || p->kind == CSP_SCOPE_INLINE)
            return p->file;
    return NULL;
}

struct struct_scope *
struct_scope_new(struct struct_module *m, struct struct_scope *parent, enum csp_scope kind,
                 const struct struct_range *r, size_t nr)
{
    return struct_scope_new_in(&m->arena, parent, kind, r, nr);
}

struct struct_scope *
struct_scope_new_in(struct arena *a, struct struct_scope *parent, enum csp_scope kind,
                    const struct struct_range *r, size_t nr)
{
    struct struct_scope *s = arena_alloc(a, sizeof(*s));

    if (s == NULL)
        return NULL;
    s->kind = kind;
    if (nr > 0) {
        s->ranges = arena_alloc(a, nr * sizeof(*r));
        if (s->ranges == NULL)
            return NULL;
        memcpy(s->ranges, r, nr * sizeof(*r));
        s->nranges = nr;
    }
    s->parent = parent;
    s->next_sibling = parent->first_child;
    parent->first_child = s;
    return s;
}

static int
strcmp_null(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

/* The order of sibling kinds at one address: a statement before the call site it holds
 * (csprof-struct's files have always listed them so), the rest in enum csp_scope's order. */
static int
kind_rank(enum csp_scope kind)
{
    return kind == CSP_SCOPE_STMT ? CSP_SCOPE_CALL : kind == CSP_SCOPE_CALL ? CSP_SCOPE_STMT : kind;
}

/* Canonical order of siblings: by address, then kind, line, names. */
static int
scope_cmp(const void *pa, const void *pb)
{
    const struct struct_scope *a = *(const struct struct_scope *const *)pa;
    const struct struct_scope *b = *(const struct struct_scope *const *)pb;
    int c;

    if ((a->nranges > 0) != (b->nranges > 0))
        return a->nranges > 0 ? 1 : -1; /* scopes without code (FILE) first */
    if (a->nranges > 0) {
        if (a->ranges[0].lo != b->ranges[0].lo)
            return a->ranges[0].lo < b->ranges[0].lo ? -1 : 1;
        if (a->ranges[0].hi != b->ranges[0].hi)
            return a->ranges[0].hi < b->ranges[0].hi ? -1 : 1;
    }
    if (a->kind != b->kind)
        return kind_rank(a->kind) < kind_rank(b->kind) ? -1 : 1;
    if ((c = strcmp_null(a->name, b->name)) != 0)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if ((c = strcmp_null(a->file, b->file)) != 0)
        return c;
    return 0;
}

#define SORT_SCOPES_LESS(a, b) (scope_cmp((a), (b)) < 0)
typedef struct struct_scope *scope_ref;
CSP_SORT_DEFINE(sort_scopes, scope_ref, SORT_SCOPES_LESS)

#define FINALIZE_STACK 32 /* children sorted without malloc */

/* Sort the children of @s and of all its descendants; number them in pre-order. */
static int
finalize_scope(struct struct_module *m, struct struct_scope *s)
{
    struct struct_scope *c, **v, *stack[FINALIZE_STACK];
    size_t n = 0, i;
    bool sorted = true;

    s->id = m->next_id++;
    for (c = s->first_child; c != NULL; c = c->next_sibling) {
        if (c->next_sibling != NULL && sorted && scope_cmp(&c, &c->next_sibling) > 0)
            sorted = false;
        n++;
    }
    /* sort_scopes is stable: equal scopes keep their order; sorted input stays as it is. */
    if (n > 1 && !sorted) {
        v = n <= FINALIZE_STACK ? stack : malloc(n * sizeof(*v));
        if (v == NULL)
            return STRUCT_ENOMEM;
        for (i = 0, c = s->first_child; c != NULL; c = c->next_sibling)
            v[i++] = c;
        sort_scopes(v, n);
        for (i = 0; i < n; i++)
            v[i]->next_sibling = i + 1 < n ? v[i + 1] : NULL;
        s->first_child = v[0];
        if (v != stack)
            free(v);
    }
    for (c = s->first_child; c != NULL; c = c->next_sibling)
        if (finalize_scope(m, c) != 0)
            return STRUCT_ENOMEM;
    return 0;
}

void
struct_module_finalize(struct struct_module *m)
{
    m->next_id = 1;
    (void)finalize_scope(m, &m->root); /* on ENOMEM the order is partial but valid */
}

const struct struct_scope *
struct_module_root(const struct struct_module *m)
{
    return &m->root;
}

const struct struct_stats *
struct_module_stats(const struct struct_module *m)
{
    return &m->stats;
}

const char *
struct_module_path(const struct struct_module *m)
{
    return m->root.name;
}

const char *
struct_module_build_id(const struct struct_module *m)
{
    return m->build_id;
}

uint64_t
struct_module_entry(const struct struct_module *m)
{
    return m->entry;
}

const char *
struct_strerror(int status)
{
    switch (status) {
    case STRUCT_OK:
        return "success";
    case STRUCT_EIO:
        return "cannot read file";
    case STRUCT_ENOTELF:
        return "not an ELF file, or truncated or corrupt ELF";
    case STRUCT_EARCH:
        return "ELF for an unsupported machine";
    case STRUCT_EXML:
        return "invalid structure file";
    case STRUCT_ENOMEM:
        return "out of memory";
    default:
        return "unknown error";
    }
}

/* ---- lookup index ---------------------------------------------------- */

struct idx_item {
    uint64_t lo, hi;
    uint32_t depth;
    const struct struct_scope *scope;
};

struct idx_build {
    struct idx_item *items;
    size_t n, cap;
};

static int
idx_collect(struct idx_build *b, const struct struct_scope *s, uint32_t depth)
{
    if (s->kind >= CSP_SCOPE_PROC && s->kind != CSP_SCOPE_CALL) {
        for (size_t i = 0; i < s->nranges; i++) {
            if (s->ranges[i].lo >= s->ranges[i].hi)
                continue;
            if (b->n == b->cap) {
                struct idx_item *v = struct_vec_reserve(b->items, &b->cap, b->n + 1, sizeof(*v));

                if (v == NULL)
                    return STRUCT_ENOMEM;
                b->items = v;
            }
            b->items[b->n++] = (struct idx_item){s->ranges[i].lo, s->ranges[i].hi, depth, s};
        }
    }
    for (const struct struct_scope *c = s->first_child; c != NULL; c = c->next_sibling)
        if (idx_collect(b, c, depth + 1) != 0)
            return STRUCT_ENOMEM;
    return 0;
}

static int
idx_item_cmp(const void *pa, const void *pb)
{
    const struct idx_item *a = pa, *b = pb;

    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi > b->hi ? -1 : 1; /* wider first */
    if (a->scope->id != b->scope->id)
        return a->scope->id < b->scope->id ? -1 : 1;
    return 0;
}

#define SORT_IDX_ITEMS_LESS(a, b) (idx_item_cmp((a), (b)) < 0)
CSP_SORT_DEFINE(sort_idx_items, struct idx_item, SORT_IDX_ITEMS_LESS)

/* Append [lo, hi) -> scope to the index, merging with a contiguous equal entry. */
static int
idx_emit(struct struct_module *m, size_t *cap, uint64_t lo, uint64_t hi,
         const struct struct_scope *scope)
{
    struct struct_index_entry *last = m->nindex ? &m->index[m->nindex - 1] : NULL;

    if (lo >= hi)
        return 0;
    if (last != NULL && last->scope == scope && last->hi == lo) {
        last->hi = hi;
        return 0;
    }
    if (csp_vec_reserve(&m->index, cap, m->nindex + 1, sizeof(*m->index)) != 0)
        return STRUCT_ENOMEM;
    m->index[m->nindex++] = (struct struct_index_entry){lo, hi, scope};
    return 0;
}

/*
 * Flatten the scope tree into disjoint intervals, each mapped to the
 * deepest scope covering it: a sweep over ranges sorted by start with a
 * stack of open ranges.  A range that crosses the end of its enclosing
 * open range (malformed input) is clipped to it, so the result is always
 * a partition.
 */
static int
build_index(struct struct_module *m)
{
    struct idx_build b = {0};
    struct idx_item *stack = NULL;
    size_t sp = 0, cap = 0;
    uint64_t cursor = 0;
    int rc;

    rc = idx_collect(&b, &m->root, 0);
    if (rc != 0)
        goto out;
    if (b.n > 0)
        sort_idx_items(b.items, b.n);
    stack = malloc((b.n + 1) * sizeof(*stack));
    /* Each item emits at most two entries (the gap before it, its tail when
     * popped): one allocation instead of a doubling copy of a large array;
     * pages never written are never touched. */
    if (stack == NULL || csp_vec_reserve(&m->index, &cap, 2 * b.n + 1, sizeof(*m->index)) != 0) {
        rc = STRUCT_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i <= b.n; i++) {
        uint64_t lo = i < b.n ? b.items[i].lo : UINT64_MAX;

        while (sp > 0 && stack[sp - 1].hi <= lo) {
            if (cursor < stack[sp - 1].hi) {
                rc = idx_emit(m, &cap, cursor, stack[sp - 1].hi, stack[sp - 1].scope);
                if (rc != 0)
                    goto out;
                cursor = stack[sp - 1].hi;
            }
            sp--;
        }
        if (i == b.n)
            break;
        if (sp > 0) {
            rc = idx_emit(m, &cap, cursor, lo, stack[sp - 1].scope);
            if (rc != 0)
                goto out;
        }
        if (lo > cursor)
            cursor = lo;
        stack[sp] = b.items[i];
        if (sp > 0 && stack[sp].hi > stack[sp - 1].hi)
            stack[sp].hi = stack[sp - 1].hi;
        if (stack[sp].hi > cursor)
            sp++;
    }
    rc = 0;
    if (m->nindex > 0 && m->nindex < cap) { /* give the unused tail back */
        struct struct_index_entry *v = realloc(m->index, m->nindex * sizeof(*v));

        if (v != NULL)
            m->index = v;
    }
out:
    free(stack);
    struct_vec_free(b.items, b.cap, sizeof(*b.items));
    if (rc != 0) {
        free(m->index);
        m->index = NULL;
        m->nindex = 0;
    }
    return rc;
}

const struct struct_scope *
struct_lookup(const struct struct_module *cm, uint64_t offset)
{
    struct struct_module *m = (struct struct_module *)cm; /* the index is a cache */
    ptrdiff_t i;

    if (m == NULL)
        return NULL;
    if (!m->index_built) {
        if (build_index(m) != 0)
            return NULL; /* out of memory: try again next time */
        m->index_built = true;
    }
    i = csp_range_find(m->index, m->nindex, sizeof(*m->index), offset);
    return i >= 0 ? m->index[i].scope : NULL;
}
