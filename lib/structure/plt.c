/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plt.c -- procedures for PLT stubs ("exit@plt"): each stub of .plt,
 * .plt.sec and .plt.got jumps through a GOT slot that a dynamic relocation
 * names; which relocation types name GOT slots is the ISA's business
 * (arch/<isa>/reloc.c, chosen by e_machine).  Tool code only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "structure/arch/reloc.h"
#include "structure/cfg.h"

#include "structure/binary_internal.h"
#include "support/vec.h"

struct slot {
    uint64_t addr; /* GOT slot */
    const char *name;
};

static int
slot_cmp(const void *pa, const void *pb)
{
    const struct slot *a = pa, *b = pb;

    return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* GOT slots named by the dynamic relocations against them (.rela.plt, .rela.dyn). */
static int
read_got_slots(struct analysis *an, struct slot **out, size_t *nout)
{
    struct slot *v = NULL;
    size_t n = 0, cap = 0;
    Elf_Scn *scn = NULL;
    GElf_Ehdr eh;
    unsigned machine;

    if (gelf_getehdr(an->elf, &eh) == NULL)
        return 0;
    machine = eh.e_machine;
    while ((scn = elf_nextscn(an->elf, scn)) != NULL) {
        GElf_Shdr sh, symsh;
        Elf_Scn *symscn;
        Elf_Data *d, *symd;

        if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_RELA || sh.sh_entsize == 0 ||
            (symscn = elf_getscn(an->elf, sh.sh_link)) == NULL ||
            gelf_getshdr(symscn, &symsh) == NULL || symsh.sh_type != SHT_DYNSYM ||
            (d = elf_getdata(scn, NULL)) == NULL || (symd = elf_getdata(symscn, NULL)) == NULL)
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Rela r;
            GElf_Sym sym;
            const char *name;

            if (gelf_getrela(d, (int)i, &r) == NULL || GELF_R_SYM(r.r_info) == 0 ||
                !struct_reloc_names_got_slot(machine, (uint32_t)GELF_R_TYPE(r.r_info)) ||
                gelf_getsym(symd, (int)GELF_R_SYM(r.r_info), &sym) == NULL ||
                (name = elf_strptr(an->elf, symsh.sh_link, sym.st_name)) == NULL || name[0] == '\0')
                continue;
            if (csp_vec_reserve(&v, &cap, n + 1, sizeof(*v)) != 0) {
                free(v);
                return STRUCT_ENOMEM;
            }
            v[n++] = (struct slot){r.r_offset, name};
        }
    }
    if (n > 1)
        qsort(v, n, sizeof(*v), slot_cmp);
    *out = v;
    *nout = n;
    return 0;
}

/*
 * Procedures for PLT stubs ("exit@plt"): each stub of .plt, .plt.sec and
 * .plt.got jumps through a GOT slot that a dynamic relocation names.
 */
int
bin_add_plt_cands(struct analysis *an)
{
    struct struct_decoder *d = NULL;
    struct slot *slots = NULL;
    size_t nslots = 0, shstrndx;
    Elf_Scn *scn = NULL;
    int rc;

    if (elf_getshdrstrndx(an->elf, &shstrndx) != 0)
        return 0;
    if ((rc = read_got_slots(an, &slots, &nslots)) != 0 || nslots == 0)
        goto out;
    d = struct_decoder_new();
    if (d == NULL)
        goto out; /* no decoder: PLT stubs stay unnamed */
    while ((scn = elf_nextscn(an->elf, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *data;
        const char *name;
        uint64_t esz, off = 0;

        if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_PROGBITS ||
            (name = elf_strptr(an->elf, shstrndx, sh.sh_name)) == NULL ||
            (strcmp(name, ".plt") != 0 && strcmp(name, ".plt.sec") != 0 &&
             strcmp(name, ".plt.got") != 0) ||
            (data = elf_getdata(scn, NULL)) == NULL || data->d_buf == NULL ||
            data->d_size < sh.sh_size)
            continue;
        esz = sh.sh_entsize >= 8 && sh.sh_entsize <= 64 ? sh.sh_entsize : 16;
        while (off < sh.sh_size) {
            struct struct_insn in;
            struct slot key = {0}, *hit;

            struct_decode(d, (const uint8_t *)data->d_buf + off, sh.sh_size - off, sh.sh_addr + off,
                          &in);
            off += in.len;
            if (in.kind != STRUCT_INSN_IJUMP || !in.has_mem || !in.mem_rip)
                continue;
            key.addr = (uint64_t)in.mem_disp;
            hit = bsearch(&key, slots, nslots, sizeof(*slots), slot_cmp);
            if (hit != NULL) {
                uint64_t lo = sh.sh_addr + (in.addr - sh.sh_addr) / esz * esz;
                struct cand *c = bin_cand_new(an, SRC_SYMBOL);
                char buf[512];

                snprintf(buf, sizeof(buf), "%s@plt", hit->name);
                if (c == NULL || struct_rvec_push(&c->raw, lo, lo + esz) != 0 ||
                    (c->name = c->link_name = struct_intern(an->m, buf)) == NULL) {
                    rc = STRUCT_ENOMEM;
                    goto out;
                }
                c->entry = lo;
                off = lo + esz - sh.sh_addr; /* next stub */
            }
        }
    }
    rc = 0;
out:
    struct_decoder_free(d);
    free(slots);
    return rc;
}
