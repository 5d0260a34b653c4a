/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * symbols.c -- procedure candidates from ELF function symbols (.symtab,
 * else .dynsym): aliases at one address resolve to one preferred name;
 * unsized symbols end at the next symbol.  Tool code only.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "structure/binary_internal.h"
#include "support/search.h"

static int
sym_cmp(const void *pa, const void *pb)
{
    const struct sym *a = pa, *b = pb;
    size_t la, lb;

    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->sized != b->sized)
        return a->sized ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    la = strlen(a->name);
    lb = strlen(b->name);
    if (la != lb)
        return la < lb ? -1 : 1;
    return strcmp(a->name, b->name);
}

int
bin_read_symbols(struct analysis *an)
{
    Elf_Scn *scn = NULL, *symscn = NULL;
    GElf_Shdr sh, symsh;
    Elf_Data *data;
    size_t n, out = 0;

    while ((scn = elf_nextscn(an->elf, scn)) != NULL) {
        if (gelf_getshdr(scn, &sh) == NULL)
            continue;
        if (sh.sh_type == SHT_SYMTAB) {
            symscn = scn;
            symsh = sh;
            an->have_symtab = true;
            break;
        }
        if (sh.sh_type == SHT_DYNSYM && symscn == NULL) {
            symscn = scn;
            symsh = sh;
        }
    }
    if (symscn == NULL || symsh.sh_entsize == 0)
        return 0;
    data = elf_getdata(symscn, NULL);
    if (data == NULL)
        return 0;
    n = symsh.sh_size / symsh.sh_entsize;
    an->syms = calloc(n ? n : 1, sizeof(*an->syms));
    if (an->syms == NULL)
        return STRUCT_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        GElf_Sym s;
        const char *name;
        int type, bind;

        if (gelf_getsym(data, (int)i, &s) == NULL)
            continue;
        type = GELF_ST_TYPE(s.st_info);
        bind = GELF_ST_BIND(s.st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF ||
            !struct_ranges_contain(an->text.v, an->text.n, s.st_value))
            continue;
        name = elf_strptr(an->elf, symsh.sh_link, s.st_name);
        if (name == NULL || name[0] == '\0')
            continue;
        an->syms[out].lo = s.st_value;
        an->syms[out].hi = s.st_value + s.st_size;
        an->syms[out].sized = s.st_size > 0;
        an->syms[out].rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
        an->syms[out].name = struct_intern(an->m, name);
        if (an->syms[out].name == NULL)
            return STRUCT_ENOMEM;
        out++;
    }
    qsort(an->syms, out, sizeof(*an->syms), sym_cmp);
    /* Aliases: keep the first (preferred) symbol at each address. */
    n = out;
    out = 0;
    for (size_t i = 0; i < n; i++)
        if (out == 0 || an->syms[out - 1].lo != an->syms[i].lo)
            an->syms[out++] = an->syms[i];
    an->nsyms = out;
    /* Unsized symbols (crt code, hand-written assembly) end at the next symbol
     * or at the end of their executable section, whichever comes first. */
    for (size_t i = 0; i < out; i++) {
        uint64_t end;

        if (an->syms[i].sized)
            continue;
        end = an->syms[i].lo;
        for (size_t j = 0; j < an->text.n; j++)
            if (an->text.v[j].lo <= an->syms[i].lo && an->syms[i].lo < an->text.v[j].hi)
                end = an->text.v[j].hi;
        if (i + 1 < out && an->syms[i + 1].lo < end)
            end = an->syms[i + 1].lo;
        an->syms[i].hi = end;
    }
    return 0;
}

/* The preferred symbol starting exactly at @addr, or NULL. */
const struct sym *
bin_sym_at(const struct analysis *an, uint64_t addr)
{
    size_t i =
        csp_lower_bound_u64(an->syms, an->nsyms, sizeof(*an->syms), offsetof(struct sym, lo), addr);

    return i < an->nsyms && an->syms[i].lo == addr ? &an->syms[i] : NULL;
}

int
bin_add_symbol_cands(struct analysis *an)
{
    for (size_t i = 0; i < an->nsyms; i++) {
        struct cand *c = bin_cand_new(an, SRC_SYMBOL);
        const char *d;

        if (c == NULL || struct_rvec_push(&c->raw, an->syms[i].lo, an->syms[i].hi) != 0)
            return STRUCT_ENOMEM;
        c->link_name = an->syms[i].name;
        c->entry = an->syms[i].lo;
        d = bin_demangled(an, c->link_name);
        c->name = d != NULL ? d : c->link_name;
    }
    return 0;
}
