/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * src_alloc.c -- the allocation functions, overridden for MEMALLOC and
 * MEMLEAK (mon_sync.h).
 *
 * malloc, calloc, realloc, reallocarray, posix_memalign, aligned_alloc,
 * memalign, valloc, pvalloc and free call the next definition (the C
 * library's, or an allocator preloaded after csprof) and, when an
 * allocation event is on, account the requested size at the caller's
 * context.  C++ operator new and new[] (every variant) reach malloc, and the
 * aligned ones aligned_alloc, through libstdc++'s PLT, so they are counted
 * here with operator new as the leaf frame.  realloc counts the new size as
 * a new allocation (as tcmalloc does) and forgets the old block.
 *
 * The real functions (mon_real_NAME) are found with dlsym(RTLD_NEXT)
 * (mon_real_resolve, MON_REAL_NEXT) on first use, which may itself
 * allocate: while a thread resolves, its allocations come from a static
 * bootstrap buffer whose blocks are never freed or reallocated in place.  With no allocation event the overrides only forward (errno,
 * results and failures are the real function's).  Ordinary context; the
 * sampling handler never allocates.  Allocations made by csprof's own code
 * are not counted (the caller is in libcsprof).
 */
#include <errno.h>
#include <malloc.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_real.h"
#include "monitor/mon_sync.h"

typedef void *malloc_fn(size_t);
typedef void free_fn(void *);
typedef void *calloc_fn(size_t, size_t);
typedef void *realloc_fn(void *, size_t);
typedef void *reallocarray_fn(void *, size_t, size_t);
typedef int posix_memalign_fn(void **, size_t, size_t);
typedef void *aligned_alloc_fn(size_t, size_t);
typedef void *valloc_fn(size_t);

static malloc_fn *mon_real_malloc;
static free_fn *mon_real_free;
static calloc_fn *mon_real_calloc;
static realloc_fn *mon_real_realloc;
static reallocarray_fn *mon_real_reallocarray;
static posix_memalign_fn *mon_real_posix_memalign;
static aligned_alloc_fn *mon_real_aligned_alloc, *mon_real_memalign;
static valloc_fn *mon_real_valloc, *mon_real_pvalloc;

/* ---- bootstrap: allocations made while dlsym resolves the real functions ---- */

#define BOOT_SIZE   ((size_t)64 * 1024)
#define BOOT_HEADER ((size_t)16) /* each block is preceded by its size */

static alignas(4096) unsigned char boot_buf[BOOT_SIZE];
static atomic_size_t boot_used;
static CSP_TLS int resolving;

static bool
in_boot(const void *p)
{
    return (const unsigned char *)p >= boot_buf && (const unsigned char *)p < boot_buf + BOOT_SIZE;
}

/* A zeroed block of @n bytes aligned to @align (a power of two), or NULL with ENOMEM. */
static void *
boot_alloc(size_t n, size_t align)
{
    size_t used = atomic_load(&boot_used), start, end;

    if (align < BOOT_HEADER)
        align = BOOT_HEADER;
    do {
        start = (used + BOOT_HEADER + align - 1) & ~(align - 1);
        end = start + n;
        if (n > BOOT_SIZE || end > BOOT_SIZE) {
            errno = ENOMEM;
            return NULL;
        }
    } while (!atomic_compare_exchange_weak(&boot_used, &used, end));
    memcpy(boot_buf + start - sizeof(size_t), &n, sizeof(size_t));
    return boot_buf + start;
}

static size_t
boot_size(const void *p)
{
    size_t n;

    memcpy(&n, (const unsigned char *)p - sizeof(size_t), sizeof(size_t));
    return n;
}

/* Resolve every real allocation function; false when this thread is already resolving. */
static bool
resolve(void)
{
    if (resolving)
        return false;
    resolving = 1;
    MON_REAL_RESOLVE_NEXT(mon_real_free, "free", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_calloc, "calloc", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_realloc, "realloc", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_reallocarray, "reallocarray", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_posix_memalign, "posix_memalign", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_aligned_alloc, "aligned_alloc", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_memalign, "memalign", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_valloc, "valloc", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_pvalloc, "pvalloc", NULL);
    /* Last: the others are set when it is. */
    MON_REAL_RESOLVE_NEXT(mon_real_malloc, "malloc", NULL);
    resolving = 0;
    return mon_real_malloc != NULL;
}

#define CALLER ((uintptr_t)__builtin_return_address(0))

/* Account an allocation of @n bytes at @p (NULL: it failed, nothing to count). */
static inline void
count_alloc(void *p, size_t n, uintptr_t caller)
{
    if (mon_sync_alloc_on && p != NULL)
        mon_sync_account(MON_SYNC_MEMALLOC, MON_SYNC_MEMLEAK, n, p, caller);
}

CSP_EXPORT void *
malloc(size_t n)
{
    void *p;

    if (__builtin_expect(mon_real_malloc == NULL, 0) && !resolve())
        return boot_alloc(n, 16);
    if (!mon_sync_alloc_on)
        return mon_real_malloc(n); /* a tail call: no csprof frame in the program's stacks */
    p = mon_real_malloc(n);
    count_alloc(p, n, CALLER);
    return p;
}

CSP_EXPORT void
free(void *p)
{
    if (p == NULL || in_boot(p))
        return;
    if (__builtin_expect(mon_real_free == NULL, 0) && !resolve())
        return; /* cannot happen: p came from a real allocation, so resolution is over */
    if (mon_sync_alloc_on)
        mon_sync_forget(p);
    mon_real_free(p);
}

CSP_EXPORT void *
calloc(size_t n, size_t size)
{
    size_t total;
    void *p;

    if (__builtin_expect(mon_real_calloc == NULL, 0) && !resolve()) {
        if (__builtin_mul_overflow(n, size, &total)) {
            errno = ENOMEM;
            return NULL;
        }
        return boot_alloc(total, 16); /* the buffer is zero and never reused */
    }
    if (!mon_sync_alloc_on)
        return mon_real_calloc(n, size);
    p = mon_real_calloc(n, size);
    if (p != NULL && !__builtin_mul_overflow(n, size, &total))
        count_alloc(p, total, CALLER);
    return p;
}

CSP_EXPORT void *
realloc(void *old, size_t n)
{
    void *p;

    if (old != NULL && in_boot(old)) { /* never in place: move it out of the buffer */
        size_t keep = boot_size(old) < n ? boot_size(old) : n;

        p = malloc(n);
        if (p != NULL)
            memcpy(p, old, keep);
        return p;
    }
    if (__builtin_expect(mon_real_realloc == NULL, 0) && !resolve())
        return old == NULL ? boot_alloc(n, 16) : NULL;
    if (!mon_sync_alloc_on)
        return mon_real_realloc(old, n);
    if (old != NULL)
        mon_sync_forget(old);
    p = mon_real_realloc(old, n);
    count_alloc(p, n, CALLER);
    return p;
}

CSP_EXPORT void *
reallocarray(void *old, size_t n, size_t size)
{
    size_t total;
    void *p;

    if ((old != NULL && in_boot(old)) || mon_real_reallocarray == NULL) {
        if (__builtin_mul_overflow(n, size, &total)) {
            errno = ENOMEM;
            return NULL;
        }
        return realloc(old, total);
    }
    if (!mon_sync_alloc_on)
        return mon_real_reallocarray(old, n, size);
    if (old != NULL)
        mon_sync_forget(old);
    p = mon_real_reallocarray(old, n, size);
    if (p != NULL && !__builtin_mul_overflow(n, size, &total))
        count_alloc(p, total, CALLER);
    return p;
}

CSP_EXPORT int
posix_memalign(void **out, size_t align, size_t n)
{
    int rc;

    if (__builtin_expect(mon_real_posix_memalign == NULL, 0) && !resolve()) {
        if (align < sizeof(void *) || (align & (align - 1)) != 0)
            return EINVAL;
        *out = boot_alloc(n, align);
        return *out != NULL ? 0 : ENOMEM;
    }
    if (!mon_sync_alloc_on)
        return mon_real_posix_memalign(out, align, n);
    rc = mon_real_posix_memalign(out, align, n);
    if (rc == 0)
        count_alloc(*out, n, CALLER);
    return rc;
}

CSP_EXPORT void *
aligned_alloc(size_t align, size_t n)
{
    void *p;

    if (__builtin_expect(mon_real_aligned_alloc == NULL, 0) && !resolve())
        return (align & (align - 1)) == 0 ? boot_alloc(n, align) : NULL;
    if (!mon_sync_alloc_on)
        return mon_real_aligned_alloc(align, n);
    p = mon_real_aligned_alloc(align, n);
    count_alloc(p, n, CALLER);
    return p;
}

CSP_EXPORT void *
memalign(size_t align, size_t n)
{
    void *p;

    if (__builtin_expect(mon_real_memalign == NULL, 0) && !resolve())
        return (align & (align - 1)) == 0 ? boot_alloc(n, align) : NULL;
    if (!mon_sync_alloc_on)
        return mon_real_memalign(align, n);
    p = mon_real_memalign(align, n);
    count_alloc(p, n, CALLER);
    return p;
}

CSP_EXPORT void *
valloc(size_t n)
{
    void *p;

    if (__builtin_expect(mon_real_valloc == NULL, 0) && !resolve())
        return boot_alloc(n, 4096);
    if (!mon_sync_alloc_on)
        return mon_real_valloc(n);
    p = mon_real_valloc(n);
    count_alloc(p, n, CALLER);
    return p;
}

CSP_EXPORT void *
pvalloc(size_t n)
{
    void *p;

    if (__builtin_expect(mon_real_pvalloc == NULL, 0) && !resolve())
        return boot_alloc((n + 4095) & ~(size_t)4095, 4096);
    if (!mon_sync_alloc_on)
        return mon_real_pvalloc(n);
    p = mon_real_pvalloc(n);
    count_alloc(p, n, CALLER);
    return p;
}
