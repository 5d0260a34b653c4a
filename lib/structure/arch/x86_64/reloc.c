/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reloc.c (x86_64) -- relocation types of the x86-64 psABI that lib/structure
 * cares about, and the e_machine dispatch of arch/reloc.h (the only
 * back end so far; aarch64 adds a sibling folder and a row).  Tool code only.
 */
#include <elf.h>
#include <stddef.h>

#include "structure/arch/reloc.h"

bool
struct_x86_64_reloc_names_got_slot(uint32_t type)
{
    return type == R_X86_64_JUMP_SLOT || type == R_X86_64_GLOB_DAT;
}

static const struct {
    unsigned machine;
    bool (*names_got_slot)(uint32_t type);
} backends[] = {
    {EM_X86_64, struct_x86_64_reloc_names_got_slot},
};

bool
struct_reloc_names_got_slot(unsigned machine, uint32_t type)
{
    for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
        if (backends[i].machine == machine)
            return backends[i].names_got_slot(type);
    return false;
}
