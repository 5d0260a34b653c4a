/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * selfsave.S (x86_64) -- overrides of the functions that save their own
 * return address: setjmp, _setjmp, __sigsetjmp (sigsetjmp) and getcontext.
 *
 * Each saves the caller's stack pointer and the address it will return to
 * (the word at its entry %rsp) into the caller's jmp_buf or ucontext_t.  If
 * the trampoline sits in that slot, the saved pc is tramp_entry, and a later
 * longjmp or setcontext "returns" into the trampoline long after it moved:
 * tramp_on_return then jumps to whatever address it saved last, on the wrong
 * stack (issue 7: the crash with exceptions and longjmp, and main returning
 * early after a million longjmps).  A sample puts the trampoline there when
 * it interrupts the lazy-binding resolver (_dl_runtime_resolve) or the PLT
 * stub on the way to the real function; samples inside the real functions
 * never do (tramp_may_hold).  So each override checks its return slot and,
 * only when it holds tramp_entry, asks mon_selfsave_prepare() to take the
 * trampoline out; then it jumps (not calls) to the real function with the
 * stack exactly as the program's call left it, so what is saved is the
 * program's own frame.
 *
 * Contract, on entry: the System V ABI call state -- arguments in %rdi and
 * %rsi, the return address at (%rsp), %rsp + 8 16-byte aligned.  Preserved
 * into the real function: %rdi %rsi %rdx %rcx, every callee-saved register,
 * %rsp, the return slot (restored to the program's return address), the
 * vector and x87 state.  Clobbered: %rax, %r8-%r11 and the flags (all
 * call-clobbered, and none an argument of these functions).
 */

        .macro  SELFSAVE name, index
        .text
        .globl  \name
        .type   \name, @function
        .p2align 4
\name:
        .cfi_startproc
        lea     tramp_entry(%rip), %r11
        cmp     %r11, (%rsp)
        je      1f                      /* the trampoline is in our return slot */
        mov     mon_selfsave_real+8*\index(%rip), %r11
        test    %r11, %r11
        jz      1f                      /* called before the constructor resolved it */
        jmp     *%r11
1:      push    %rdi
        .cfi_adjust_cfa_offset 8
        push    %rsi
        .cfi_adjust_cfa_offset 8
        push    %rdx
        .cfi_adjust_cfa_offset 8
        push    %rcx
        .cfi_adjust_cfa_offset 8
        sub     $8, %rsp                /* entry %rsp + 8 was aligned: now %rsp is */
        .cfi_adjust_cfa_offset 8
        lea     40(%rsp), %rdi          /* the return-address slot */
        mov     $\index, %esi
        call    mon_selfsave_prepare    /* hidden: a direct call; returns the real function */
        mov     %rax, %r11
        add     $8, %rsp
        .cfi_adjust_cfa_offset -8
        pop     %rcx
        .cfi_adjust_cfa_offset -8
        pop     %rdx
        .cfi_adjust_cfa_offset -8
        pop     %rsi
        .cfi_adjust_cfa_offset -8
        pop     %rdi
        .cfi_adjust_cfa_offset -8
        jmp     *%r11
        .cfi_endproc
        .size   \name, . - \name
        .endm

/* The indexes are enum mon_selfsave in mon_internal.h. */
        SELFSAVE setjmp, 0
        SELFSAVE _setjmp, 1
        SELFSAVE __sigsetjmp, 2
        SELFSAVE getcontext, 3

        .section .note.GNU-stack, "", @progbits
