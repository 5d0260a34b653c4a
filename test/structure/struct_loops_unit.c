/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * struct_loops_unit.c -- unit tests of lib/structure's loop finder
 * (Havlak's interval analysis, loops.c) on hand-built graphs, and of the
 * CFG builder (cfg.c) on hand-assembled x86-64 code: nesting, siblings,
 * self-loops, several back edges, irreducible loops, unreachable cycles,
 * undecodable bytes, noreturn calls, tail calls and jump tables.
 *
 * Table-driven: each graph lists its edges and the expected innermost loop
 * of every node, named by its header node (-1: no loop), the expected
 * parent header of every loop, and which loops are irreducible.
 * Test code only.
 */
#include <elf.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csp_test.h"
#include "structure/cfg.h"

#define MAXN 16

struct graph_case {
    const char *name;
    uint32_t n, entry;
    uint32_t edges[40][2];
    size_t nedges;
    int innermost_header[MAXN]; /* header node of each node's innermost loop, -1 none */
    int parent_header[MAXN];    /* for each header node: its parent loop's header, -1 none */
    bool irreducible[MAXN];     /* per header node */
    size_t nloops;
};

static const struct graph_case cases[] = {
    {"straight line", 3, 0, {{0, 1}, {1, 2}}, 2, {-1, -1, -1}, {-1, -1, -1}, {0}, 0},
    {"self loop", 3, 0, {{0, 1}, {1, 1}, {1, 2}}, 3, {-1, 1, -1}, {-1, -1, -1}, {0}, 1},
    {"entry is a header", 2, 0, {{0, 1}, {1, 0}}, 2, {0, 0}, {-1, -1}, {0}, 1},
    {"nested",
     6,
     0,
     {{0, 1}, {1, 2}, {2, 3}, {3, 2}, {3, 4}, {4, 1}, {4, 5}},
     7,
     {-1, 1, 2, 2, 1, -1},
     {-1, -1, 1, -1, -1, -1},
     {0},
     2},
    {"three deep",
     8,
     0,
     {{0, 1}, {1, 2}, {2, 3}, {3, 3}, {3, 4}, {4, 2}, {4, 5}, {5, 1}, {5, 6}, {6, 7}},
     10,
     {-1, 1, 2, 3, 2, 1, -1, -1},
     {-1, -1, 1, 2, -1, -1, -1, -1},
     {0},
     3},
    {"siblings",
     4,
     0,
     {{0, 1}, {1, 1}, {1, 2}, {2, 2}, {2, 3}},
     5,
     {-1, 1, 2, -1},
     {-1, -1, -1, -1},
     {0},
     2},
    {"multiple back edges",
     5,
     0,
     {{0, 1}, {1, 2}, {2, 1}, {1, 3}, {3, 1}, {3, 4}},
     6,
     {-1, 1, 1, 1, -1},
     {-1, -1, -1, -1, -1},
     {0},
     1},
    {"irreducible",
     4,
     0,
     {{0, 1}, {0, 2}, {1, 2}, {2, 1}, {1, 3}},
     5,
     {-1, 1, 1, -1},
     {-1, -1, -1, -1},
     {false, true},
     1},
    {"irreducible inside reducible",
     6,
     0,
     {{0, 1}, {1, 2}, {1, 3}, {2, 3}, {3, 2}, {3, 4}, {4, 1}, {4, 5}},
     8,
     {-1, 1, 2, 2, 1, -1},
     {-1, -1, 1, -1, -1, -1},
     {false, false, true},
     2},
    {"unreachable cycle",
     4,
     0,
     {{0, 1}, {2, 3}, {3, 2}},
     3,
     {-1, -1, 2, 2},
     {-1, -1, -1, -1},
     {0},
     1},
    {"unreachable code jumping into a loop",
     5,
     0,
     {{0, 1}, {1, 2}, {2, 1}, {2, 3}, {4, 2}},
     5,
     {-1, 1, 1, -1, -1},
     {-1, -1, -1, -1, -1},
     {false, false},
     1},
};

static void
test_graph(const struct graph_case *c)
{
    uint32_t off[MAXN + 1] = {0}, succ[40], fill[MAXN] = {0};
    struct struct_loops l;
    struct struct_graph g;

    for (size_t i = 0; i < c->nedges; i++)
        off[c->edges[i][0] + 1]++;
    for (uint32_t v = 0; v < c->n; v++)
        off[v + 1] += off[v];
    for (size_t i = 0; i < c->nedges; i++) {
        uint32_t v = c->edges[i][0];

        succ[off[v] + fill[v]++] = c->edges[i][1];
    }
    g = (struct struct_graph){c->n, c->entry, off, succ};
    assert_int_equal(struct_find_loops(&g, &l), 0);
    if (l.nloops != c->nloops)
        fail_msg("%s: %zu loops, expected %zu", c->name, l.nloops, c->nloops);
    for (uint32_t v = 0; v < c->n; v++) {
        int got = l.innermost[v] < 0 ? -1 : (int)l.loops[l.innermost[v]].header;

        if (got != c->innermost_header[v])
            fail_msg("%s: node %u in the loop headed %d, expected %d", c->name, v, got,
                     c->innermost_header[v]);
    }
    for (size_t i = 0; i < l.nloops; i++) {
        uint32_t h = l.loops[i].header;
        int parent = l.loops[i].parent < 0 ? -1 : (int)l.loops[l.loops[i].parent].header;

        if (parent != c->parent_header[h])
            fail_msg("%s: loop %u has parent %d, expected %d", c->name, h, parent,
                     c->parent_header[h]);
        if (l.loops[i].irreducible != c->irreducible[h])
            fail_msg("%s: loop %u irreducible=%d", c->name, h, l.loops[i].irreducible);
        if (l.loops[i].parent >= 0 && (size_t)l.loops[i].parent <= i)
            fail_msg("%s: parent loop listed before its child", c->name);
        if (l.loops[i].depth != (l.loops[i].parent < 0 ? 1 : l.loops[l.loops[i].parent].depth + 1))
            fail_msg("%s: wrong depth", c->name);
    }
    struct_loops_free(&l);
}

static void
test_graphs(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        test_graph(&cases[i]);
}

/* A long chain with one back edge: no recursion depth problem, one loop. */
static void
test_big_graph(void **state)
{
    enum { N = 200000 };
    uint32_t *off = malloc((N + 1) * sizeof(*off)), *succ = malloc(N * sizeof(*succ));
    struct struct_loops l;
    struct struct_graph g;

    (void)state;
    assert_non_null(off);
    assert_non_null(succ);
    for (uint32_t v = 0; v < N; v++) {
        off[v] = v;
        succ[v] = v + 1 < N ? v + 1 : 1; /* the last node jumps back to node 1 */
    }
    off[N] = N;
    g = (struct struct_graph){N, 0, off, succ};
    assert_int_equal(struct_find_loops(&g, &l), 0);
    assert_int_equal(l.nloops, 1);
    assert_int_equal(l.loops[0].header, 1);
    assert_int_equal(l.innermost[0], -1);
    assert_int_equal(l.innermost[N - 1], 0);
    struct_loops_free(&l);
    free(off);
    free(succ);
}

/* ---- CFG builder on hand-assembled code ----------------------------------- */

struct cfg_case {
    const char *name;
    uint8_t code[64];
    size_t len;
    size_t nloops, ncalls, bad_bytes, jump_tables, nblocks;
    unsigned call_flags; /* flags of the first call site */
};

#define BASE 0x1000

static const struct cfg_case cfg_cases[] = {
    /* xor eax,eax; L: add eax,1; cmp eax,10; jne L; ret */
    {"counted loop",
     {0x31, 0xc0, 0x83, 0xc0, 0x01, 0x83, 0xf8, 0x0a, 0x75, 0xf8, 0xc3},
     11,
     1,
     0,
     0,
     0,
     3,
     0},
    /* nop; .byte 0x06 (invalid in 64-bit mode); ret */
    {"undecodable byte", {0x90, 0x06, 0xc3}, 3, 0, 0, 1, 0, 2, 0},
    /* call 0x2000 (exit, noreturn); ud2 is never reached but decodes */
    {"noreturn call",
     {0xe8, 0xfb, 0x0f, 0x00, 0x00, 0x0f, 0x0b},
     7,
     0,
     1,
     0,
     0,
     2,
     STRUCT_CALL_NORETURN},
    /* jmp 0x3000: a tail call */
    {"tail call", {0xe9, 0xfb, 0x1f, 0x00, 0x00}, 5, 0, 1, 0, 0, 1, STRUCT_CALL_TAIL},
    /* call *%rax; ret */
    {"indirect call", {0xff, 0xd0, 0xc3}, 3, 0, 1, 0, 0, 1, STRUCT_CALL_INDIRECT},
    /* L: cmp edi,1; ja out; lea rdx,[rip+T]; movsxd rax,[rdx+rdi*4]; add rax,rdx; jmp rax
     * case0: jmp L; case1: jmp L; out: ret; T: .long case0-T, case1-T */
    {"jump table in a loop",
     {0x83, 0xff, 0x01,                         /* 0x1000 cmp edi,1 */
      0x77, 0x14,                               /* 0x1003 ja 0x1019 */
      0x48, 0x8d, 0x15, 0x0f, 0x00, 0x00, 0x00, /* 0x1005 lea rdx,[rip+0xf] -> 0x101b */
      0x48, 0x63, 0x04, 0xba,                   /* 0x100c movsxd rax,[rdx+rdi*4] */
      0x48, 0x01, 0xd0,                         /* 0x1010 add rax,rdx */
      0xff, 0xe0,                               /* 0x1013 jmp rax */
      0xeb, 0xe9,                               /* 0x1015 jmp 0x1000 */
      0xeb, 0xe7,                               /* 0x1017 jmp 0x1000 */
      0xc3,                                     /* 0x1019 ret */
      0x90,                                     /* 0x101a nop */
      0xfa, 0xff, 0xff, 0xff,                   /* 0x101b .long 0x1015-0x101b */
      0xfc, 0xff, 0xff, 0xff},                  /* 0x101f .long 0x1017-0x101b */
     35,
     2,
     0,
     0,
     1,
     0,
     0},
};

static void
test_cfgs(void **state)
{
    struct struct_decoder *d = struct_decoder_new();
    static const struct struct_entry entries[] = {
        {0x2000, "exit", true},
        {0x3000, "other", false},
    };

    (void)state;
    assert_non_null(d);
    for (size_t i = 0; i < sizeof(cfg_cases) / sizeof(cfg_cases[0]); i++) {
        const struct cfg_case *c = &cfg_cases[i];
        struct struct_image_part part = {BASE, BASE + c->len, c->code, true};
        struct struct_cfg_env env = {
            .parts = &part, .nparts = 1, .entries = entries, .nentries = 2};
        /* the jump-table case: code is [0x1000, 0x101b), the table follows */
        struct struct_range r = {BASE, BASE + (c->jump_tables ? 0x1b : c->len)};
        struct struct_cfg cfg;

        assert_int_equal(struct_cfg_build(d, &env, &r, 1, BASE, &cfg), 0);
        if (cfg.bad_bytes != c->bad_bytes || cfg.ncalls != c->ncalls ||
            cfg.jump_tables != c->jump_tables)
            fail_msg("%s: bad %zu calls %zu tables %zu", c->name, cfg.bad_bytes, cfg.ncalls,
                     cfg.jump_tables);
        if (c->nblocks != 0 && cfg.nblocks != c->nblocks)
            fail_msg("%s: %zu blocks, expected %zu", c->name, cfg.nblocks, c->nblocks);
        if (c->jump_tables) {
            /* both cases jump back: one loop headed at 0x1000 holding all but ret */
            if (cfg.nloops != 1 || cfg.blocks[0].loop != 0 ||
                cfg.blocks[cfg.nblocks - 1].loop != -1)
                fail_msg("%s: %zu loops", c->name, cfg.nloops);
        } else if (cfg.nloops != c->nloops) {
            fail_msg("%s: %zu loops, expected %zu", c->name, cfg.nloops, c->nloops);
        }
        if (c->ncalls > 0 && cfg.calls[0].flags != c->call_flags)
            fail_msg("%s: call flags 0x%x, expected 0x%x", c->name, cfg.calls[0].flags,
                     c->call_flags);
        struct_cfg_free(&cfg);
    }
    struct_decoder_free(d);
}

/*
 * Computed goto: indirect jumps with no table go to the procedure's
 * address-taken labels, from a rip-relative lea or from data (code_refs).
 *   0x1000 lea rcx,[rip+5] (-> 0x100c)   0x1007 mov rax,[rdi]   0x100a jmp rax
 *   0x100c add rdi,8   0x1010 mov rax,[rdi]   0x1013 jmp rax   0x1015 ret
 */
static void
test_computed_goto(void **state)
{
    static const uint8_t code[] = {0x48, 0x8d, 0x0d, 0x05, 0x00, 0x00, 0x00, 0x48,
                                   0x8b, 0x07, 0xff, 0xe0, 0x48, 0x83, 0xc7, 0x08,
                                   0x48, 0x8b, 0x07, 0xff, 0xe0, 0xc3};
    /* in data: the ret, a byte inside "add", another procedure, the entry */
    static const uint64_t refs[] = {BASE, 0x100e, 0x1015, 0x3000};
    static const struct struct_entry entries[] = {{BASE, "interp", false},
                                                  {0x3000, "other", false}};
    struct struct_decoder *d = struct_decoder_new();
    struct struct_image_part part = {BASE, BASE + sizeof(code), code, true};
    struct struct_range r = {BASE, BASE + sizeof(code)};

    (void)state;
    assert_non_null(d);
    for (int with_refs = 0; with_refs < 2; with_refs++) {
        struct struct_cfg_env env = {.parts = &part,
                                     .nparts = 1,
                                     .entries = entries,
                                     .nentries = 2,
                                     .code_refs = refs,
                                     .ncode_refs = with_refs ? 4 : 0};
        struct struct_cfg cfg;
        int64_t add = -1, ret = -1;

        assert_int_equal(struct_cfg_build(d, &env, &r, 1, BASE, &cfg), 0);
        for (size_t k = 0; k < cfg.nblocks; k++) {
            if (cfg.blocks[k].lo == 0x100c)
                add = (int64_t)k;
            if (cfg.blocks[k].lo == 0x1015)
                ret = (int64_t)k;
        }
        assert_int_equal(cfg.label_jumps, 2);
        assert_int_equal(cfg.unresolved_jumps, 0);
        assert_int_equal(cfg.nloops, 1);
        assert_true(add >= 0);
        assert_int_equal(cfg.blocks[add].loop, 0); /* the handler loops through the dispatch */
        assert_true(ret >= 0);
        assert_int_equal(cfg.blocks[ret].loop, -1); /* a label too with refs, but it returns */
        assert_int_equal(cfg.blocks[0].loop, -1);   /* the entry is no label */
        assert_int_equal(cfg.loops[0].back_edges.n, 1);
        assert_true(cfg.loops[0].back_edges.v[0].lo == 0x1013);
        struct_cfg_free(&cfg);
    }
    struct_decoder_free(d);
}

/* The executable segment of the first loaded object whose name holds @want. */
struct text_seg {
    const char *want;
    const uint8_t *bytes;
    size_t size;
};

static int
find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct text_seg *t = arg;

    (void)size;
    if (info->dlpi_name == NULL || strstr(info->dlpi_name, t->want) == NULL)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)) {
            t->bytes = (const uint8_t *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
            t->size = info->dlpi_phdr[i].p_memsz;
            return 1;
        }
    return 0;
}

/*
 * struct_decode_flow() agrees with struct_decode() on kind, length and
 * target of every instruction of the running libc's code, swept from
 * three starting offsets (the misaligned sweeps decode odd byte
 * sequences: loop, xbegin, far jumps), and on the facts of every
 * instruction it decodes them for.
 */
static void
test_decode_flow(void **state)
{
    struct struct_decoder *d = struct_decoder_open(EM_X86_64);
    struct text_seg t = {"libc.so", NULL, 0};
    size_t n = 0, nofacts = 0;

    (void)state;
    assert_non_null(d);
    assert_int_equal(dl_iterate_phdr(find_text, &t), 1);
    assert_true(t.size > 100000);
    for (size_t start = 0; start < 3; start++)
        for (size_t off = start; off < t.size;) {
            struct struct_insn full, flow;
            uint64_t a = (uint64_t)(uintptr_t)(t.bytes + off);

            struct_decode(d, t.bytes + off, t.size - off, a, &full);
            struct_decode_flow(d, t.bytes + off, t.size - off, a, &flow);
            if (flow.kind != full.kind || flow.len != full.len || flow.target != full.target)
                fail_msg("at +0x%zx: flow kind %d len %u target 0x%llx, full kind %d len %u "
                         "target 0x%llx",
                         off, (int)flow.kind, flow.len, (unsigned long long)flow.target,
                         (int)full.kind, full.len, (unsigned long long)full.target);
            if (flow.no_facts) {
                assert_int_equal(flow.kind, STRUCT_INSN_OTHER);
                nofacts++;
            } else {
                full.no_facts = false;
                assert_memory_equal(&flow, &full, sizeof(full));
            }
            n++;
            off += full.len;
        }
    assert_true(n > 100000);
    assert_true(nofacts > n / 2); /* most instructions need no details */
    struct_decoder_free(d);
}

/* The decoder back end comes from e_machine; machines without one get none. */
static void
test_arch_table(void **state)
{
    struct struct_decoder *d = struct_decoder_open(EM_X86_64);
    static const uint8_t ret = 0xc3;
    struct struct_insn in;

    (void)state;
    assert_non_null(d);
    struct_decode(d, &ret, 1, BASE, &in);
    assert_int_equal(in.kind, STRUCT_INSN_RET);
    struct_decoder_free(d);
    assert_true(struct_arch_supported(EM_X86_64));
    assert_false(struct_arch_supported(EM_AARCH64));
    assert_null(struct_decoder_open(EM_AARCH64));
    assert_null(struct_decoder_open(0));
    assert_true(struct_arch_reloc_relative(EM_X86_64, R_X86_64_RELATIVE));
    assert_false(struct_arch_reloc_relative(EM_X86_64, R_X86_64_64));
    assert_false(struct_arch_reloc_relative(EM_AARCH64, R_X86_64_RELATIVE));
}

static void
test_noreturn_names(void **state)
{
    (void)state;
    assert_true(struct_name_noreturn("exit"));
    assert_true(struct_name_noreturn("exit@plt"));
    assert_true(struct_name_noreturn("__stack_chk_fail@plt"));
    assert_true(struct_name_noreturn("_ZSt20__throw_length_errorPKc"));
    assert_true(struct_name_noreturn("std::__throw_bad_alloc()"));
    assert_false(struct_name_noreturn("exit_handler"));
    assert_false(struct_name_noreturn("printf"));
    assert_false(struct_name_noreturn(NULL));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graphs),      cmocka_unit_test(test_big_graph),
        cmocka_unit_test(test_cfgs),        cmocka_unit_test(test_computed_goto),
        cmocka_unit_test(test_arch_table),  cmocka_unit_test(test_noreturn_names),
        cmocka_unit_test(test_decode_flow),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);

    return csp_test_finish((long)((int)(sizeof(tests) / sizeof(tests[0])) - failed), (long)failed);
}
