/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_real.h -- the real functions behind csprof's overrides: one resolver
 * and one naming (libmonitor's monitor_dlsym plays this part for each of its
 * interposition files).
 *
 * libcsprof.so interposes on libc, libgcc_s, libstdc++, MPI and OpenMP
 * functions (overrides.c, forkexec.c, overrides_nonlocal.c, mpi.c, omp.c, src_alloc.c,
 * src_io.c, eintr_sig.c, sigmask_sig.c).  Each override reaches the function
 * it hides through a pointer named mon_real_NAME, NAME being the hidden
 * function's own name (mon_real_sigaction, mon_real_PMPI_Init,
 * mon_real___vfprintf_chk), file-static where one file calls it, declared
 * here where several do.  Every such pointer is set by mon_real_resolve,
 * through MON_REAL_RESOLVE or MON_REAL_RESOLVE_NEXT.  Lookups of data
 * symbols (ompi_mpi_comm_world) and of the loader's own symbols
 * (__tls_get_addr) are not real functions and call dlsym themselves.
 *
 * Resolution is ordinary context only: the constructor (mon_resolve_real_
 * functions), or an override's first call when it comes before the
 * constructor.  Calling through a resolved pointer is as safe as the real
 * function is.
 */
#ifndef CSP_MON_REAL_H
#define CSP_MON_REAL_H

#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>

#include "support/compiler.h"

/* Where mon_real_resolve looks for @name. */
enum mon_real_scope {
    /* The next definition after libcsprof.so (RTLD_NEXT), else the first one in the global
     * scope (RTLD_DEFAULT), which may be csprof's own override: the libc, MPI and OpenMP
     * functions of overrides.c, mpi.c and omp.c. */
    MON_REAL_NEXT_OR_DEFAULT,
    /* RTLD_NEXT only, never RTLD_DEFAULT (which would find csprof's own override, calling
     * itself); when that misses and @soname is not NULL, the library @soname if it is
     * already loaded (libgcc_s, libstdc++: loaded after csprof, so outside RTLD_NEXT's
     * reach).  Also the scope of the allocation overrides, whose bootstrap (src_alloc.c)
     * must see a miss as a miss. */
    MON_REAL_NEXT,
};

/*
 * The address of the function @name that csprof's override of it hides, looked for in
 * @scope (@soname: with MON_REAL_NEXT only, else ignored; may be NULL).  Returns NULL when
 * no definition is found.  Calls dlsym (which may allocate: src_alloc.c serves those
 * allocations from its bootstrap buffer while it resolves) and, with @soname, dlopen with
 * RTLD_NOLOAD (loads nothing).  Owns nothing; the address stays valid while the defining
 * object stays loaded.  [not async-signal-safe: dlsym, dlopen]
 */
void *mon_real_resolve(const char *name, enum mon_real_scope scope, const char *soname);

/*
 * Store the object pointer @addr into the function pointer @var (ISO C has no conversion
 * between the two; POSIX guarantees dlsym's results convert, and both are one word here).
 * [async-signal-safe]
 */
#define MON_REAL_SET(var, addr)                                                    \
    do {                                                                           \
        void *mon_real_addr_ = (addr);                                             \
        _Static_assert(sizeof(var) == sizeof(mon_real_addr_), "function pointer"); \
        memcpy(&(var), &mon_real_addr_, sizeof(var));                              \
    } while (0)

/* Set @var (mon_real_NAME) to the real function @name, or NULL: MON_REAL_NEXT_OR_DEFAULT. */
#define MON_REAL_RESOLVE(var, name) \
    MON_REAL_SET(var, mon_real_resolve(name, MON_REAL_NEXT_OR_DEFAULT, NULL))

/* Set @var (mon_real_NAME) to the real function @name, or NULL: MON_REAL_NEXT, then the
 * already loaded library @soname (NULL: none). */
#define MON_REAL_RESOLVE_NEXT(var, name, soname) \
    MON_REAL_SET(var, mon_real_resolve(name, MON_REAL_NEXT, soname))

/*
 * The real functions more than one file calls, resolved in the constructor
 * (mon_resolve_real_functions, overrides.c); NULL before it ran, and when
 * the C library has none.
 */
/* signals.c installs csprof's handlers with it; overrides.c's sigaction forwards to it. */
extern int (*mon_real_sigaction)(int, const struct sigaction *, struct sigaction *);
/* The real siglongjmp (ours is an override that tells the trampoline): faults.c escapes a
 * faulting walk with it.  [async-signal-safe] */
extern void (*mon_real_siglongjmp)(sigjmp_buf, int);
/* The functions whose mask argument sigmask_sig.c filters; eintr_sig.c calls the last three
 * with a mask when it keeps the sampling signal out. */
extern int (*mon_real_sigsuspend)(const sigset_t *);
extern int (*mon_real_pselect)(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
                               const sigset_t *);
extern int (*mon_real_ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
extern int (*mon_real_epoll_pwait)(int, struct epoll_event *, int, int, const sigset_t *);
/* The functions eintr_sig.c overrides. */
extern int (*mon_real_poll)(struct pollfd *, nfds_t, int);
extern int (*mon_real_select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
extern int (*mon_real_epoll_wait)(int, struct epoll_event *, int, int);
extern int (*mon_real_nanosleep)(const struct timespec *, struct timespec *);

/* Resolve the real non-local-exit functions, and the selfsave ones (mon_selfsave_real,
 * mon_internal.h), from mon_resolve_real_functions (overrides_nonlocal.c).
 * [not async-signal-safe] */
void mon_resolve_nonlocal_functions(void);

/* Resolve every real function (the mon_real_* pointers, mon_real.h) once, in the constructor
 * (overrides.c).  [not async-signal-safe] */
void mon_resolve_real_functions(void);

#endif /* CSP_MON_REAL_H */
