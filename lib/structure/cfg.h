/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cfg.h -- private to lib/structure: control-flow graphs of procedures,
 * the loop finder, and the narrow per-architecture instruction decoder
 * hook (arch/<arch>/decode.c) they are built on.
 *
 * Tool code only (csprof-struct, csprof-prof).  Everything here is
 * reentrant: one struct_decoder per thread, no shared mutable state, so
 * procedures can be analyzed in parallel (struct_analyze's -j).
 */
#ifndef CSP_STRUCTURE_CFG_H
#define CSP_STRUCTURE_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

#include "structure/structure_internal.h"

/* ---- loop finder (loops.c) ------------------------------------------ */

/*
 * A directed graph in compressed-row form: the successors of node v are
 * succ[succ_off[v] .. succ_off[v + 1]).  Nodes are 0 .. n-1.
 */
struct struct_graph {
    uint32_t n;
    uint32_t entry;
    const uint32_t *succ_off; /* n + 1 entries */
    const uint32_t *succ;
};

/* One loop of a loop forest. */
struct struct_loop {
    uint32_t header;  /* the node the loop was found from (its DFS-first node) */
    int32_t parent;   /* enclosing loop, -1 for an outermost loop */
    uint32_t depth;   /* 1 for outermost loops */
    bool irreducible; /* entered at more than one node */
};

/*
 * Loop forest of a graph.  loops[] is ordered inner before outer (a loop's
 * parent always has a larger index).  innermost[v] is the innermost loop
 * containing node v, or -1.  A loop's body is every node whose innermost
 * loop is it or one of its descendants.
 */
struct struct_loops {
    struct struct_loop *loops;
    size_t nloops;
    int32_t *innermost; /* n entries */
};

/*
 * Find the loop nests of @g by Havlak's interval analysis, which also
 * nests irreducible loops: P. Havlak, "Nesting of reducible and
 * irreducible loops", ACM TOPLAS 19(4), 1997, §3 (the UNION-FIND
 * formulation; as in R. Hundt, "Loop recognition in C++/Java/Go/Scala",
 * 2011).  Nodes not reachable from g->entry are explored from extra DFS
 * roots in index order, so cycles in unreachable code are loops too;
 * edges from one DFS tree into an earlier one are ignored, so an
 * unresolved switch case or a landing pad that jumps back into a loop does
 * not make that loop irreducible.  Deterministic.  Returns 0 or STRUCT_ENOMEM (then @out is empty).
 * Release with struct_loops_free().
 */
int struct_find_loops(const struct struct_graph *g, struct struct_loops *out);

void struct_loops_free(struct struct_loops *l);

/* ---- instruction decoder (decoder.c, back ends in arch/) -------------- */

enum struct_insn_kind {
    STRUCT_INSN_OTHER = 0,
    STRUCT_INSN_JUMP,  /* unconditional direct jump to target */
    STRUCT_INSN_CJUMP, /* conditional direct jump (jcc, loop, jrcxz) */
    STRUCT_INSN_IJUMP, /* indirect jump */
    STRUCT_INSN_CALL,  /* direct call to target */
    STRUCT_INSN_ICALL, /* indirect call */
    STRUCT_INSN_RET,   /* return (also iret, sysret) */
    STRUCT_INSN_HALT,  /* no fall-through: hlt, ud2, int3 */
    STRUCT_INSN_BAD,   /* bytes that do not decode (len 1) */
};

/* Register numbers in struct_insn are the decoder's own; 0 means none. */
struct struct_insn {
    uint64_t addr;
    uint32_t len;
    enum struct_insn_kind kind;
    uint64_t target; /* JUMP, CJUMP, CALL */
    /* Facts for jump-table recognition (valid for any kind): */
    uint16_t dst_reg;  /* register written by lea/mov/movsxd/add, else 0 */
    uint16_t mem_base; /* memory operand, when has_mem */
    uint16_t mem_index;
    uint8_t mem_scale;
    bool has_mem;
    bool mem_rip; /* base is the instruction pointer: mem_disp is absolute */
    int64_t mem_disp;
    uint16_t src_reg; /* register source (add r, r2; mov r, r2; jmp r), else 0 */
    int64_t imm;      /* immediate of cmp r, imm */
    bool has_imm;
    /* The facts above were not decoded (struct_decode_flow() on an OTHER
     * instruction that is not a lea): struct_decode() gives them. */
    bool no_facts;
    enum {
        STRUCT_OP_NONE = 0,
        STRUCT_OP_LEA,    /* dst = address of the memory operand */
        STRUCT_OP_LOAD4S, /* dst = sign-extended 32-bit load (movsxd) */
        STRUCT_OP_LOAD8,  /* dst = 64-bit load */
        STRUCT_OP_ADD,    /* dst += src_reg */
        STRUCT_OP_MOV,    /* dst = src_reg */
        STRUCT_OP_CMP,    /* cmp with imm (has_imm) */
    } op;
};

struct struct_decoder; /* opaque, one per thread */

/* Is there a back end for ELF machine @e_machine (EM_X86_64)? */
bool struct_arch_supported(unsigned e_machine);

/* Is relocation @type of @e_machine its RELATIVE type (base + addend)? */
bool struct_arch_reloc_relative(unsigned e_machine, unsigned type);

/*
 * Open a decoder for the back end of ELF machine @e_machine; NULL when
 * there is none or its disassembler cannot be set up (or no memory).
 * Release with struct_decoder_free().
 */
struct struct_decoder *struct_decoder_open(unsigned e_machine);

/* struct_decoder_open(EM_X86_64), for callers that have no ELF header at hand. */
struct struct_decoder *struct_decoder_new(void);

/* Release @d (NULL is allowed). */
void struct_decoder_free(struct struct_decoder *d);

/*
 * Decode one instruction at @code (of @size bytes) whose address is
 * @addr.  Always fills @out: bytes that do not decode give kind BAD with
 * len 1.  Never reads past @size.
 */
void struct_decode(struct struct_decoder *d, const uint8_t *code, size_t size, uint64_t addr,
                   struct struct_insn *out);

/*
 * As struct_decode(), but the jump-table facts of an OTHER instruction are
 * decoded only for lea (its address operand names computed-goto labels);
 * the others come with no_facts set.  Kind, length and target are the
 * same as struct_decode()'s.  Cheaper: with Capstone, operand details are
 * built only for branches, calls and lea (x86-64: about a fifth of the
 * instructions), which saves about a fifth of the decoding time.
 */
void struct_decode_flow(struct struct_decoder *d, const uint8_t *code, size_t size, uint64_t addr,
                        struct struct_insn *out);

/* Canonical 64-bit register of @reg (eax -> rax), 0 when none. */
uint16_t struct_reg64(struct struct_decoder *d, uint16_t reg);

/* ---- procedure CFGs (cfg.c) ----------------------------------------- */

/* A readable piece of the file image (an SHF_ALLOC section with bytes). */
struct struct_image_part {
    uint64_t lo, hi;
    const uint8_t *bytes;
    bool exec;
};

/* Where a call or jump may go: every procedure entry, sorted by address. */
struct struct_entry {
    uint64_t addr;
    const char *name; /* procedure or PLT stub name (interned), may be NULL */
    bool noreturn;
};

/* What the CFG builder needs to know about the module (read-only, shared). */
struct struct_cfg_env {
    const struct struct_image_part *parts; /* sorted by lo, disjoint */
    size_t nparts;
    const struct struct_entry *entries; /* sorted by addr, unique */
    size_t nentries;
    /* Code addresses stored in data (struct_cfg_code_refs()), sorted, unique;
     * may be empty. */
    const uint64_t *code_refs;
    size_t ncode_refs;
    unsigned machine; /* ELF e_machine: picks the decoder back end (0: x86-64) */
};

/*
 * The code addresses that the module's data holds: for a position-
 * independent object (ET_DYN), the addends of its RELATIVE relocations
 * (R_X86_64_RELATIVE; struct_arch_reloc_relative()) (tables of label addresses, "&&label" in GNU C, live in
 * .data.rel.ro and are filled in by the loader); for a fixed-address
 * executable (ET_EXEC), every aligned 64-bit word of a non-executable
 * section whose value lies in an executable one.  Only values inside an
 * executable part of @parts are kept.  @elf is the file whose sections
 * @parts were read from.  On success *out (malloc'ed, sorted, unique; the
 * caller frees it) and *n are set and 0 is returned; STRUCT_ENOMEM
 * otherwise.  A file without relocations gives an empty set.
 */
int struct_cfg_code_refs(Elf *elf, const struct struct_image_part *parts, size_t nparts,
                         uint64_t **out, size_t *n);

/*
 * Fill in what @env learns from the file itself: its machine (e_machine)
 * and code_refs (struct_cfg_code_refs() over env->parts, which must be
 * set).  Returns 0 or STRUCT_ENOMEM; env->code_refs is the caller's to free.
 */
int struct_cfg_env_scan(Elf *elf, struct struct_cfg_env *env);

/* The procedure entry at exactly @a, or NULL.  O(log n).  Thread-safe (reads only). */
const struct struct_entry *struct_cfg_entry_at(const struct struct_cfg_env *env, uint64_t a);

enum struct_call_flags {
    STRUCT_CALL_INDIRECT = 1,
    STRUCT_CALL_TAIL = 2,     /* a jump to another procedure */
    STRUCT_CALL_NORETURN = 4, /* the callee does not return */
};

struct struct_call {
    uint64_t addr, end; /* the call instruction; end = return address */
    uint64_t target;    /* 0 when indirect or unknown */
    unsigned flags;
};

/* One basic block [lo, hi); its innermost loop, or -1. */
struct struct_block {
    uint64_t lo, hi;
    int32_t loop;
};

/* Per-loop results, indices as in struct_loops. */
struct struct_cfg_loop {
    int32_t parent;
    bool irreducible;
    struct struct_rvec entries; /* normalized: blocks entered from outside the loop */
    /* normalized: the conditional and indirect jumps inside the loop to its
     * header (the loop test of a rotated for/while loop; the computed gotos
     * of an interpreter loop) */
    struct struct_rvec back_edges;
};

/* Result of analyzing one procedure; plain malloc'ed memory. */
struct struct_cfg {
    struct struct_block *blocks; /* sorted by lo */
    size_t nblocks;
    struct struct_cfg_loop *loops; /* inner before outer */
    size_t nloops;
    struct struct_call *calls; /* sorted by addr */
    size_t ncalls;
    uint64_t *cbranches; /* addresses of conditional jumps, sorted */
    size_t ncbranches;
    size_t ninsns;
    size_t bad_bytes;        /* bytes that did not decode */
    size_t unresolved_jumps; /* indirect jumps with no recognized table and no label */
    size_t jump_tables;      /* indirect jumps resolved through a table */
    size_t label_jumps;      /* indirect jumps bounded by the procedure's address-taken labels */
};

/*
 * Decode the procedure with normalized ranges @r[0..n) entered at @entry,
 * build its basic blocks and edges, and find its loops.  An indirect jump
 * that no jump table explains may go to any address-taken label of the
 * procedure: an instruction start inside it, other than a procedure
 * entry, that env->code_refs holds or that a "lea label(%rip)" of the
 * procedure computes (computed goto, "goto *disp[op]", as in the dispatch
 * loops of Lua's luaV_execute and CPython's _PyEval_EvalFrameDefault).  Returns 0 or
 * STRUCT_ENOMEM.  Release with struct_cfg_free().
 */
int struct_cfg_build(struct struct_decoder *d, const struct struct_cfg_env *env,
                     const struct struct_range *r, size_t n, uint64_t entry,
                     struct struct_cfg *out);

void struct_cfg_free(struct struct_cfg *c);

/* Is @name a function known not to return (exit, abort, __cxa_throw, ...)? */
bool struct_name_noreturn(const char *name);

#endif /* CSP_STRUCTURE_CFG_H */
