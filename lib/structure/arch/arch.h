/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arch.h -- private to lib/structure: the hook each architecture back end
 * (arch/<arch>/decode.c) fills in, and the table decoder.c picks one from
 * by the module's ELF e_machine.  A new architecture (aarch64) adds one
 * back end and one line to the table in decoder.c; cfg.c, loops.c and
 * loopnest.c stay as they are.
 *
 * Tool code only.  A back end's state is per decoder (one per thread).
 */
#ifndef CSP_STRUCTURE_ARCH_H
#define CSP_STRUCTURE_ARCH_H

#include <stddef.h>
#include <stdint.h>

struct struct_insn;

struct struct_arch_ops {
    uint16_t machine;        /* ELF e_machine (EM_X86_64) */
    const char *name;        /* "x86-64" */
    uint32_t reloc_relative; /* the R_<arch>_RELATIVE relocation type */
    /* Back-end state for one decoder; NULL when the disassembler cannot be set up. */
    void *(*open)(void);
    void (*close)(void *state);
    /* As struct_decode(), struct_decode_flow() and struct_reg64() in cfg.h. */
    void (*decode)(void *state, const uint8_t *code, size_t size, uint64_t addr,
                   struct struct_insn *out);
    void (*decode_flow)(void *state, const uint8_t *code, size_t size, uint64_t addr,
                        struct struct_insn *out);
    uint16_t (*reg64)(void *state, uint16_t reg);
};

/* The x86-64 back end (arch/x86_64/decode.c, on Capstone). */
extern const struct struct_arch_ops struct_arch_x86_64;

#endif /* CSP_STRUCTURE_ARCH_H */
