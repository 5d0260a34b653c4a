/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_nonlocal.h -- what the non-local exits (longjmp, exceptions, ucontext:
 * overrides_nonlocal.c) share with the rest of the monitor: the table of
 * csprof's own code (samples there are dropped) and the functions that save
 * their own return address (arch/<arch>/selfsave.S).
 */
#ifndef CSP_MON_NONLOCAL_H
#define CSP_MON_NONLOCAL_H

#include <stdbool.h>
#include <stdint.h>

#include "support/compiler.h"

/* Find csprof's own code and the dynamic linker's, and keep the trampoline out of both
 * (own_code.c).  Constructor only.  [not async-signal-safe: dladdr, dl_iterate_phdr] */
void mon_own_code_init(void);
/* Whether @pc is in libcsprof.so's code (ranges found at start-up: own_code.c).
 * [async-signal-safe] */
CSP_SIGSAFE bool mon_in_own_code(uintptr_t pc);

/* The functions that save their own return address, overridden in arch/<arch>/selfsave.S. */
enum mon_selfsave {
    MON_SELFSAVE_SETJMP = 0,
    MON_SELFSAVE__SETJMP,
    MON_SELFSAVE_SIGSETJMP,
    MON_SELFSAVE_GETCONTEXT,
    MON_NSELFSAVE
};
/* Their real definitions, in enum mon_selfsave order (read by selfsave.S). */
extern void *mon_selfsave_real[MON_NSELFSAVE];
/*
 * Called by a selfsave.S override whose return slot @slot holds the
 * trampoline (or whose real function is not resolved yet): takes the
 * trampoline out of @slot and returns the real function @which to jump to.
 * [program context; async-signal-safe unless it must resolve]
 */
void *mon_selfsave_prepare(uintptr_t *slot, int which);

#endif /* CSP_MON_NONLOCAL_H */
