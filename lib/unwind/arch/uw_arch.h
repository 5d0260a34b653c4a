/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uw_arch.h -- the narrow per-architecture hook of lib/unwind.
 * Implemented in lib/unwind/arch/<arch>/; portable files include only this.
 */
#ifndef CSP_UW_ARCH_H
#define CSP_UW_ARCH_H

#include <stdint.h>

#include "support/compiler.h"

/* Program counter saved in a signal ucontext.  [async-signal-safe] */
CSP_SIGSAFE uintptr_t uw_arch_context_pc(const void *ucontext);

/* Stack pointer saved in a signal ucontext.  [async-signal-safe] */
CSP_SIGSAFE uintptr_t uw_arch_context_sp(const void *ucontext);

#endif /* CSP_UW_ARCH_H */
