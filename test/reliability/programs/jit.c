// SPDX-License-Identifier: BSD-3-Clause
// jit.c -- reliability row 15: code without unwind information.  Copies a
// hand-assembled x86-64 function into an anonymous PROT_EXEC mapping (no
// module, no symbols, no CFI) and calls it from main through run_jit.  The
// generated function spins in a counted loop and calls back into C (cb)
// COUNT times; variant "fp" sets up a frame-pointer frame (push rbp; mov
// rbp, rsp), variant "nofp" does not.  Prints a checksum of cb's work.
// Usage: jit fp|nofp [COUNT] (default 2000; about 0.5 ms per call).
#include "burn.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef void jit_fn(unsigned long count, void (*cb)(void));

static uint64_t acc = 1;

// cb: called from the generated code; about half of each iteration's CPU.
static __attribute__((noinline)) void
cb(void)
{
    acc = 3 * rel_burn(acc, 100000) + 1;
}

// The loop both variants share: mov ecx, SPIN; 1: dec ecx; jnz 1b;
// call r12; dec rbx; jnz back to the mov (17 bytes in all).
#define SPIN 0x00040000u
#define LOOP                                                                                  \
    0xb9, SPIN & 0xff, (SPIN >> 8) & 0xff, (SPIN >> 16) & 0xff, SPIN >> 24, 0xff, 0xc9, 0x75, \
        0xfc, 0x41, 0xff, 0xd4, 0x48, 0xff, 0xcb, 0x75, 0xef

// push rbp; mov rbp, rsp; push rbx; push r12; mov rbx, rdi; mov r12, rsi;
// LOOP; pop r12; pop rbx; pop rbp; ret
static const unsigned char code_fp[] = {0x55, 0x48, 0x89, 0xe5, 0x53, 0x41, 0x54, 0x48, 0x89, 0xfb,
                                        0x49, 0x89, 0xf4, LOOP, 0x41, 0x5c, 0x5b, 0x5d, 0xc3};

// push rbx; push r12; sub rsp, 8; mov rbx, rdi; mov r12, rsi; LOOP;
// add rsp, 8; pop r12; pop rbx; ret
static const unsigned char code_nofp[] = {0x53, 0x41, 0x54, 0x48, 0x83, 0xec, 0x08, 0x48,
                                          0x89, 0xfb, 0x49, 0x89, 0xf4, LOOP, 0x48, 0x83,
                                          0xc4, 0x08, 0x41, 0x5c, 0x5b, 0xc3};

static __attribute__((noinline)) void
run_jit(jit_fn *fn, unsigned long count)
{
    fn(count, cb);
    __asm__ volatile("" ::: "memory"); // not a tail call: run_jit stays on the stack
}

int
main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "fp") != 0 && strcmp(argv[1], "nofp") != 0)) {
        fprintf(stderr, "usage: jit fp|nofp [COUNT]\n");
        return 2;
    }
    unsigned long count = argc > 2 ? strtoul(argv[2], NULL, 10) : 2000;
    int fp = strcmp(argv[1], "fp") == 0;
    const unsigned char *code = fp ? code_fp : code_nofp;
    size_t len = fp ? sizeof(code_fp) : sizeof(code_nofp);
    void *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    memcpy(mem, code, len);
    if (mprotect(mem, 4096, PROT_READ | PROT_EXEC) != 0) {
        perror("mprotect");
        return 1;
    }
    jit_fn *fn;
    memcpy(&fn, &mem, sizeof(fn)); // ISO C has no object-to-function pointer cast
    run_jit(fn, count);
    munmap(mem, 4096);
    printf("%s: checksum %016llx\n", argv[1], (unsigned long long)acc);
    return 0;
}
