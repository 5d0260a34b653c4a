/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tramp_arch.h -- the narrow per-architecture hooks of lib/trampoline.
 * Implemented in lib/trampoline/arch/<arch>/; portable files include only this.
 */
#ifndef CSP_TRAMP_ARCH_H
#define CSP_TRAMP_ARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "support/compiler.h"

/* The bytes before @ra end in a call instruction.  [async-signal-safe; reads code] */
CSP_SIGSAFE bool tramp_arch_follows_call(uintptr_t ra);

/* Bytes between a return-address slot and the stack pointer after the return. */
#define TRAMP_ARCH_SLOT_TO_SP 8

/* Whether hardware return-address protection (shadow stacks) is active.  [not async-signal-safe] */
bool tramp_arch_shadow_stack_active(void);

#endif /* CSP_TRAMP_ARCH_H */
