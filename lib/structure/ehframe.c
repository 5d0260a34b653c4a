/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ehframe.c -- procedure candidates from .eh_frame FDEs, for code no
 * symbol covers (stripped binaries), named "<module basename>+0xOFFSET".
 * FDEs are iterated with libdw's dwarf_next_cfi; the FDE's address fields
 * are decoded here from the CIE's pointer encoding.  Tool code only.
 */
#include <dwarf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "structure/binary_internal.h"
#include "support/bytes.h"
#include "support/vec.h"

struct cie_info {
    Dwarf_Off off;
    uint8_t fde_enc;
    bool ok;
};

static size_t
enc_size(uint8_t enc)
{
    switch (enc & 0x0f) {
    case DW_EH_PE_absptr:
    case DW_EH_PE_udata8:
    case DW_EH_PE_sdata8:
        return 8;
    case DW_EH_PE_udata2:
    case DW_EH_PE_sdata2:
        return 2;
    case DW_EH_PE_udata4:
    case DW_EH_PE_sdata4:
        return 4;
    default:
        return 0; /* LEB128 or unknown: not used for FDE addresses on x86-64 */
    }
}

/* Read a value of format @enc (low nibble) at @p; false when unsupported. */
static bool
read_enc(const uint8_t *p, const uint8_t *end, uint8_t enc, uint64_t *val)
{
    size_t sz = enc_size(enc);
    uint64_t v = 0;

    if (sz == 0 || (size_t)(end - p) < sz)
        return false;
    v = csp_le_load(p, sz); /* x86-64 and aarch64 ELF are little-endian */
    if ((enc & 0x0f) == DW_EH_PE_sdata2 && (v & 0x8000))
        v |= ~(uint64_t)0xffff;
    if ((enc & 0x0f) == DW_EH_PE_sdata4 && (v & 0x80000000))
        v |= ~(uint64_t)0xffffffff;
    *val = v;
    return true;
}

/* FDE pointer encoding from a CIE's augmentation ("zR", "zPLR", ...). */
static bool
cie_fde_encoding(const Dwarf_CIE *cie, uint8_t *enc)
{
    const char *aug = cie->augmentation;
    const uint8_t *p = cie->augmentation_data;
    const uint8_t *end = p + cie->augmentation_data_size;

    *enc = DW_EH_PE_absptr;
    if (aug == NULL || aug[0] == '\0')
        return true;
    if (aug[0] != 'z' || p == NULL)
        return false;
    for (aug++; *aug != '\0'; aug++) {
        switch (*aug) {
        case 'R':
            if (p >= end)
                return false;
            *enc = *p++;
            break;
        case 'L':
            p++;
            break;
        case 'P': {
            uint8_t penc;
            size_t sz;

            if (p >= end)
                return false;
            penc = *p++;
            sz = enc_size(penc);
            if (sz == 0)
                return false;
            p += sz;
            break;
        }
        case 'S':
        case 'B':
            break;
        default:
            return *enc != DW_EH_PE_absptr; /* unknown letter: only trust an 'R' seen before */
        }
    }
    return true;
}

int
bin_add_fde_cands(struct analysis *an)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    Elf_Data *data = NULL;
    size_t shstrndx;
    const unsigned char *ident;
    struct cie_info *cies = NULL;
    size_t ncies = 0, capcies = 0;
    Dwarf_Off off = 0, next;
    const char *base = strrchr(an->m->root.name, '/');
    int rc = 0;

    base = base ? base + 1 : an->m->root.name;
    ident = (const unsigned char *)elf_getident(an->elf, NULL);
    if (ident == NULL || elf_getshdrstrndx(an->elf, &shstrndx) != 0)
        return 0;
    while ((scn = elf_nextscn(an->elf, scn)) != NULL) {
        const char *name;

        if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type == SHT_NOBITS)
            continue;
        name = elf_strptr(an->elf, shstrndx, sh.sh_name);
        if (name != NULL && strcmp(name, ".eh_frame") == 0) {
            data = elf_getdata(scn, NULL);
            break;
        }
    }
    if (data == NULL || data->d_buf == NULL)
        return 0;
    for (;;) {
        Dwarf_CFI_Entry e;
        int r = dwarf_next_cfi(ident, data, true, off, &next, &e);

        if (r == 1)
            break;
        if (r < 0) {
            if (next == (Dwarf_Off)-1 || next <= off)
                break;
            off = next;
            continue;
        }
        if (dwarf_cfi_cie_p(&e)) {
            if (csp_vec_reserve(&cies, &capcies, ncies + 1, sizeof(*cies)) != 0) {
                rc = STRUCT_ENOMEM;
                goto out;
            }
            cies[ncies].off = off;
            cies[ncies].ok = cie_fde_encoding(&e.cie, &cies[ncies].fde_enc);
            ncies++;
        } else {
            const struct cie_info *ci = NULL;
            uint64_t loc, len, field;
            uint8_t enc;

            for (size_t i = ncies; i-- > 0;) { /* CIEs precede their FDEs; search backwards */
                if (cies[i].off == e.fde.CIE_pointer) {
                    ci = &cies[i];
                    break;
                }
            }
            if (ci == NULL || !ci->ok)
                goto next_entry;
            enc = ci->fde_enc;
            field = sh.sh_addr + (uint64_t)(e.fde.start - (const uint8_t *)data->d_buf);
            if (!read_enc(e.fde.start, e.fde.end, enc, &loc) ||
                !read_enc(e.fde.start + enc_size(enc), e.fde.end, enc & 0x0f, &len))
                goto next_entry;
            if ((enc & 0x70) == DW_EH_PE_pcrel)
                loc += field;
            else if ((enc & 0x70) != DW_EH_PE_absptr)
                goto next_entry; /* datarel, textrel, funcrel: not emitted for x86-64 code */
            if (len == 0 || loc == 0 || !struct_ranges_contain(an->text.v, an->text.n, loc))
                goto next_entry;
            {
                struct cand *c = bin_cand_new(an, SRC_FDE);
                char name[PATH_MAX + 32];

                if (c == NULL || struct_rvec_push(&c->raw, loc, loc + len) != 0) {
                    rc = STRUCT_ENOMEM;
                    goto out;
                }
                c->entry = loc;
                snprintf(name, sizeof(name), "%s+0x%" PRIx64, base, loc);
                c->name = struct_intern(an->m, name);
                if (c->name == NULL) {
                    rc = STRUCT_ENOMEM;
                    goto out;
                }
            }
        }
    next_entry:
        if (next == (Dwarf_Off)-1 || next <= off)
            break;
        off = next;
    }
out:
    free(cies);
    return rc;
}
