/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * overrides_nonlocal.c -- non-local exits and stack switches, overridden so
 * the trampoline never misleads the program ([csprof 2005] §2.5.3).
 *
 * longjmp and its family, setcontext/swapcontext, C++ exceptions
 * (_Unwind_RaiseException, _Unwind_Resume, _Unwind_Resume_or_Rethrow,
 * _Unwind_ForcedUnwind), the program's own stack walks (_Unwind_Backtrace,
 * backtrace), pthread_exit, __pthread_unwind_next and pthread_cancel: each
 * takes the trampoline out of the stack
 * and forgets the shadow stack before the real function runs, so the
 * program's unwinder never meets the trampoline's address and the next
 * sample reconciles with a full walk.  Unwinding and stack walks also
 * suspend installation until they are over (__cxa_begin_catch, the walk's
 * return, or a sample above the point where they began).  The exception
 * entry points and the stack walks end in a tail call, so the unwinder never
 * has a csprof frame to step through (which made every throw slower) and a
 * backtrace shows none.
 * Ordinary context (program code calling these functions).
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>
#include <unwind.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_nonlocal.h"
#include "monitor/mon_real.h"
#include "monitor/mon_signals.h"

typedef void longjmp_fn(struct __jmp_buf_tag *, int);
typedef int setcontext_fn(const ucontext_t *);
typedef int swapcontext_fn(ucontext_t *, const ucontext_t *);
typedef _Unwind_Reason_Code raise_fn(struct _Unwind_Exception *);
typedef void resume_fn(struct _Unwind_Exception *);
typedef _Unwind_Reason_Code forced_fn(struct _Unwind_Exception *, _Unwind_Stop_Fn, void *);
typedef _Unwind_Reason_Code backtrace_unwind_fn(_Unwind_Trace_Fn, void *);
typedef int backtrace_fn(void **, int);
typedef void *begin_catch_fn(void *);
typedef void pthread_exit_fn(void *);
typedef void pthread_unwind_next_fn(__pthread_unwind_buf_t *);
typedef int pthread_cancel_fn(pthread_t);

static longjmp_fn *mon_real_longjmp, *mon_real__longjmp, *mon_real___longjmp_chk;
static setcontext_fn *mon_real_setcontext;
static swapcontext_fn *mon_real_swapcontext;
static backtrace_fn *mon_real_backtrace;
static pthread_exit_fn *mon_real_pthread_exit;
static pthread_unwind_next_fn *mon_real___pthread_unwind_next;
static pthread_cancel_fn *mon_real_pthread_cancel;
void (*mon_real_siglongjmp)(sigjmp_buf, int);
void *mon_selfsave_real[MON_NSELFSAVE];

/* Exported overrides: prototypes for -Wmissing-prototypes. */
void __longjmp_chk(struct __jmp_buf_tag env[1], int val);
void *__cxa_begin_catch(void *exception);
void __pthread_unwind_next(__pthread_unwind_buf_t *buf);

/*
 * These functions save their own return address (into a ucontext_t or a
 * jmp_buf): the trampoline must never sit in their return slot, or it
 * would be saved and jumped to later (seen with getcontext/setcontext).
 */
static void
avoid_self_saving_functions(void)
{
    /* dlopen, dlmopen, dlsym and dlvsym read their return address to learn the caller's
     * namespace (RTLD_NEXT is relative to it): a trampoline there would make it csprof's. */
    static const char *const names[] = {
        "getcontext",  "swapcontext",   "setjmp", "_setjmp", "sigsetjmp",
        "__sigsetjmp", "__sigjmp_save", "vfork",  "fork",    "dlopen",
        "dlmopen",     "dlsym",         "dlvsym",
    };

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const ElfW(Sym) *sym = NULL;
        void *addr = mon_real_resolve(names[i], MON_REAL_NEXT, NULL);
        Dl_info info;

        if (addr != NULL && dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) != 0 &&
            sym != NULL && sym->st_size > 0)
            tramp_avoid_range((uintptr_t)addr, (uintptr_t)addr + sym->st_size);
        else if (addr != NULL) /* size unknown: these are short; 256 bytes covers them */
            tramp_avoid_range((uintptr_t)addr, (uintptr_t)addr + 256);
    }
}

void
mon_resolve_nonlocal_functions(void)
{
    /* Never RTLD_DEFAULT: it would find these overrides themselves. */
    MON_REAL_RESOLVE_NEXT(mon_real_longjmp, "longjmp", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real__longjmp, "_longjmp", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_siglongjmp, "siglongjmp", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real___longjmp_chk, "__longjmp_chk", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_setcontext, "setcontext", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_swapcontext, "swapcontext", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_backtrace, "backtrace", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_pthread_exit, "pthread_exit", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real___pthread_unwind_next, "__pthread_unwind_next", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_pthread_cancel, "pthread_cancel", NULL);
    mon_selfsave_real[MON_SELFSAVE_SETJMP] = mon_real_resolve("setjmp", MON_REAL_NEXT, NULL);
    mon_selfsave_real[MON_SELFSAVE__SETJMP] = mon_real_resolve("_setjmp", MON_REAL_NEXT, NULL);
    mon_selfsave_real[MON_SELFSAVE_SIGSETJMP] =
        mon_real_resolve("__sigsetjmp", MON_REAL_NEXT, NULL);
    mon_selfsave_real[MON_SELFSAVE_GETCONTEXT] =
        mon_real_resolve("getcontext", MON_REAL_NEXT, NULL);
    avoid_self_saving_functions();
    mon_own_code_init();
}

/*
 * Take the trampoline out; @suspend: until the unwinding that begins here is
 * over.  Inlined, so the CFA is the override's: the stack pointer of its
 * caller after the call.  The real functions are tail-called and run below
 * it (at the entry of one, the stack pointer is the CFA - 8), while a
 * sample at or above it is past the unwinding.
 */
static inline __attribute__((always_inline)) void
leave_stack(bool suspend)
{
    tramp_nonlocal_exit(tramp_self(), (uintptr_t)__builtin_dwarf_cfa(), suspend);
}

/* ---- longjmp family ---- */

CSP_EXPORT void
longjmp(struct __jmp_buf_tag env[1], int val)
{
    leave_stack(false);
    mon_real_longjmp(env, val);
    __builtin_unreachable();
}

CSP_EXPORT void
_longjmp(struct __jmp_buf_tag env[1], int val)
{
    leave_stack(false);
    mon_real__longjmp(env, val);
    __builtin_unreachable();
}

CSP_EXPORT void
siglongjmp(struct __jmp_buf_tag env[1], int val)
{
    leave_stack(false);
    mon_real_siglongjmp(env, val);
    __builtin_unreachable();
}

CSP_EXPORT void
__longjmp_chk(struct __jmp_buf_tag env[1], int val)
{
    leave_stack(false);
    mon_real___longjmp_chk(env, val);
    __builtin_unreachable();
}

/* ---- functions that save their own return address (selfsave.S) ---- */

void *
mon_selfsave_prepare(uintptr_t *slot, int which)
{
    if (mon_selfsave_real[which] == NULL) /* before the constructor: resolve now */
        mon_resolve_real_functions();
    tramp_leave_slot(tramp_self(), (uintptr_t)slot);
    return mon_selfsave_real[which];
}

/* ---- context switches ---- */

CSP_EXPORT int
setcontext(const ucontext_t *ucp)
{
    leave_stack(false);
    return mon_real_setcontext(ucp);
}

CSP_EXPORT int
swapcontext(ucontext_t *oucp, const ucontext_t *ucp)
{
    leave_stack(false);
    return mon_real_swapcontext(oucp, ucp);
}

/* ---- C++ exceptions and forced unwinding (libgcc_s) ---- */

CSP_EXPORT _Unwind_Reason_Code
_Unwind_RaiseException(struct _Unwind_Exception *exc)
{
    static raise_fn *mon_real__Unwind_RaiseException;

    if (mon_real__Unwind_RaiseException == NULL)
        MON_REAL_RESOLVE_NEXT(mon_real__Unwind_RaiseException, "_Unwind_RaiseException",
                              "libgcc_s.so.1");
    leave_stack(true);
    /* A tail call; returns only when no handler was found. */
    return mon_real__Unwind_RaiseException(exc);
}

CSP_EXPORT _Unwind_Reason_Code
_Unwind_Resume_or_Rethrow(struct _Unwind_Exception *exc)
{
    static raise_fn *mon_real__Unwind_Resume_or_Rethrow;

    if (mon_real__Unwind_Resume_or_Rethrow == NULL)
        MON_REAL_RESOLVE_NEXT(mon_real__Unwind_Resume_or_Rethrow, "_Unwind_Resume_or_Rethrow",
                              "libgcc_s.so.1");
    leave_stack(true);
    return mon_real__Unwind_Resume_or_Rethrow(exc);
}

CSP_EXPORT void
_Unwind_Resume(struct _Unwind_Exception *exc)
{
    static resume_fn *mon_real__Unwind_Resume;

    if (mon_real__Unwind_Resume == NULL)
        MON_REAL_RESOLVE_NEXT(mon_real__Unwind_Resume, "_Unwind_Resume", "libgcc_s.so.1");
    leave_stack(true);
    /* A tail call: no csprof frame for the unwinder to step through. */
    mon_real__Unwind_Resume(exc);
}

CSP_EXPORT _Unwind_Reason_Code
_Unwind_ForcedUnwind(struct _Unwind_Exception *exc, _Unwind_Stop_Fn stop, void *arg)
{
    static forced_fn *mon_real__Unwind_ForcedUnwind;

    if (mon_real__Unwind_ForcedUnwind == NULL)
        MON_REAL_RESOLVE_NEXT(mon_real__Unwind_ForcedUnwind, "_Unwind_ForcedUnwind",
                              "libgcc_s.so.1");
    leave_stack(true);
    return mon_real__Unwind_ForcedUnwind(exc, stop, arg);
}

/* A handler was found and entered: unwinding is over. */
CSP_EXPORT void *
__cxa_begin_catch(void *exception)
{
    static begin_catch_fn *mon_real___cxa_begin_catch;

    if (mon_real___cxa_begin_catch == NULL)
        MON_REAL_RESOLVE_NEXT(mon_real___cxa_begin_catch, "__cxa_begin_catch", "libstdc++.so.6");
    tramp_resume(tramp_self());
    return mon_real___cxa_begin_catch(exception);
}

/* ---- the program's own stack walks ---- */

/* Tail calls, so the program's walk shows no csprof frame.  Installing resumes at the first
 * sample whose stack pointer is above this call's, i.e. after the walk returned. */
CSP_EXPORT _Unwind_Reason_Code
_Unwind_Backtrace(_Unwind_Trace_Fn trace, void *arg)
{
    static backtrace_unwind_fn *mon_real__Unwind_Backtrace;

    if (mon_real__Unwind_Backtrace == NULL)
        MON_REAL_RESOLVE_NEXT(mon_real__Unwind_Backtrace, "_Unwind_Backtrace", "libgcc_s.so.1");
    leave_stack(true);
    return mon_real__Unwind_Backtrace(trace, arg);
}

CSP_EXPORT int
backtrace(void **buffer, int size)
{
    leave_stack(true);
    return mon_real_backtrace(buffer, size);
}

/* ---- thread exit by unwinding ---- */

CSP_EXPORT void
pthread_exit(void *retval)
{
    leave_stack(true);
    mon_real_pthread_exit(retval);
    __builtin_unreachable();
}

/*
 * C code built without -fexceptions registers pthread_cleanup_push handlers
 * with a sigsetjmp in the handler's frame (<pthread.h>).  glibc's unwinder
 * runs each handler by longjmp into that frame -- above where the unwind
 * began, which ends the suspension -- and the frame continues the unwind
 * here, from its own stack pointer.  A trampoline placed by a sample in the
 * handler must be out again before libgcc walks: libgcc reads its own
 * return address, and a trampoline there made it abort (pthread_exit
 * through 120 such frames, about 1 run in 25).
 */
CSP_EXPORT void
__pthread_unwind_next(__pthread_unwind_buf_t *buf)
{
    leave_stack(true);
    mon_real___pthread_unwind_next(buf);
    __builtin_unreachable();
}

/*
 * glibc unwinds a cancelled thread with a libgcc it reaches through dlopen,
 * past the overrides above: before the cancel is sent, the target takes its
 * trampoline out for good (a sampling signal with a request, answered from
 * its handler; bounded wait, in case the target blocks the signal).
 */
CSP_EXPORT int
pthread_cancel(pthread_t thread)
{
    struct mon_thread *td;

    if (mon_real_pthread_cancel == NULL)
        mon_resolve_real_functions();
    td = mon_proc.active ? mon_thread_find(thread) : NULL;
    if (td != NULL && tramp_enabled(&td->tramp)) {
        if (pthread_equal(thread, pthread_self())) {
            tramp_disable(&td->tramp);
        } else {
            union sigval v = {.sival_int = MON_SIGVAL_TRAMPOLINE_OFF};

            if (pthread_sigqueue(thread, mon_proc.signo, v) == 0)
                for (int i = 0; i < 20000 && !tramp_off_acked(&td->tramp); i++)
                    sched_yield();
        }
    }
    return mon_real_pthread_cancel(thread);
}
