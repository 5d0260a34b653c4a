/* SPDX-License-Identifier: BSD-3-Clause */ /* clang-format off */
/*
 * loops_interp.c -- an interpreter whose dispatch is a computed goto
 * ("goto *disp[op]": indirect jumps through a table of label addresses,
 * with no jump-table bound), the shape of Lua 5.4's luaV_execute and
 * CPython's _PyEval_EvalFrameDefault.  csprof-struct must see the dispatch
 * as one loop holding every handler (test/structure/struct_test.sh, mode
 * "loops-interp"; annotations as in loops_c.c, and span=N accepts any
 * header line from the annotated one to N lines below it: the compilers
 * give the dispatch jumps the lines of different handlers).
 * Test input only.
 */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

enum opcode { OP_ADD, OP_MUL, OP_SUMSQ, OP_DEC, OP_JNZ, OP_HALT, NOPS };

struct insn {
    int op, a;
};

#define DISPATCH() goto *disp[(ip = pc++)->op]

NOINLINE static long
run(const struct insn *code, long acc, long cnt, const int *data, int n)
{
    static const void *const disp[NOPS] = {&&op_add, &&op_mul,  &&op_sumsq,
                                           &&op_dec, &&op_jnz, &&op_halt};
    const struct insn *pc = code, *ip;

    DISPATCH();
op_add: /* @loop dispatch proc=run span=20 */
    acc += ip->a;
    DISPATCH();
op_mul:
    acc = acc * ip->a % 1000003;
    DISPATCH();
op_sumsq:
    for (int k = 0; k < n; k++) /* @loop sumsq proc=run in=dispatch */
        acc += (data[k] * data[k]) ^ ip->a;
    DISPATCH();
op_dec:
    cnt--;
    DISPATCH();
op_jnz:
    if (cnt != 0)
        pc = code + ip->a;
    DISPATCH();
op_halt:
    return acc;
}

int
main(int argc, char **argv)
{
    const struct insn prog[] = {{OP_ADD, 3},   {OP_MUL, 7}, {OP_SUMSQ, 5},
                                {OP_DEC, 0},   {OP_JNZ, 0}, {OP_HALT, 0}};
    int n = argc * 20 + 3;
    int *data = malloc((size_t)n * sizeof(*data));

    (void)argv;
    if (data == NULL)
        return 1;
    for (int i = 0; i < n; i++) /* @loop init proc=main */
        data[i] = i * 7 % 13;
    printf("%ld\n", run(prog, argc, 100000L * argc, data, n));
    free(data);
    return 0;
}
