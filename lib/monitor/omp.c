/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * omp.c -- overrides of the OpenMP runtimes' entry points that record
 * OpenMP creation contexts (mon_omp.h): libgomp's (GCC) and LLVM libomp's
 * (clang).
 *
 * GCC outlines the body of `#pragma omp parallel` into a function and calls
 * GOMP_parallel (or GOMP_parallel_loop_*, GOMP_parallel_sections) with it;
 * `#pragma omp task` calls GOMP_task.  clang calls libomp's
 * __kmpc_fork_call and __kmpc_omp_task_alloc (sections below).  Each override walks the creating
 * thread's stack (program context, the thread's own sampling held off by
 * its `inside` flag), keeps the calling context as CCT keys, and hands
 * the runtime a runner in the section csprof_omp_run instead of the body:
 * the runner records the context on the thread that runs it, calls the
 * body, and forgets the context.  Contexts nest: a region or task created
 * inside another's body gets its own frames followed by its creator's
 * context.  The trampoline is taken out when a thread enters OpenMP (a
 * team thread's samples are full walks).  libgomp's own data layouts are
 * untouched; the runtime sees only another function and argument.
 * Ordinary context (the program's calls into the OpenMP runtime).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cct/cct.h"
#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"
#include "monitor/mon_omp.h"
#include "monitor/mon_real.h"
#include "support/sysio.h"
#include "trampoline/tramp.h"
#include "unwind/uw.h"

typedef void body_fn(void *);
typedef void copy_fn(void *, void *);

static atomic_uint_fast64_t region_seq;

/* GNU ld defines the bounds of a section whose name is a C identifier. */
extern const char __start_csprof_omp_run[] __attribute__((visibility("hidden")));
extern const char __stop_csprof_omp_run[] __attribute__((visibility("hidden")));
const char *const mon_omp_run_lo = __start_csprof_omp_run;
const char *const mon_omp_run_hi = __stop_csprof_omp_run;

/* Placeholders: distinct bodies, so that no linker folds them into one address. */
CSP_EXPORT CSP_NOINLINE void
csprof_omp_idle(void)
{
    __asm__ volatile("" ::: "memory");
}

CSP_EXPORT CSP_NOINLINE void
csprof_omp_barrier(void)
{
    __asm__ volatile("nop" ::: "memory");
}

void (*const mon_omp_idle_fn)(void) = csprof_omp_idle;
void (*const mon_omp_barrier_fn)(void) = csprof_omp_barrier;

/* Set @var (mon_real_NAME) to the real entry point @name on the first call (mon_real.h). */
#define RESOLVE(var, name)                   \
    do {                                     \
        if ((var) == NULL)                   \
            MON_REAL_RESOLVE((var), (name)); \
    } while (0)

/* This thread's profiling state when OpenMP contexts can be recorded, else NULL. */
static struct mon_thread *
omp_thread(void)
{
    struct mon_thread *td = mon_thread_self();

    if (td == NULL || !mon_proc.active || td->tree == NULL)
        return NULL;
    if (td->omp == NULL) {
        void *p = mmap(NULL, sizeof(struct mon_omp_thread), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        if (p == MAP_FAILED)
            return NULL;
        td->omp = p; /* zero-filled */
    }
    return td;
}

/* Hold this thread's sampling off while its state changes (the handler drops the sample). */
static void
enter(struct mon_thread *td)
{
    td->inside = 1;
    atomic_thread_fence(memory_order_seq_cst);
}

static void
leave(struct mon_thread *td)
{
    atomic_thread_fence(memory_order_seq_cst);
    td->inside = 0;
}

/* Walk this thread's stack from here into td->bt, a fault ending the walk.  Returns uw_backtrace's
 * status.  Between enter() and leave(), inside mon_snapshot_enter(). */
static CSP_NOINLINE int
walk_here(struct mon_thread *td)
{
    td->bt.stop_ip = 0;
    td->bt.depth = 0;
    td->unw_masked = 0;
    td->in_unwind = 1;
    if (sigsetjmp(td->unwind_escape, 0) != 0) { /* the walk faulted: keep no frame */
        td->in_unwind = 0;
        td->bt.depth = 0;
        return UW_EPARTIAL;
    }
    return uw_backtrace_here(&td->bt);
}

/*
 * Record the calling context of the construct whose call site is @callsite
 * (the return address of the override) into @keys (at most @max), the call
 * site first.  Frames above an enclosing runner are replaced by that
 * runner's context.  Returns the number of keys; *rooted says whether the
 * context reaches the thread's root.  Between enter() and leave().
 */
static uint32_t
capture(struct mon_thread *td, uintptr_t callsite, uintptr_t *keys, uint32_t max, bool *rooted)
{
    struct mon_omp_thread *o = td->omp;
    size_t n, first = 0, cut = 0;
    uint32_t nkeys = 0;
    int rc;

    *rooted = false;
    mon_snapshot_enter(td);
    rc = walk_here(td);
    n = td->bt.depth;
    for (size_t i = 1; i < n; i++)
        if (td->bt.ips[i] == callsite) {
            first = i;
            break;
        }
    if (first > 0) {
        for (size_t i = first + 1; i < n; i++)
            if (mon_omp_in_runner(td->bt.ips[i])) {
                cut = i;
                break;
            }
        nkeys = (uint32_t)((cut > 0 ? cut : n) - first);
        if (nkeys > max)
            nkeys = max;
        mon_snapshot_keys(td, td->bt.ips + first, keys, nkeys);
        if (cut > 0 && o->depth > 0 && o->overflow == 0) {
            uint32_t top = o->depth - 1, m = o->ctx_n[top];

            if (nkeys + m > max)
                m = max - nkeys;
            memcpy(keys + nkeys, o->ctx_keys[top], m * sizeof(*keys));
            *rooted = o->ctx_rooted[top] && m == o->ctx_n[top] && (cut - first) <= max;
            nkeys += m;
        } else if (cut == 0) {
            *rooted = rc == UW_OK && n - first <= max;
        }
    }
    mon_snapshot_exit(td);
    return nkeys;
}

/*
 * The creating side of a region: take the trampoline out, record the
 * context, open the region.  Returns false when nothing is recorded (the
 * caller then passes the body to the runtime unchanged).
 */
static bool
region_begin(struct mon_omp_region *r, body_fn *fn, void *data, uintptr_t callsite)
{
    struct mon_thread *td = omp_thread();
    struct mon_omp_thread *o;

    if (td == NULL || td->inside)
        return false;
    o = td->omp;
    if (o->nopen >= MON_OMP_MAX_NEST)
        return false;
    tramp_nonlocal_exit(tramp_self(), (uintptr_t)__builtin_frame_address(0), false);
    enter(td);
    r->fn = fn;
    r->data = data;
    r->creator = td;
    r->seq = atomic_fetch_add(&region_seq, 1) + 1;
    r->nkeys = capture(td, callsite, r->keys, MON_OMP_MAX_PATH, &r->rooted);
    /* Until its body runs here, and after: this region's start and end on this thread. */
    if (cct_insert_callsites(td->tree, cct_root(td->tree), r->keys, r->nkeys, &o->last_graft) ==
        CCT_OK) {
        o->last_rooted = r->rooted;
        o->last_seq = r->seq;
        o->last_creator = td;
    }
    o->parallel_depth++;
    o->open_seq[o->nopen] = r->seq;
    o->nopen++;
    leave(td);
    return true;
}

static void
region_end(struct mon_omp_region *r)
{
    struct mon_thread *td = r->creator;
    struct mon_omp_thread *o = td->omp;

    enter(td);
    o->nopen--;
    o->open_seq[o->nopen] = 0;
    o->parallel_depth--;
    leave(td);
}

/*
 * A runner starts: this thread now runs a body created in the context
 * @keys.  Returns whether the context was pushed (run_end must pop it).
 */
static bool
run_begin(const uintptr_t *keys, uint32_t nkeys, bool rooted, struct mon_thread *creator,
          uint64_t seq, bool region)
{
    struct mon_thread *td = omp_thread();
    struct mon_omp_thread *o;
    struct cct_node *graft = NULL;

    if (td == NULL || td->inside)
        return false;
    o = td->omp;
    if (!mon_omp_plain_walk(td)) /* this thread's first OpenMP body: full walks from now on */
        tramp_nonlocal_exit(tramp_self(), (uintptr_t)__builtin_frame_address(0), false);
    enter(td);
    if (region && creator != td)
        o->worker = true;
    if (o->depth >= MON_OMP_MAX_NEST || o->overflow > 0 ||
        cct_insert_callsites(td->tree, cct_root(td->tree), keys, nkeys, &graft) != CCT_OK) {
        o->overflow++; /* this body's samples are inserted as ordinary ones */
        leave(td);
        return true;
    }
    o->graft[o->depth] = graft;
    o->ctx_keys[o->depth] = keys;
    o->ctx_n[o->depth] = nkeys;
    o->ctx_rooted[o->depth] = rooted;
    o->ctx_seq[o->depth] = seq;
    o->ctx_creator[o->depth] = creator;
    o->depth++;
    leave(td);
    return true;
}

static void
run_end(bool pushed, bool region)
{
    struct mon_thread *td = mon_thread_self();
    struct mon_omp_thread *o;

    if (!pushed || td == NULL || td->omp == NULL)
        return;
    o = td->omp;
    enter(td);
    if (o->overflow > 0) {
        o->overflow--;
    } else if (o->depth > 0) {
        o->depth--;
        if (region) {
            o->last_graft = o->graft[o->depth];
            o->last_rooted = o->ctx_rooted[o->depth];
            o->last_seq = o->ctx_seq[o->depth];
            o->last_creator = o->ctx_creator[o->depth];
        }
    }
    leave(td);
}

/* The runners: the only code in section csprof_omp_run (mon_omp_in_runner). */
__attribute__((section("csprof_omp_run"), noinline)) CSP_NOCLONE static void
run_region(void *arg)
{
    struct mon_omp_region *r = arg;
    bool pushed = run_begin(r->keys, r->nkeys, r->rooted, r->creator, r->seq, true);

    r->fn(r->data);
    run_end(pushed, true);
    __asm__ volatile("" ::: "memory"); /* no tail call: the runner's frame stays on the stack */
}

/* ---- parallel regions ---- */

/* The override of a region-creating entry point NAME(fn, data, ARGS...). */
#define MON_OMP_PARALLEL(ret, name, params, args)                                \
    ret name params;                                                             \
    CSP_EXPORT ret name params                                                   \
    {                                                                            \
        static ret(*mon_real_##name) params;                                     \
        struct mon_omp_region r;                                                 \
        RESOLVE(mon_real_##name, #name);                                         \
        if (!region_begin(&r, fn, data, (uintptr_t)__builtin_return_address(0))) \
            MON_OMP_PASS_##ret(mon_real_##name args);                            \
        fn = run_region;                                                         \
        data = &r;                                                               \
        MON_OMP_CALL_##ret(mon_real_##name args);                                \
    }
#define MON_OMP_PASS_void(call) \
    do {                        \
        call;                   \
        return;                 \
    } while (0)
#define MON_OMP_PASS_unsigned(call) return call
#define MON_OMP_CALL_void(call) \
    do {                        \
        call;                   \
        region_end(&r);         \
    } while (0)
#define MON_OMP_CALL_unsigned(call) \
    do {                            \
        unsigned v = call;          \
        region_end(&r);             \
        return v;                   \
    } while (0)

MON_OMP_PARALLEL(void, GOMP_parallel, (body_fn * fn, void *data, unsigned nthreads, unsigned flags),
                 (fn, data, nthreads, flags))
MON_OMP_PARALLEL(unsigned, GOMP_parallel_reductions,
                 (body_fn * fn, void *data, unsigned nthreads, unsigned flags),
                 (fn, data, nthreads, flags))
MON_OMP_PARALLEL(void, GOMP_parallel_sections,
                 (body_fn * fn, void *data, unsigned nthreads, unsigned count, unsigned flags),
                 (fn, data, nthreads, count, flags))
#define MON_OMP_LOOP(name)                                                               \
    MON_OMP_PARALLEL(void, name,                                                         \
                     (body_fn * fn, void *data, unsigned nthreads, long start, long end, \
                      long incr, long chunk, unsigned flags),                            \
                     (fn, data, nthreads, start, end, incr, chunk, flags))
#define MON_OMP_LOOP_RUNTIME(name)                                                       \
    MON_OMP_PARALLEL(void, name,                                                         \
                     (body_fn * fn, void *data, unsigned nthreads, long start, long end, \
                      long incr, unsigned flags),                                        \
                     (fn, data, nthreads, start, end, incr, flags))
MON_OMP_LOOP(GOMP_parallel_loop_static)
MON_OMP_LOOP(GOMP_parallel_loop_dynamic)
MON_OMP_LOOP(GOMP_parallel_loop_guided)
MON_OMP_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic)
MON_OMP_LOOP(GOMP_parallel_loop_nonmonotonic_guided)
MON_OMP_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
MON_OMP_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
MON_OMP_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

/* ---- tasks ---- */

/*
 * A task's argument as the runtime copies it: this header (with the
 * creation context), then the program's argument at @off.  The runtime
 * copies it with copy_task (a copy function is always given), which copies
 * the header and then the program's argument, with the program's copy
 * function if it had one.
 */
struct task_header {
    body_fn *fn;
    copy_fn *cpyfn; /* the program's, or NULL: memcpy of @size bytes */
    void *src;      /* the program's argument, valid during GOMP_task only */
    long size, off;
    bool rooted;
    uint32_t nkeys;
    uintptr_t keys[MON_OMP_MAX_TASK_PATH];
};

static void
copy_task(void *dst, void *src)
{
    const struct task_header *h = src;

    memcpy(dst, h, sizeof(*h));
    if (h->cpyfn != NULL)
        h->cpyfn((char *)dst + h->off, h->src);
    else if (h->size > 0)
        memcpy((char *)dst + h->off, h->src, (size_t)h->size);
}

__attribute__((section("csprof_omp_run"), noinline)) CSP_NOCLONE static void
run_task(void *arg)
{
    struct task_header *h = arg;
    bool pushed = run_begin(h->keys, h->nkeys, h->rooted, NULL, 0, false);

    h->fn((char *)arg + h->off);
    run_end(pushed, false);
    __asm__ volatile("" ::: "memory");
}

typedef void task_fn(body_fn *, void *, copy_fn *, long, long, bool, unsigned, void **, int,
                     void *);
void GOMP_task(body_fn *fn, void *data, copy_fn *cpyfn, long arg_size, long arg_align,
               bool if_clause, unsigned flags, void **depend, int priority, void *detach);

/* libgomp 9 and later (GCC 9+: the detach argument is new in 11, harmless before). */
CSP_EXPORT void
GOMP_task(body_fn *fn, void *data, copy_fn *cpyfn, long arg_size, long arg_align, bool if_clause,
          unsigned flags, void **depend, int priority, void *detach)
{
    static task_fn *mon_real_GOMP_task;
    struct mon_thread *td = omp_thread();
    struct task_header h;
    long align = arg_align > 0 ? arg_align : 1;

    RESOLVE(mon_real_GOMP_task, "GOMP_task");
    if (td == NULL || td->inside || align > 4096) {
        mon_real_GOMP_task(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority,
                           detach);
        return;
    }
    enter(td);
    h.fn = fn;
    h.cpyfn = cpyfn;
    h.src = data;
    h.size = arg_size;
    h.off = ((long)sizeof(h) + align - 1) / align * align;
    h.nkeys = capture(td, (uintptr_t)__builtin_return_address(0), h.keys, MON_OMP_MAX_TASK_PATH,
                      &h.rooted);
    leave(td);
    if (align < (long)_Alignof(struct task_header))
        align = (long)_Alignof(struct task_header);
    mon_real_GOMP_task(run_task, &h, copy_task, h.off + arg_size, align, if_clause, flags, depend,
                       priority, detach);
}

/* ---- LLVM's libomp: __kmpc_fork_call ---- */

/*
 * clang outlines a region into a "microtask" fn(gtid, btid, shared...) and
 * calls __kmpc_fork_call(loc, argc, fn, shared...): argc pointer-sized
 * shared arguments.  The override passes libomp a runner with one more
 * shared argument, the region, first; the runner calls the microtask with
 * the program's arguments.  C cannot forward variable arguments, so both
 * calls are spelled out for each count, up to MON_KMP_MAX_ARGS.
 */
#define MON_KMP_MAX_ARGS 15
#if defined(__clang__)
/* the clang build's forwarding of a larger call (no __builtin_apply): 64 arguments */
#    define MON_KMP_FWD_MAX 64
#    define MON_KMP_FWD8(a, i) \
        a[i], a[i + 1], a[i + 2], a[i + 3], a[i + 4], a[i + 5], a[i + 6], a[i + 7]
#    define MON_KMP_FWD_ARGS(a)                                                           \
        MON_KMP_FWD8(a, 0), MON_KMP_FWD8(a, 8), MON_KMP_FWD8(a, 16), MON_KMP_FWD8(a, 24), \
            MON_KMP_FWD8(a, 32), MON_KMP_FWD8(a, 40), MON_KMP_FWD8(a, 48), MON_KMP_FWD8(a, 56)
#endif

typedef void kmp_micro(int32_t *, int32_t *, ...);
typedef void kmp_fork_fn(void *, int32_t, kmp_micro *, ...);

struct kmp_region {
    kmp_micro *micro;
    int32_t argc;
};

#define MON_KMP_A1  a[0]
#define MON_KMP_A2  MON_KMP_A1, a[1]
#define MON_KMP_A3  MON_KMP_A2, a[2]
#define MON_KMP_A4  MON_KMP_A3, a[3]
#define MON_KMP_A5  MON_KMP_A4, a[4]
#define MON_KMP_A6  MON_KMP_A5, a[5]
#define MON_KMP_A7  MON_KMP_A6, a[6]
#define MON_KMP_A8  MON_KMP_A7, a[7]
#define MON_KMP_A9  MON_KMP_A8, a[8]
#define MON_KMP_A10 MON_KMP_A9, a[9]
#define MON_KMP_A11 MON_KMP_A10, a[10]
#define MON_KMP_A12 MON_KMP_A11, a[11]
#define MON_KMP_A13 MON_KMP_A12, a[12]
#define MON_KMP_A14 MON_KMP_A13, a[13]
#define MON_KMP_A15 MON_KMP_A14, a[14]
/* CALL(f, fixed..., a[0..n-1]) for n = 0..15; returns false for larger n. */
#define MON_KMP_CALL(n, call, ...)      \
    switch (n) {                        \
    case 0:                             \
        call(__VA_ARGS__);              \
        break;                          \
    case 1:                             \
        call(__VA_ARGS__, MON_KMP_A1);  \
        break;                          \
    case 2:                             \
        call(__VA_ARGS__, MON_KMP_A2);  \
        break;                          \
    case 3:                             \
        call(__VA_ARGS__, MON_KMP_A3);  \
        break;                          \
    case 4:                             \
        call(__VA_ARGS__, MON_KMP_A4);  \
        break;                          \
    case 5:                             \
        call(__VA_ARGS__, MON_KMP_A5);  \
        break;                          \
    case 6:                             \
        call(__VA_ARGS__, MON_KMP_A6);  \
        break;                          \
    case 7:                             \
        call(__VA_ARGS__, MON_KMP_A7);  \
        break;                          \
    case 8:                             \
        call(__VA_ARGS__, MON_KMP_A8);  \
        break;                          \
    case 9:                             \
        call(__VA_ARGS__, MON_KMP_A9);  \
        break;                          \
    case 10:                            \
        call(__VA_ARGS__, MON_KMP_A10); \
        break;                          \
    case 11:                            \
        call(__VA_ARGS__, MON_KMP_A11); \
        break;                          \
    case 12:                            \
        call(__VA_ARGS__, MON_KMP_A12); \
        break;                          \
    case 13:                            \
        call(__VA_ARGS__, MON_KMP_A13); \
        break;                          \
    case 14:                            \
        call(__VA_ARGS__, MON_KMP_A14); \
        break;                          \
    case 15:                            \
        call(__VA_ARGS__, MON_KMP_A15); \
        break;                          \
    default:                            \
        break;                          \
    }

__attribute__((section("csprof_omp_run"), noinline)) CSP_NOCLONE static void
run_kmp(int32_t *gtid, int32_t *btid, ...)
{
    struct mon_omp_region *r;
    struct kmp_region *k;
    void *a[MON_KMP_MAX_ARGS];
    va_list ap;
    bool pushed;

    va_start(ap, btid);
    r = va_arg(ap, struct mon_omp_region *);
    k = r->data;
    for (int32_t i = 0; i < k->argc; i++)
        a[i] = va_arg(ap, void *);
    va_end(ap);
    pushed = run_begin(r->keys, r->nkeys, r->rooted, r->creator, r->seq, true);
    MON_KMP_CALL(k->argc, k->micro, gtid, btid)
    run_end(pushed, true);
    __asm__ volatile("" ::: "memory");
}

void __kmpc_fork_call(void *loc, int32_t argc, kmp_micro *micro, ...);

CSP_EXPORT void
__kmpc_fork_call(void *loc, int32_t argc, kmp_micro *micro, ...)
{
    static kmp_fork_fn *mon_real___kmpc_fork_call;
    struct mon_omp_region r;
    struct kmp_region k = {micro, argc};
    void *shared[MON_KMP_MAX_ARGS + 1], **a = shared + 1;
    va_list ap;

    RESOLVE(mon_real___kmpc_fork_call, "__kmpc_fork_call");
    if (argc < 0 || argc >= MON_KMP_MAX_ARGS) {
        /* More shared variables than spelled out: forward the call as it came. */
#if defined(__clang__)
        /* (clang has no __builtin_apply: up to MON_KMP_FWD_MAX arguments, passed on with
         * null pointers after them, which libomp, reading argc of them, never reads) */
        void *fa[MON_KMP_FWD_MAX] = {0};

        if (argc < 0 || argc > MON_KMP_FWD_MAX) {
            static const char msg[] =
                "csprof: __kmpc_fork_call with more shared arguments than a clang-built "
                "monitor forwards (64)\n";

            csp_sys_write(2, msg, sizeof(msg) - 1);
            abort();
        }
        va_start(ap, micro);
        for (int32_t i = 0; i < argc; i++)
            fa[i] = va_arg(ap, void *);
        va_end(ap);
        mon_real___kmpc_fork_call(loc, argc, micro, MON_KMP_FWD_ARGS(fa));
#else
        void *args = __builtin_apply_args();

        void (*fwd)(void);

        memcpy(&fwd, &mon_real___kmpc_fork_call, sizeof(fwd));
        __builtin_apply(fwd, args, 8 * (size_t)(argc + 8));
#endif
        return;
    }
    va_start(ap, micro);
    for (int32_t i = 0; i < argc; i++)
        a[i] = va_arg(ap, void *);
    va_end(ap);
    if (!region_begin(&r, NULL, &k, (uintptr_t)__builtin_return_address(0))) {
        MON_KMP_CALL(argc, mon_real___kmpc_fork_call, loc, argc, micro)
        return;
    }
    a = shared;
    a[0] = &r;
    MON_KMP_CALL(argc + 1, mon_real___kmpc_fork_call, loc, argc + 1, run_kmp)
    region_end(&r);
}

/* ---- LLVM's libomp: explicit tasks ---- */

/*
 * clang's `#pragma omp task` calls __kmpc_omp_task_alloc(loc, gtid, flags,
 * sizeof_kmp_task_t, sizeof_shareds, entry), which returns a kmp_task_t:
 * the shared-variable pointer and the entry libomp calls as
 * entry(gtid, task), followed by the compiler's private data
 * (sizeof_kmp_task_t bytes in all); libomp places the shared variables
 * right after it, at a pointer-aligned offset.  The override asks for
 * sizeof(struct kmp_task_header) more bytes of task and at least one word
 * of shared variables, so that the header lies just below the shared
 * variables, after everything the compiler's code touches, and replaces the
 * entry by run_kmp_task.  libomp copies a task with its shared-variable
 * offset (taskloop), so a copy's header is found the same way.
 */
struct kmp_task_prefix { /* the start of libomp's kmp_task_t (kmp.h) */
    void *shareds;
    int32_t (*routine)(int32_t, void *);
};

struct kmp_task_header {
    int32_t (*routine)(int32_t, void *); /* the program's entry */
    bool rooted;
    uint32_t nkeys;
    uintptr_t keys[MON_OMP_MAX_TASK_PATH];
};

typedef void *kmp_task_alloc_fn(void *, int32_t, int32_t, size_t, size_t,
                                int32_t (*)(int32_t, void *));

__attribute__((section("csprof_omp_run"), noinline)) CSP_NOCLONE static int32_t
run_kmp_task(int32_t gtid, void *task)
{
    struct kmp_task_prefix *t = task;
    struct kmp_task_header *h = (void *)((char *)t->shareds - sizeof(*h));
    bool pushed = run_begin(h->keys, h->nkeys, h->rooted, NULL, 0, false);
    int32_t rc = h->routine(gtid, task);

    run_end(pushed, false);
    __asm__ volatile("" ::: "memory");
    return rc;
}

void *__kmpc_omp_task_alloc(void *loc, int32_t gtid, int32_t flags, size_t sizeof_task,
                            size_t sizeof_shareds, int32_t (*entry)(int32_t, void *));

CSP_EXPORT void *
__kmpc_omp_task_alloc(void *loc, int32_t gtid, int32_t flags, size_t sizeof_task,
                      size_t sizeof_shareds, int32_t (*entry)(int32_t, void *))
{
    static kmp_task_alloc_fn *mon_real___kmpc_omp_task_alloc;
    struct mon_thread *td = omp_thread();
    struct kmp_task_prefix *t;
    struct kmp_task_header *h;
    size_t task_sz = (sizeof_task + sizeof(void *) - 1) / sizeof(void *) * sizeof(void *);

    RESOLVE(mon_real___kmpc_omp_task_alloc, "__kmpc_omp_task_alloc");
    if (td == NULL || td->inside || entry == NULL || sizeof_task < sizeof(*t) ||
        sizeof_task > SIZE_MAX / 2 || sizeof_shareds > SIZE_MAX / 2)
        return mon_real___kmpc_omp_task_alloc(loc, gtid, flags, sizeof_task, sizeof_shareds, entry);
    t = mon_real___kmpc_omp_task_alloc(loc, gtid, flags, task_sz + sizeof(*h),
                                       sizeof_shareds > 0 ? sizeof_shareds : 1, entry);
    if (t == NULL || t->shareds == NULL || t->routine != entry ||
        (char *)t->shareds - sizeof(*h) < (char *)t + sizeof_task)
        return t; /* not the layout this override knows: the task runs unchanged */
    h = (void *)((char *)t->shareds - sizeof(*h));
    h->routine = entry;
    enter(td);
    h->nkeys = capture(td, (uintptr_t)__builtin_return_address(0), h->keys, MON_OMP_MAX_TASK_PATH,
                       &h->rooted);
    leave(td);
    t->routine = run_kmp_task;
    return t;
}
