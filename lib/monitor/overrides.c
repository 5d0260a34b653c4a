/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * overrides.c -- libc functions libcsprof.so interposes on (LD_PRELOAD).
 *
 * Each override tells the monitor about an event of the program's life --
 * thread creation, _exit, dlopen/dlclose, signal dispositions (fork and exec:
 * forkexec.c) --
 * then calls the real function (mon_real_NAME, mon_real.h), resolved once in
 * the constructor.  Ordinary (non-signal) context.  These, and csprof_*, are
 * the only symbols libcsprof.so exports (see libcsprof.map).
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"
#include "monitor/mon_real.h"
#include "monitor/mon_signals.h"
#include "monitor/mon_write.h"

typedef int pthread_create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef void exit_fn(int);
typedef void *dlopen_fn(const char *, int);
typedef int dlclose_fn(void *);
typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);
typedef int dl_iterate_phdr_fn(int (*)(struct dl_phdr_info *, size_t, void *), void *);

static pthread_create_fn *mon_real_pthread_create;
static exit_fn *mon_real__exit;
static exit_fn *mon_real__Exit;
static dlopen_fn *mon_real_dlopen;
static dlclose_fn *mon_real_dlclose;
static dl_iterate_phdr_fn *mon_real_dl_iterate_phdr;
int (*mon_real_sigaction)(int, const struct sigaction *, struct sigaction *);

void
mon_resolve_real_functions(void)
{
    MON_REAL_RESOLVE(mon_real_pthread_create, "pthread_create");
    MON_REAL_RESOLVE(mon_real__exit, "_exit");
    MON_REAL_RESOLVE(mon_real__Exit, "_Exit");
    MON_REAL_RESOLVE(mon_real_dlopen, "dlopen");
    MON_REAL_RESOLVE(mon_real_dlclose, "dlclose");
    MON_REAL_RESOLVE(mon_real_dl_iterate_phdr, "dl_iterate_phdr");
    MON_REAL_RESOLVE(mon_real_sigaction, "sigaction");
    MON_REAL_RESOLVE(mon_real_sigsuspend, "sigsuspend");
    MON_REAL_RESOLVE(mon_real_pselect, "pselect");
    MON_REAL_RESOLVE(mon_real_ppoll, "ppoll");
    MON_REAL_RESOLVE(mon_real_epoll_pwait, "epoll_pwait");
    MON_REAL_RESOLVE(mon_real_poll, "poll");
    MON_REAL_RESOLVE(mon_real_select, "select");
    MON_REAL_RESOLVE(mon_real_epoll_wait, "epoll_wait");
    MON_REAL_RESOLVE(mon_real_nanosleep, "nanosleep");
    mon_resolve_nonlocal_functions();
    mon_resolve_forkexec_functions();
}

/* ---- threads ---- */

struct thread_start {
    void *(*routine)(void *);
    void *arg;
    bool program_blocks_sampling; /* the creator's mask, as the program sees it */
};

static void *
thread_trampoline_start(void *p)
{
    struct thread_start start = *(struct thread_start *)p;

    free(p);
    /* The thread inherited its creator's real mask, which may block the sampling signal
     * (set by a raw system call, or inherited across exec): open it, and keep what the
     * program believes. */
    mon_mask_set_program_blocks(start.program_blocks_sampling);
    if (mon_proc.active && !mon_process_stopped()) {
        mon_mask_unblock_sampling();
        mon_thread_begin(); /* ended by the TLS key destructor, however the thread exits */
    }
    return start.routine(start.arg);
}

CSP_EXPORT int
pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*routine)(void *), void *arg)
{
    struct thread_start *start;
    int rc;

    if (mon_real_pthread_create == NULL)
        mon_resolve_real_functions();
    mon_ensure_initialized(); /* a library constructor may create threads before ours runs */
    if (!mon_proc.active)
        return mon_real_pthread_create(thread, attr, routine, arg);
    start = malloc(sizeof(*start));
    if (start == NULL)
        return EAGAIN;
    start->routine = routine;
    start->arg = arg;
    start->program_blocks_sampling = mon_mask_program_blocks();
    rc = mon_real_pthread_create(thread, attr, thread_trampoline_start, start);
    if (rc != 0)
        free(start);
    return rc;
}

/* ---- process exit that skips destructors ---- */

CSP_EXPORT void
_exit(int status)
{
    if (mon_real__exit == NULL)
        mon_resolve_real_functions();
    if (mon_proc.active)
        mon_finalize_process("_exit");
    mon_real__exit(status);
    __builtin_unreachable();
}

CSP_EXPORT void
_Exit(int status)
{
    if (mon_real__Exit == NULL)
        mon_resolve_real_functions();
    if (mon_proc.active)
        mon_finalize_process("_Exit");
    mon_real__Exit(status);
    __builtin_unreachable();
}

/* ---- dynamic loading: the load map and its snapshot follow every dlopen and dlclose ---- */

/*
 * Held from the loader's call until the snapshot is refreshed, so that no
 * other dlopen can map a module where a dlclose'd one was while the
 * snapshot still lists the old one (samples there would be attributed to
 * it).  Recursive: constructors and destructors may call dlopen/dlclose.
 * The loader holds its own lock over the same span, so waiting here is
 * waiting the loader imposes anyway -- except when a library that glibc
 * loaded by itself (NSS, iconv) calls dlopen from its constructor, holding
 * the loader's lock but not this one: a thread holding this one and waiting
 * for the loader's would then wait forever.  So the wait is bounded; after
 * LOADER_LOCK_WAIT_S seconds the call goes on unserialized, and is counted.
 */
#define LOADER_LOCK_WAIT_S 1
static pthread_mutex_t loader_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static atomic_uint_fast64_t loader_lock_timeouts;

/* Take loader_lock, waiting at most LOADER_LOCK_WAIT_S; returns whether it was taken. */
static bool
loader_lock_take(void)
{
    struct timespec until;

    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += LOADER_LOCK_WAIT_S;
    if (pthread_mutex_clocklock(&loader_lock, CLOCK_MONOTONIC, &until) == 0)
        return true;
    atomic_fetch_add(&loader_lock_timeouts, 1);
    return false;
}

uint64_t
mon_loader_lock_timeouts(void)
{
    return atomic_load(&loader_lock_timeouts);
}

void
mon_loader_lock_reset(void)
{
    loader_lock = (pthread_mutex_t)PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
}

CSP_EXPORT void *
dlopen(const char *file, int mode)
{
    const void *caller = __builtin_return_address(0); /* whose run paths glibc must search */
    bool locked;
    void *h;

    if (mon_real_dlopen == NULL)
        mon_resolve_real_functions();
    if (!mon_proc.active)
        return mon_dlopen_as_caller(mon_real_dlopen, file, mode, caller);
    locked = loader_lock_take();
    h = mon_dlopen_as_caller(mon_real_dlopen, file, mode, caller);
    mon_loadmap_refresh(); /* a failed dlopen may have loaded and unloaded dependencies */
    if (h != NULL)
        mon_output_publish_loadmap(); /* checkpoints see the new module */
    if (locked)
        pthread_mutex_unlock(&loader_lock);
    return h;
}

CSP_EXPORT int
dlclose(void *handle)
{
    bool locked;
    int rc;

    if (mon_real_dlclose == NULL)
        mon_resolve_real_functions();
    if (!mon_proc.active)
        return mon_real_dlclose(handle);
    locked = loader_lock_take();
    rc = mon_real_dlclose(handle);
    mon_loadmap_refresh();
    if (locked)
        pthread_mutex_unlock(&loader_lock);
    return rc;
}

int
mon_loader_dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
    if (mon_real_dl_iterate_phdr == NULL) /* called before the constructor ran */
        mon_resolve_real_functions();
    return mon_real_dl_iterate_phdr(cb, data);
}

/* ---- signal dispositions csprof owns ---- */

CSP_EXPORT int
sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    int rc;

    if (mon_real_sigaction == NULL)
        mon_resolve_real_functions();
    if (mon_proc.active && mon_signals_intercept(sig, act, old, &rc))
        return rc;
    if (mon_proc.active && act != NULL && sigismember(&act->sa_mask, mon_proc.signo) == 1) {
        /* A handler that blocks every signal must not block sampling while it runs. */
        struct sigaction open = *act;

        sigdelset(&open.sa_mask, mon_proc.signo);
        return mon_real_sigaction(sig, &open, old);
    }
    return mon_real_sigaction(sig, act, old);
}

CSP_EXPORT sighandler_t
signal(int sig, sighandler_t handler)
{
    struct sigaction act, old;

    memset(&act, 0, sizeof(act));
    act.sa_handler = handler;
    act.sa_flags = SA_RESTART; /* glibc's signal() has BSD semantics */
    sigemptyset(&act.sa_mask);
    if (sigaction(sig, &act, &old) < 0)
        return SIG_ERR;
    return old.sa_handler;
}
