/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * elf_image.c -- the ELF side of a binary: header checks (machine, type,
 * sizes inside the file), executable ranges, build-id and entry point,
 * and the loaded sections the decoder reads.  Tool code only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <elfutils/libdwelf.h>

#include "structure/binary_internal.h"
#include "support/bytes.h"
#include "support/vec.h"

static const char *
machine_name(unsigned machine)
{
    switch (machine) {
    case EM_386:
        return "i386";
    case EM_X86_64:
        return "x86-64";
    case EM_AARCH64:
        return "AArch64";
    case EM_ARM:
        return "ARM";
    case EM_PPC:
        return "PowerPC";
    case EM_PPC64:
        return "PowerPC64";
    case EM_S390:
        return "s390";
    case EM_RISCV:
        return "RISC-V";
    case EM_MIPS:
        return "MIPS";
    case EM_SPARCV9:
        return "SPARC64";
    default:
        return NULL;
    }
}

/*
 * Check that @elf is an x86-64 executable or shared library whose headers
 * and sections lie inside the file.
 */
int
bin_check_elf(struct analysis *an, off_t fsize, char *err, size_t errlen)
{
    GElf_Ehdr eh;
    size_t shnum, phnum;
    Elf_Scn *scn = NULL;

    if (elf_kind(an->elf) != ELF_K_ELF) {
        bin_set_err(err, errlen, "%s: not an ELF file%s", an->path,
                    elf_kind(an->elf) == ELF_K_AR ? " (an ar archive)" : "");
        return STRUCT_ENOTELF;
    }
    if (gelf_getehdr(an->elf, &eh) == NULL) {
        bin_set_err(err, errlen, "%s: truncated or corrupt ELF header (%s)", an->path,
                    elf_errmsg(-1));
        return STRUCT_ENOTELF;
    }
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64) {
        const char *mn = machine_name(eh.e_machine);

        if (mn != NULL)
            bin_set_err(err, errlen, "%s: ELF for %s (%s-bit) is not supported: x86-64 only",
                        an->path, mn, eh.e_ident[EI_CLASS] == ELFCLASS32 ? "32" : "64");
        else
            bin_set_err(err, errlen, "%s: ELF for machine %u is not supported: x86-64 only",
                        an->path, (unsigned)eh.e_machine);
        return STRUCT_EARCH;
    }
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
        bin_set_err(err, errlen, "%s: ELF type %u is not an executable or shared library", an->path,
                    (unsigned)eh.e_type);
        return STRUCT_ENOTELF;
    }
    /* Check the header's own counts: libelf quietly drops section headers
     * that lie past the end of a truncated file. */
    if (elf_getshdrnum(an->elf, &shnum) != 0 || elf_getphdrnum(an->elf, &phnum) != 0)
        goto truncated;
    if (eh.e_shnum != 0)
        shnum = eh.e_shnum;
    if (eh.e_phnum != PN_XNUM)
        phnum = eh.e_phnum;
    if (eh.e_shoff != 0 && shnum == 0 && eh.e_shnum == 0 && (uint64_t)fsize < eh.e_shoff)
        goto truncated;
    if ((uint64_t)fsize < eh.e_phoff ||
        (uint64_t)fsize - eh.e_phoff < phnum * (uint64_t)eh.e_phentsize)
        goto truncated;
    if (shnum > 0 && ((uint64_t)fsize < eh.e_shoff ||
                      (uint64_t)fsize - eh.e_shoff < shnum * (uint64_t)eh.e_shentsize))
        goto truncated;
    while ((scn = elf_nextscn(an->elf, scn)) != NULL) {
        GElf_Shdr sh;

        if (gelf_getshdr(scn, &sh) == NULL)
            goto truncated;
        if (sh.sh_type != SHT_NOBITS &&
            ((uint64_t)fsize < sh.sh_offset || (uint64_t)fsize - sh.sh_offset < sh.sh_size))
            goto truncated;
    }
    return 0;
truncated:
    bin_set_err(err, errlen,
                "%s: truncated or corrupt ELF (headers or sections past the end of the file)",
                an->path);
    return STRUCT_ENOTELF;
}

int
bin_collect_text(struct analysis *an)
{
    Elf_Scn *scn = NULL;
    size_t phnum;

    while ((scn = elf_nextscn(an->elf, scn)) != NULL) {
        GElf_Shdr sh;

        if (gelf_getshdr(scn, &sh) == NULL)
            continue;
        if ((sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) == (SHF_ALLOC | SHF_EXECINSTR) &&
            sh.sh_size > 0 && struct_rvec_push(&an->text, sh.sh_addr, sh.sh_addr + sh.sh_size) != 0)
            return STRUCT_ENOMEM;
    }
    if (an->text.n == 0 && elf_getphdrnum(an->elf, &phnum) == 0) {
        for (size_t i = 0; i < phnum; i++) {
            GElf_Phdr ph;

            if (gelf_getphdr(an->elf, (int)i, &ph) == NULL)
                continue;
            if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && ph.p_memsz > 0 &&
                struct_rvec_push(&an->text, ph.p_vaddr, ph.p_vaddr + ph.p_memsz) != 0)
                return STRUCT_ENOMEM;
        }
    }
    struct_rvec_normalize(&an->text);
    return 0;
}

int
bin_read_build_id(struct analysis *an)
{
    const void *p;
    ssize_t len = dwelf_elf_gnu_build_id(an->elf, &p);
    GElf_Ehdr ehdr;
    char *hex;

    if (gelf_getehdr(an->elf, &ehdr) != NULL)
        an->m->entry = ehdr.e_entry; /* recorded here with the other identity facts */
    if (len <= 0)
        return 0;
    hex = malloc((size_t)len * 2 + 1);
    if (hex == NULL)
        return STRUCT_ENOMEM;
    csp_hex(p, (size_t)len, hex, (size_t)len * 2 + 1);
    an->m->build_id = struct_intern(an->m, hex);
    free(hex);
    return an->m->build_id == NULL ? STRUCT_ENOMEM : 0;
}

static int
part_cmp(const void *pa, const void *pb)
{
    const struct struct_image_part *a = pa, *b = pb;

    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

int
bin_collect_image(struct analysis *an, struct struct_image_part **out, size_t *nout)
{
    struct struct_image_part *v = NULL;
    size_t n = 0, cap = 0, k = 0;
    Elf_Scn *scn = NULL;

    while ((scn = elf_nextscn(an->elf, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *d;

        if (gelf_getshdr(scn, &sh) == NULL || !(sh.sh_flags & SHF_ALLOC) ||
            sh.sh_type == SHT_NOBITS || sh.sh_size == 0 || sh.sh_addr + sh.sh_size < sh.sh_addr)
            continue;
        d = elf_getdata(scn, NULL);
        if (d == NULL || d->d_buf == NULL || d->d_size < sh.sh_size)
            continue;
        if (csp_vec_reserve(&v, &cap, n + 1, sizeof(*v)) != 0) {
            free(v);
            return STRUCT_ENOMEM;
        }
        v[n++] = (struct struct_image_part){sh.sh_addr, sh.sh_addr + sh.sh_size, d->d_buf,
                                            (sh.sh_flags & SHF_EXECINSTR) != 0};
    }
    if (n > 1)
        qsort(v, n, sizeof(*v), part_cmp);
    for (size_t i = 0; i < n; i++) /* drop overlapping sections (corrupt headers) */
        if (k == 0 || v[i].lo >= v[k - 1].hi)
            v[k++] = v[i];
    *out = v;
    *nout = k;
    return 0;
}
