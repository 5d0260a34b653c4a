/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * forkexec.c -- fork and exec in the profiled process.
 *
 * A fork child that is followed (CSPROF_FOLLOW, the default) starts a
 * profile of its own, in a file of its own, with the forking thread alone;
 * one that is not runs unprofiled.  A failed exec starts the next
 * generation of the same process's profile.  With CSPROF_FOLLOW=0 the
 * monitor also takes itself out of LD_PRELOAD, so that exec'd programs run
 * unprofiled.  The overrides of vfork and the exec family write every
 * profile before the image is replaced and start again if exec fails.
 * Ordinary context.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"
#include "monitor/mon_real.h"
#include "monitor/mon_write.h"

typedef int execve_fn(const char *, char *const[], char *const[]);
typedef int execvpe_fn(const char *, char *const[], char *const[]);
typedef int fexecve_fn(int, char *const[], char *const[]);
typedef pid_t fork_fn(void);

static execve_fn *mon_real_execve;
static execvpe_fn *mon_real_execvpe;
static fexecve_fn *mon_real_fexecve;
static fork_fn *mon_real_fork;

void
mon_resolve_forkexec_functions(void)
{
    MON_REAL_RESOLVE(mon_real_execve, "execve");
    MON_REAL_RESOLVE(mon_real_execvpe, "execvpe");
    MON_REAL_RESOLVE(mon_real_fexecve, "fexecve");
    MON_REAL_RESOLVE(mon_real_fork, "fork");
}

/* After fork (in the child) or a failed exec: this thread alone, a fresh profile. */
static void
restart_alone(bool forked)
{
    mon_threads_restart(forked);
    mon_process_restart(forked);
    if (forked && mon_output_after_fork() < 0)
        mon_warn("cannot create this process's measurement file", strerror(errno));
    mon_thread_begin();
}

void
mon_restart_after_failed_exec(void)
{
    restart_alone(false);
}

void
mon_atfork_child(void)
{
    if (!mon_proc.active)
        return;
    mon_loadmap_after_fork(); /* the loader locks another thread held are free in the child */
    if (mon_proc.follow) {
        restart_alone(true);
        return;
    }
    /* Not following: the child runs unprofiled and writes nothing. */
    mon_process_deactivate();
    mon_thread_forget_self();
}

/*
 * CSPROF_FOLLOW=0: take libcsprof out of LD_PRELOAD (entries are separated
 * by ':' or blanks, ld.so(8)), so that exec'd programs -- by any route:
 * exec*, posix_spawn, system -- run unprofiled.  The program sees the
 * LD_PRELOAD it would have had without csrun.
 */
void
mon_stop_following(void)
{
    const char *old = getenv("LD_PRELOAD");
    char *kept;
    size_t n = 0;

    if (old == NULL)
        return;
    kept = malloc(strlen(old) + 1);
    if (kept == NULL)
        return;
    for (const char *p = old; *p != '\0';) {
        size_t len = strcspn(p, ": \t");
        const char *slash = memrchr(p, '/', len);
        const char *base = slash != NULL ? slash + 1 : p;

        if (len > 0 && strncmp(base, "libcsprof", 9) != 0) {
            if (n > 0)
                kept[n++] = ':';
            memcpy(kept + n, p, len);
            n += len;
        }
        p += len;
        p += *p != '\0';
    }
    kept[n] = '\0';
    if (n == 0)
        unsetenv("LD_PRELOAD");
    else
        setenv("LD_PRELOAD", kept, 1);
    free(kept);
}

/* ---- fork and exec ---- */

/* vfork shares the parent's memory, which the monitor would corrupt; fork is a valid vfork. */
CSP_EXPORT pid_t
vfork(void)
{
    if (mon_real_fork == NULL)
        mon_resolve_real_functions();
    return mon_real_fork();
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
        mon_process_count_exec_not_followed();
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
    if (mon_real_execve == NULL)
        mon_resolve_real_functions();
    RUN_EXEC(mon_real_execve(path, argv, envp), envp);
}

CSP_EXPORT int
execvpe(const char *file, char *const argv[], char *const envp[])
{
    if (mon_real_execvpe == NULL)
        mon_resolve_real_functions();
    RUN_EXEC(mon_real_execvpe(file, argv, envp), envp);
}

CSP_EXPORT int
fexecve(int fd, char *const argv[], char *const envp[])
{
    if (mon_real_fexecve == NULL)
        mon_resolve_real_functions();
    RUN_EXEC(mon_real_fexecve(fd, argv, envp), envp);
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
