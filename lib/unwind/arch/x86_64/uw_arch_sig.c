/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * uw_arch_sig.c (x86_64) -- register access in a signal ucontext.
 * Runs in signal context; reads memory only.
 */
#include <ucontext.h>

#include "unwind/arch/uw_arch.h"

uintptr_t
uw_arch_context_pc(const void *ucontext)
{
    const ucontext_t *uc = ucontext;

    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
}

uintptr_t
uw_arch_context_sp(const void *ucontext)
{
    const ucontext_t *uc = ucontext;

    return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
}
