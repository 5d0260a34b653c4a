/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tramp.c -- start-up checks of the trampoline.  Ordinary context.
 */
#include "trampoline/tramp.h"

#include "trampoline/arch/tramp_arch.h"

bool
tramp_supported(const char **why)
{
    if (tramp_arch_shadow_stack_active()) {
        if (why != NULL)
            *why =
                "user-space shadow stacks (CET) are active and would fault on a changed return address";
        return false;
    }
    return true;
}
