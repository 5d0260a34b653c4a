/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tramp.S (x86_64) -- the return-address trampoline.
 *
 * tramp_install_top() replaces one saved return address with tramp_entry,
 * so control arrives here at a function-return boundary, where %rsp is one
 * past the slot the return address was popped from.  By the SysV ABI only
 * %rax, %rdx, %xmm0, %xmm1, st(0), st(1) carry values there -- but gcc's
 * -fipa-ra lets a caller keep values in call-clobbered registers across a
 * call to a callee it knows leaves them alone, so at a return boundary any
 * register may be live.  Hence we preserve every general register that C
 * code may clobber (%rax %rcx %rdx %rsi %rdi %r8-%r11), and %xmm0/%xmm1;
 * callee-saved registers are preserved by tramp_on_return as by any C
 * function.  The remaining vector and x87 registers (including long double
 * results in st(0)/st(1) and upper halves of %ymm/%zmm) are not saved:
 * they survive because tramp_on_return and everything it calls are built
 * with -mgeneral-regs-only, so no x87/SSE/AVX instruction runs between
 * entry and the final ret.  RFLAGS is not preserved (no compiler keeps
 * flags live across a call).  The final `ret` pops the real return address
 * that tramp_on_return returned, leaving %rsp as it was on entry.
 * Incompatible with user-space shadow stacks (CET SHSTK): tramp_supported()
 * refuses then.
 */
#include "tramp_asm.h"

        .text
        .globl  tramp_entry
        .hidden tramp_entry             /* never exported from libcsprof.so */
        .type   tramp_entry, @function
        .p2align 4
tramp_entry:
        .cfi_startproc
        .cfi_undefined rip              /* the real return address lives in thread data */
        sub     $TRAMP_FRAME_SIZE, %rsp
        .cfi_adjust_cfa_offset TRAMP_FRAME_SIZE
        movdqu  %xmm0, TRAMP_OFF_XMM0(%rsp)
        movdqu  %xmm1, TRAMP_OFF_XMM1(%rsp)
        mov     %rax, TRAMP_OFF_RAX(%rsp)
        mov     %rcx, TRAMP_OFF_RCX(%rsp)
        mov     %rdx, TRAMP_OFF_RDX(%rsp)
        mov     %rsi, TRAMP_OFF_RSI(%rsp)
        mov     %rdi, TRAMP_OFF_RDI(%rsp)
        mov     %r8, TRAMP_OFF_R8(%rsp)
        mov     %r9, TRAMP_OFF_R9(%rsp)
        mov     %r10, TRAMP_OFF_R10(%rsp)
        mov     %r11, TRAMP_OFF_R11(%rsp)
        lea     TRAMP_FRAME_SIZE(%rsp), %rdi    /* sp at entry: one past the slot */
        call    tramp_on_return         /* hidden: direct call, no PLT */
        mov     %rax, TRAMP_OFF_TARGET(%rsp)
        mov     TRAMP_OFF_R11(%rsp), %r11
        mov     TRAMP_OFF_R10(%rsp), %r10
        mov     TRAMP_OFF_R9(%rsp), %r9
        mov     TRAMP_OFF_R8(%rsp), %r8
        mov     TRAMP_OFF_RDI(%rsp), %rdi
        mov     TRAMP_OFF_RSI(%rsp), %rsi
        mov     TRAMP_OFF_RDX(%rsp), %rdx
        mov     TRAMP_OFF_RCX(%rsp), %rcx
        mov     TRAMP_OFF_RAX(%rsp), %rax
        movdqu  TRAMP_OFF_XMM1(%rsp), %xmm1
        movdqu  TRAMP_OFF_XMM0(%rsp), %xmm0
        add     $TRAMP_OFF_TARGET, %rsp /* now at the real return address */
        .cfi_adjust_cfa_offset -TRAMP_OFF_TARGET
        ret
        .cfi_endproc
        .size   tramp_entry, . - tramp_entry

        /* One past the last trampoline byte: tramp_contains_pc() uses the pair. */
        .globl  tramp_end
        .hidden tramp_end
tramp_end:

        .section .note.GNU-stack, "", @progbits
