/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * thread.c -- the thread registry and the threads' life cycle.
 *
 * Each thread csprof samples has a struct mon_thread in the registry (a
 * list, prepended under registry_lock, never freed while the process runs):
 * begun in the thread's start routine (overrides.c) or by the constructor
 * for the main thread, ended from a TLS-key destructor however the thread
 * exits, and written exactly once (write_once) -- by the thread itself, or
 * by the finaliser that writes every remaining profile at exit, _exit, exec
 * or a fatal signal.  Ordinary context except mon_finalize_from_signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cct/cct.h"
#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"
#include "monitor/mon_signals.h"
#include "monitor/mon_sync.h"
#include "monitor/mon_sys.h"
#include "monitor/mon_write.h"
#include "support/sysio.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mon_thread *_Atomic registry;
static pthread_key_t thread_key;
static atomic_int finalized;     /* a thread has begun writing every profile */
static atomic_int finalize_done; /* ... and has finished */
static volatile pid_t finalizer_tid;
/* The finalizer's own sampling state when a fatal signal writes the profiles: -1 read its
 * mask now; 0 or 1 whether the code the signal interrupted blocked the sampling signal. */
static volatile int finalizer_interrupted_blocked = -1;

/* The calling thread's stack bounds (pthread_getattr_np(3)); 0, 0 when unknown. */
static void
read_stack_bounds(struct mon_thread *td)
{
    pthread_attr_t attr;
    void *addr;
    size_t size;

    td->stack_lo = td->stack_hi = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
        td->stack_lo = (uintptr_t)addr;
        td->stack_hi = (uintptr_t)addr + size;
    }
    pthread_attr_destroy(&attr);
}

static void
thread_key_destructor(void *p)
{
    mon_thread_end(p);
}

struct mon_thread *
mon_thread_begin(void)
{
    struct mon_thread *td;
    int rc;

    td = mmap(NULL, sizeof(*td), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (td == MAP_FAILED)
        return NULL;
    td->tid = (pid_t)syscall(SYS_gettid);
    td->self = pthread_self();
    td->thread_index = mon_process_next_thread_index();
    td->start_ns = mon_clock_ns(CLOCK_REALTIME);
    td->ckpt_last_ns = mon_clock_ns(CLOCK_MONOTONIC);
    read_stack_bounds(td);
    arena_init_mmap(&td->arena, (size_t)1 << 20, mon_proc.arena_limit);
    td->bt.max = CSP_INITIAL_FRAMES; /* deeper walks grow the arrays: mon_bt_grow */
    td->bt.grow = mon_bt_grow;
    td->bt.grow_arg = td;
    td->bt.ips = arena_alloc(&td->arena, CSP_INITIAL_FRAMES * sizeof(uintptr_t));
    td->bt.ra_locs = arena_alloc(&td->arena, CSP_INITIAL_FRAMES * sizeof(uintptr_t));
    td->bt.sps = arena_alloc(&td->arena, CSP_INITIAL_FRAMES * sizeof(uintptr_t));
    td->bt.sigframe = arena_alloc(&td->arena, CSP_INITIAL_FRAMES);
    td->bt_nodes = arena_alloc(&td->arena, CSP_INITIAL_FRAMES * sizeof(*td->bt_nodes));
    td->bt_keys = arena_alloc(&td->arena, CSP_INITIAL_FRAMES * sizeof(uintptr_t));
    td->tree = cct_new(&td->arena, mon_proc.nevents);
    if (td->bt.ips == NULL || td->bt.ra_locs == NULL || td->bt.sps == NULL ||
        td->bt.sigframe == NULL || td->bt_nodes == NULL || td->bt_keys == NULL ||
        td->tree == NULL) {
        arena_destroy(&td->arena);
        munmap(td, sizeof(*td));
        return NULL;
    }
    if (mon_proc.trampoline) {
        struct tramp_frame *shadow =
            arena_alloc(&td->arena, CSP_INITIAL_FRAMES * sizeof(struct tramp_frame));

        /* Grown from the arena by tramp_sample_commit when a deeper stack is cached. */
        tramp_thread_init(&td->tramp, shadow, CSP_INITIAL_FRAMES, shadow != NULL);
    } else {
        tramp_thread_init(&td->tramp, NULL, 0, false);
    }
    tramp_set_self(&td->tramp);
    atomic_store(&td->state, MON_THREAD_RUNNING);
    pthread_mutex_lock(&registry_lock);
    td->next = registry;
    registry = td;
    pthread_mutex_unlock(&registry_lock);
    mon_thread_set_self(td);
    pthread_setspecific(thread_key, td);
    rc = mon_sources_start(td);
    if (rc < 0)
        mon_warn("cannot start sampling this thread", strerror(-rc));
    return td;
}

struct mon_thread *
mon_thread_find(pthread_t t)
{
    struct mon_thread *found = NULL;

    pthread_mutex_lock(&registry_lock);
    for (struct mon_thread *td = registry; td != NULL && found == NULL; td = td->next)
        if (pthread_equal(td->self, t) && atomic_load(&td->state) == MON_THREAD_RUNNING)
            found = td;
    pthread_mutex_unlock(&registry_lock);
    return found;
}

/* Stop @td's sources and wait until no handler runs on it.  Bounded: a thread stuck in
 * the handler for a second is written anyway (its tree is consistent between samples). */
static void
quiesce(struct mon_thread *td)
{
    mon_sources_stop(td);
    for (int i = 0; i < 100000 && td->inside; i++)
        sched_yield();
}

/*
 * Whether @td's thread has the sampling signal blocked now: its own mask for the calling
 * thread, else the SigBlk line of /proc/self/task/TID/status (open/read only).  A thread
 * that kept it blocked got no samples; its profile says so (thread.sampling_blocked).
 */
static bool
thread_sampling_blocked(const struct mon_thread *td)
{
    char path[64], buf[2048];
    unsigned digit = (unsigned)mon_proc.signo - 1; /* bit of the signal in the hex mask */
    const char *line = NULL;
    ssize_t n;
    size_t len;
    int fd;

    if (td == mon_thread_self())
        return finalizer_interrupted_blocked >= 0 && finalizer_tid == td->tid
                   ? finalizer_interrupted_blocked == 1
                   : mon_mask_sampling_blocked();
    snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)td->tid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false; /* the thread has gone */
    n = csp_sys_read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    for (char *p = buf; p != NULL && line == NULL; p = strchr(p, '\n')) {
        p += *p == '\n';
        if (strncmp(p, "SigBlk:", 7) == 0)
            line = p + 7;
    }
    if (line == NULL)
        return false;
    while (*line == '\t' || *line == ' ')
        line++;
    len = strspn(line, "0123456789abcdef");
    if (digit / 4 >= len)
        return false;
    {
        char c = line[len - 1 - digit / 4];
        unsigned v = c <= '9' ? (unsigned)(c - '0') : (unsigned)(c - 'a' + 10);

        return (v >> (digit % 4)) & 1u;
    }
}

/* Write @td's profile unless someone else has; safe to call from any thread.  Returns
 * whether this call wrote it. */
static bool
write_once(struct mon_thread *td)
{
    int expected = MON_THREAD_RUNNING;

    if (!atomic_compare_exchange_strong(&td->state, &expected, MON_THREAD_WRITING))
        return false;
    quiesce(td);
    mon_sync_charge_leaks(td); /* MEMLEAK: its sampled blocks still live now */
    td->sampling_blocked = thread_sampling_blocked(td);
    if (mon_write_profile(td) < 0)
        mon_warn("could not write a profile", strerror(errno));
    atomic_store(&td->state, MON_THREAD_DONE);
    return true;
}

void
mon_thread_end(struct mon_thread *td)
{
    if (td == NULL)
        return;
    mon_sources_stop(td);
    if (write_once(td)) {
        /* The thread is exiting and its profile is written: give its tree's memory back, so
         * that thousands of short threads do not pile up.  Nothing reads the arena of a
         * thread in state DONE (the handler drops its samples first); the trampoline is
         * taken out of the stack before its shadow stack goes. */
        tramp_invalidate(&td->tramp);
        arena_destroy(&td->arena);
        td->tree = NULL;
    }
}

/*
 * Count the threads alive now that csprof has no state for (made by a raw
 * clone, by glibc internally, or while sampling was stopped), and their
 * CPU time, into the process state (written in the main thread's profile).  System
 * calls only (getdents64), so it also runs from a signal handler.  Threads
 * that have already ended are not seen.
 */
static void
count_untracked_threads(void)
{
    char buf[4096];
    long nread;
    int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (fd < 0)
        return;
    while ((nread = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
        for (long off = 0; off < nread;) {
            struct {
                uint64_t ino;
                int64_t off;
                unsigned short reclen;
                unsigned char type;
                char name[];
            } *de = (void *)(buf + off);
            long tid = strtol(de->name, NULL, 10);
            bool known = false;

            off += de->reclen;
            if (tid <= 0)
                continue;
            for (struct mon_thread *td = atomic_load(&registry); td != NULL && !known;
                 td = td->next)
                known = td->tid == tid;
            if (!known) {
                mon_process_count_untracked(mon_thread_cpu_ns((pid_t)tid));
            }
        }
    }
    close(fd);
}

/*
 * Write every thread's profile.  From a signal handler (@from_signal), the
 * load map is not refreshed (dl_iterate_phdr takes the loader's lock) and
 * the registry lock is only tried: the interrupted code may hold it, and
 * the list is safe to walk without it (threads are only prepended, a
 * thread's block is never freed while the process runs).
 */
static void
finalize_all(bool from_signal)
{
    struct mon_thread *self = mon_thread_self();
    bool locked = false;

    mon_process_stop();
    atomic_thread_fence(memory_order_seq_cst);
    if (!from_signal)
        mon_loadmap_refresh();
    else
        mon_output_freeze_map(); /* writers must not take the load-map mutex */
    if (self != NULL)
        mon_sources_stop(self);
    if (!from_signal) {
        pthread_mutex_lock(&registry_lock);
        locked = true;
    } else {
        for (int i = 0; i < 1000 && !locked; i++) {
            locked = pthread_mutex_trylock(&registry_lock) == 0;
            if (!locked)
                sched_yield();
        }
    }
    count_untracked_threads();
    for (struct mon_thread *td = atomic_load(&registry); td != NULL; td = td->next)
        write_once(td);
    /* A thread may be writing its own profile (it was exiting): before the process dies,
     * let it finish (2 s at most), or its file is cut short. */
    for (struct mon_thread *td = atomic_load(&registry); from_signal && td != NULL; td = td->next)
        for (int i = 0; i < 2000 && td != self && atomic_load(&td->state) == MON_THREAD_WRITING;
             i++) {
            struct timespec ms = {0, 1000000};

            nanosleep(&ms, NULL);
        }
    if (locked)
        pthread_mutex_unlock(&registry_lock);
    atomic_store(&finalize_done, 1);
}

void
mon_finalize_process(const char *why)
{
    sigset_t all, old;
    int expected = 0;

    CSP_UNUSED(why);
    if (!atomic_compare_exchange_strong(&finalized, &expected, 1))
        return;
    finalizer_tid = (pid_t)syscall(SYS_gettid);
    /* A fatal signal arriving now waits until the profiles are written (faults.c).  The
     * sampling signal stays open: samples are dropped now, and the thread's own mask is
     * what thread_sampling_blocked reports. */
    sigfillset(&all);
    sigdelset(&all, mon_proc.signo);
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &old, (size_t)(_NSIG / 8));
    finalize_all(false);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, (size_t)(_NSIG / 8));
}

void
mon_finalize_from_signal(int sig, const sigset_t *interrupted_mask)
{
    int expected = 0;
    pid_t me = (pid_t)syscall(SYS_gettid);

    CSP_UNUSED(sig);
    if (!mon_proc.active)
        return;
    if (atomic_compare_exchange_strong(&finalized, &expected, 1)) {
        if (interrupted_mask != NULL)
            finalizer_interrupted_blocked = sigismember(interrupted_mask, mon_proc.signo) == 1;
        finalizer_tid = me;
        finalize_all(true);
        return;
    }
    /* Another thread is writing: let it finish (bounded: 10 s) before the process dies. */
    for (int i = 0; i < 10000 && finalizer_tid != me && !atomic_load(&finalize_done); i++) {
        struct timespec ms = {0, 1000000};

        nanosleep(&ms, NULL);
    }
}

int
mon_threads_init(void)
{
    return pthread_key_create(&thread_key, thread_key_destructor) == 0 ? 0 : -1;
}

/* Take @td out of this thread: its trampoline out of the stack, no self, no TLS key. */
static void
detach_self(struct mon_thread *td)
{
    tramp_invalidate(&td->tramp);
    tramp_set_self(NULL);
    mon_thread_set_self(NULL);
    pthread_setspecific(thread_key, NULL);
}

void
mon_thread_forget_self(void)
{
    struct mon_thread *td = mon_thread_self();

    if (td != NULL) {
        mon_sources_forget(td);
        detach_self(td);
    }
}

void
mon_threads_restart(bool forked)
{
    struct mon_thread *td = mon_thread_self();

    pthread_mutex_init(&registry_lock, NULL);
    registry = NULL;
    if (td != NULL) {
        if (forked)
            mon_sources_forget(td);
        else
            mon_sources_stop(td);
        /* The stack (a copy of the parent's) may hold the trampoline: restore it before
         * the state it returns through goes away. */
        detach_self(td);
        /* The old tree is the parent's (or already written): drop our copy. */
        arena_destroy(&td->arena);
        munmap(td, sizeof(*td));
    }
    atomic_store(&finalized, 0);
    atomic_store(&finalize_done, 0);
    finalizer_tid = 0;
    finalizer_interrupted_blocked = -1;
}
