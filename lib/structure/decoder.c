/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * decoder.c -- the instruction decoder of cfg.h, dispatched at run time to
 * the architecture back end (arch/arch.h) that the module's ELF e_machine
 * names.  Back ends: x86-64.  Adding one (aarch64) is one line in arches[].
 *
 * Tool code only.  A decoder is used by one thread at a time; never prints.
 */
#include <elf.h>
#include <stdlib.h>

#include "structure/arch/arch.h"
#include "structure/cfg.h"

static const struct struct_arch_ops *const arches[] = {
    &struct_arch_x86_64,
};

struct struct_decoder {
    const struct struct_arch_ops *ops;
    void *state;
};

static const struct struct_arch_ops *
arch_for(unsigned e_machine)
{
    for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
        if (arches[i]->machine == e_machine)
            return arches[i];
    return NULL;
}

bool
struct_arch_supported(unsigned e_machine)
{
    return arch_for(e_machine) != NULL;
}

bool
struct_arch_reloc_relative(unsigned e_machine, unsigned type)
{
    const struct struct_arch_ops *a = arch_for(e_machine);

    return a != NULL && a->reloc_relative == type;
}

struct struct_decoder *
struct_decoder_open(unsigned e_machine)
{
    const struct struct_arch_ops *a = arch_for(e_machine);
    struct struct_decoder *d;

    if (a == NULL || (d = malloc(sizeof(*d))) == NULL)
        return NULL;
    d->ops = a;
    d->state = a->open();
    if (d->state == NULL) {
        free(d);
        return NULL;
    }
    return d;
}

struct struct_decoder *
struct_decoder_new(void)
{
    return struct_decoder_open(EM_X86_64);
}

void
struct_decoder_free(struct struct_decoder *d)
{
    if (d == NULL)
        return;
    d->ops->close(d->state);
    free(d);
}

void
struct_decode(struct struct_decoder *d, const uint8_t *code, size_t size, uint64_t addr,
              struct struct_insn *out)
{
    d->ops->decode(d->state, code, size, addr, out);
}

void
struct_decode_flow(struct struct_decoder *d, const uint8_t *code, size_t size, uint64_t addr,
                   struct struct_insn *out)
{
    d->ops->decode_flow(d->state, code, size, addr, out);
}

uint16_t
struct_reg64(struct struct_decoder *d, uint16_t reg)
{
    return d->ops->reg64(d->state, reg);
}
