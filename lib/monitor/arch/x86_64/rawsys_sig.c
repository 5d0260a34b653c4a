/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rawsys_sig.c -- one system call by the x86-64 `syscall` instruction, for the monitor's own
 * syscall(2) (unwind_guard_sig.c), which cannot call the C library's by name.
 */
#include "monitor/mon_internal.h"
#include "monitor/mon_sys.h"

long
mon_raw_syscall(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
    long ret;
    register long r10 __asm__("r10") = a4;
    register long r8 __asm__("r8") = a5;
    register long r9 __asm__("r9") = a6;

    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}
