/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * overrides.c -- libc functions libcsprof.so interposes on (LD_PRELOAD).
 *
 * Each override tells the monitor about an event of the program's life --
 * thread creation, fork, exec, _exit, dlopen/dlclose, signal dispositions --
 * then calls the real function, found once with dlsym(RTLD_NEXT) in the
 * constructor.  Ordinary (non-signal) context.  These, and csprof_*, are
 * the only symbols libcsprof.so exports (see libcsprof.map).
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"
#include "monitor/mon_write.h"

typedef int pthread_create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int execve_fn(const char *, char *const[], char *const[]);
typedef int execvpe_fn(const char *, char *const[], char *const[]);
typedef int fexecve_fn(int, char *const[], char *const[]);
typedef void exit_fn(int);
typedef void *dlopen_fn(const char *, int);
typedef int dlclose_fn(void *);
typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);
typedef pid_t fork_fn(void);
typedef int dl_iterate_phdr_fn(int (*)(struct dl_phdr_info *, size_t, void *), void *);

static pthread_create_fn *real_pthread_create;
static execve_fn *real_execve;
static execvpe_fn *real_execvpe;
static fexecve_fn *real_fexecve;
static exit_fn *real__exit;
static exit_fn *real__Exit;
static dlopen_fn *real_dlopen;
static dlclose_fn *real_dlclose;
static fork_fn *real_fork;
static dl_iterate_phdr_fn *real_dl_iterate_phdr;
int (*mon_real_sigaction)(int, const struct sigaction *, struct sigaction *);

/* ISO C forbids converting object to function pointers; route dlsym through one place. */
static void *
resolve(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);

    if (p == NULL)
        p = dlsym(RTLD_DEFAULT, name);
    return p;
}

#define RESOLVE(var, name) memcpy(&(var), &(void *){resolve(name)}, sizeof(var))

void
mon_resolve_real_functions(void)
{
    RESOLVE(real_pthread_create, "pthread_create");
    RESOLVE(real_execve, "execve");
    RESOLVE(real_execvpe, "execvpe");
    RESOLVE(real_fexecve, "fexecve");
    RESOLVE(real__exit, "_exit");
    RESOLVE(real__Exit, "_Exit");
    RESOLVE(real_dlopen, "dlopen");
    RESOLVE(real_dlclose, "dlclose");
    RESOLVE(real_fork, "fork");
    RESOLVE(real_dl_iterate_phdr, "dl_iterate_phdr");
    RESOLVE(mon_real_sigaction, "sigaction");
    RESOLVE(mon_real_sigsuspend, "sigsuspend");
    RESOLVE(mon_real_pselect, "pselect");
    RESOLVE(mon_real_ppoll, "ppoll");
    RESOLVE(mon_real_epoll_pwait, "epoll_pwait");
    RESOLVE(mon_real_poll, "poll");
    RESOLVE(mon_real_select, "select");
    RESOLVE(mon_real_epoll_wait, "epoll_wait");
    RESOLVE(mon_real_nanosleep, "nanosleep");
    mon_resolve_nonlocal_functions();
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
    if (mon_proc.active && !atomic_load(&mon_proc.stopped)) {
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

    if (real_pthread_create == NULL)
        mon_resolve_real_functions();
    mon_ensure_initialized(); /* a library constructor may create threads before ours runs */
    if (!mon_proc.active)
        return real_pthread_create(thread, attr, routine, arg);
    start = malloc(sizeof(*start));
    if (start == NULL)
        return EAGAIN;
    start->routine = routine;
    start->arg = arg;
    start->program_blocks_sampling = mon_mask_program_blocks();
    rc = real_pthread_create(thread, attr, thread_trampoline_start, start);
    if (rc != 0)
        free(start);
    return rc;
}

/* ---- fork and exec ---- */

/* vfork shares the parent's memory, which the monitor would corrupt; fork is a valid vfork. */
CSP_EXPORT pid_t
vfork(void)
{
    if (real_fork == NULL)
        mon_resolve_real_functions();
    return real_fork();
}

/* Whether @envp holds NAME=... with a value containing @part (NULL: any value). */
static bool
env_has(char *const envp[], const char *name, const char *part)
{
    size_t len = strlen(name);

    for (size_t i = 0; envp != NULL && envp[i] != NULL; i++)
        if (strncmp(envp[i], name, len) == 0 && envp[i][len] == '=')
            return part == NULL || strstr(envp[i] + len + 1, part) != NULL;
    return false;
}

/* Write every profile before the image is replaced; resume sampling if exec fails.  An
 * environment without csprof's LD_PRELOAD entry or CSPROF_OUTDIR (execve with an empty
 * one, env -i...) is not followed: counted in the profile, csrun reports it. */
static void
before_exec(char *const envp[])
{
    if (!mon_proc.active)
        return;
    if (mon_proc.follow &&
        (!env_has(envp, "LD_PRELOAD", "libcsprof") || !env_has(envp, "CSPROF_OUTDIR", NULL)))
        atomic_fetch_add(&mon_proc.exec_not_followed, 1);
    mon_finalize_process("exec");
}

static void
after_failed_exec(void)
{
    if (mon_proc.active)
        mon_restart_after_failed_exec(); /* same process: new profile, next generation */
}

/* Write the profiles, exec; if that fails, sample on with a new profile.  errno is the exec's. */
#define RUN_EXEC(call, envp) \
    do {                     \
        int rc_, err_;       \
                             \
        before_exec(envp);   \
        rc_ = (call);        \
        err_ = errno;        \
        after_failed_exec(); \
        errno = err_;        \
        return rc_;          \
    } while (0)

CSP_EXPORT int
execve(const char *path, char *const argv[], char *const envp[])
{
    if (real_execve == NULL)
        mon_resolve_real_functions();
    RUN_EXEC(real_execve(path, argv, envp), envp);
}

CSP_EXPORT int
execvpe(const char *file, char *const argv[], char *const envp[])
{
    if (real_execvpe == NULL)
        mon_resolve_real_functions();
    RUN_EXEC(real_execvpe(file, argv, envp), envp);
}

CSP_EXPORT int
fexecve(int fd, char *const argv[], char *const envp[])
{
    if (real_fexecve == NULL)
        mon_resolve_real_functions();
    RUN_EXEC(real_fexecve(fd, argv, envp), envp);
}

CSP_EXPORT int
execv(const char *path, char *const argv[])
{
    return execve(path, argv, environ);
}

CSP_EXPORT int
execvp(const char *file, char *const argv[])
{
    return execvpe(file, argv, environ);
}

/* The execl family: collect the variadic arguments, then use the vector forms. */
static char **
collect_args(const char *arg0, va_list ap, char ***envp_out)
{
    va_list count_ap;
    size_t n = 1;
    char **argv;

    va_copy(count_ap, ap);
    while (va_arg(count_ap, char *) != NULL)
        n++;
    va_end(count_ap);
    argv = malloc((n + 1) * sizeof(*argv));
    if (argv == NULL)
        return NULL;
    argv[0] = (char *)arg0;
    for (size_t i = 1; i <= n; i++)
        argv[i] = va_arg(ap, char *); /* the last one read is the NULL terminator */
    if (envp_out != NULL)
        *envp_out = va_arg(ap, char **);
    return argv;
}

CSP_EXPORT int
execl(const char *path, const char *arg0, ...)
{
    va_list ap;
    char **argv;
    int rc;

    va_start(ap, arg0);
    argv = collect_args(arg0, ap, NULL);
    va_end(ap);
    if (argv == NULL) {
        errno = ENOMEM;
        return -1;
    }
    rc = execve(path, argv, environ);
    free(argv);
    return rc;
}

CSP_EXPORT int
execlp(const char *file, const char *arg0, ...)
{
    va_list ap;
    char **argv;
    int rc;

    va_start(ap, arg0);
    argv = collect_args(arg0, ap, NULL);
    va_end(ap);
    if (argv == NULL) {
        errno = ENOMEM;
        return -1;
    }
    rc = execvpe(file, argv, environ);
    free(argv);
    return rc;
}

CSP_EXPORT int
execle(const char *path, const char *arg0, ...)
{
    va_list ap;
    char **argv, **envp = NULL;
    int rc;

    va_start(ap, arg0);
    argv = collect_args(arg0, ap, &envp);
    va_end(ap);
    if (argv == NULL) {
        errno = ENOMEM;
        return -1;
    }
    rc = execve(path, argv, envp);
    free(argv);
    return rc;
}

/* ---- process exit that skips destructors ---- */

CSP_EXPORT void
_exit(int status)
{
    if (real__exit == NULL)
        mon_resolve_real_functions();
    if (mon_proc.active)
        mon_finalize_process("_exit");
    real__exit(status);
    __builtin_unreachable();
}

CSP_EXPORT void
_Exit(int status)
{
    if (real__Exit == NULL)
        mon_resolve_real_functions();
    if (mon_proc.active)
        mon_finalize_process("_Exit");
    real__Exit(status);
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

    if (real_dlopen == NULL)
        mon_resolve_real_functions();
    if (!mon_proc.active)
        return mon_dlopen_as_caller(real_dlopen, file, mode, caller);
    locked = loader_lock_take();
    h = mon_dlopen_as_caller(real_dlopen, file, mode, caller);
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

    if (real_dlclose == NULL)
        mon_resolve_real_functions();
    if (!mon_proc.active)
        return real_dlclose(handle);
    locked = loader_lock_take();
    rc = real_dlclose(handle);
    mon_loadmap_refresh();
    if (locked)
        pthread_mutex_unlock(&loader_lock);
    return rc;
}

int
mon_real_dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
    if (real_dl_iterate_phdr == NULL) /* called before the constructor ran */
        mon_resolve_real_functions();
    return real_dl_iterate_phdr(cb, data);
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
