// SPDX-License-Identifier: BSD-3-Clause
// frameless_leaf.c -- issue 7 item 13: a hand-written assembly leaf without
// unwind information (no CFI, no FDE) that uses %rbp as a scratch register,
// as optimized BLAS kernels do, next to an ordinary C function.  A stack
// walk that starts in kernel cannot find its caller: libunwind's
// frame-pointer fallback reads %rbp = 0 as the end of the stack and reports
// success with a one-frame stack.  Prints a deterministic checksum.
// Usage: frameless_leaf [UNITS] (default 200; a unit is about 1.5 ms).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

uint64_t kernel(uint64_t n);
__asm__(".text\n"
        ".globl kernel\n"
        ".type kernel, @function\n"
        "kernel:\n"
        "  push %rbp\n"
        "  xor %ebp, %ebp\n"
        "  mov %rdi, %rax\n"
        "  movabs $6364136223846793005, %rcx\n"
        "1:\n"
        "  imul %rcx, %rax\n"
        "  add $12345, %rax\n"
        "  add %rax, %rbp\n"
        "  sub $1, %rdi\n"
        "  jnz 1b\n"
        "  mov %rbp, %rax\n"
        "  pop %rbp\n"
        "  ret\n"
        ".size kernel, . - kernel\n");

static __attribute__((noinline)) uint64_t
c_work(uint64_t n)
{
    uint64_t x = n | 1;

    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

int
main(int argc, char **argv)
{
    uint64_t n = (argc > 1 ? strtoull(argv[1], NULL, 10) : 200) * 1000000ull, s = 0;

    s += kernel(n);
    s += c_work(n);
    printf("checksum %016llx\n", (unsigned long long)s);
    return 0;
}
