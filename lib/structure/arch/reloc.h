/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reloc.h -- relocation facts of an instruction set, chosen by e_machine
 * (as elfutils' libebl picks a back end): which dynamic relocation types
 * fill a GOT slot with a symbol's address, the slots PLT stubs jump
 * through.  Tool code only.
 */
#ifndef CSP_STRUCTURE_ARCH_RELOC_H
#define CSP_STRUCTURE_ARCH_RELOC_H

#include <stdbool.h>
#include <stdint.h>

/* Does a relocation of @type (ELF r_type) for @machine (e_machine) name a GOT slot? */
bool struct_reloc_names_got_slot(unsigned machine, uint32_t type);

/* x86-64 back end (arch/x86_64/reloc.c). */
bool struct_x86_64_reloc_names_got_slot(uint32_t type);

#endif /* CSP_STRUCTURE_ARCH_RELOC_H */
