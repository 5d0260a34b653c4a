/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tramp_arch_sig.c (x86_64) -- instruction checks for the trampoline.
 *
 * Runs in signal context: reads code bytes only (under the monitor's fault
 * guard).  Source: Intel SDM vol. 2A, CALL -- E8 cd (rel32) and FF /2
 * (indirect, ModRM.reg = 2) with optional REX prefix, SIB and displacement.
 */
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "trampoline/arch/tramp_arch.h"

bool
tramp_arch_follows_call(uintptr_t ra)
{
    const uint8_t *p = (const uint8_t *)ra;

    if (ra < 4096 || ra > 0x00007fffffffffffull) /* not a user-space code address */
        return false;
    if (p[-5] == 0xE8)
        return true;
    /* FF /2 is 2 to 7 bytes long (ModRM, SIB, disp8/disp32), a REX prefix adds one. */
    for (size_t len = 2; len <= 8; len++) {
        uint8_t modrm = p[-(ptrdiff_t)len + 1];

        if (p[-(ptrdiff_t)len] == 0xFF && ((modrm >> 3) & 7) == 2) {
            unsigned mod = modrm >> 6, rm = modrm & 7;
            size_t want = 2;

            if (mod != 3 && rm == 4)
                want++; /* SIB */
            if (mod == 1)
                want += 1;
            else if (mod == 2 || (mod == 0 && rm == 5))
                want += 4;
            if (want == len)
                return true;
        }
    }
    return false;
}

#ifndef ARCH_SHSTK_STATUS
#    define ARCH_SHSTK_STATUS 0x5005
#endif

bool
tramp_arch_shadow_stack_active(void)
{
    unsigned long features = 0;

    /* Kernels without user shadow stacks answer EINVAL: not active. */
    if (syscall(SYS_arch_prctl, ARCH_SHSTK_STATUS, &features) != 0)
        return false;
    return (features & 1) != 0;
}
