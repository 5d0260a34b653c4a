/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * analyze.c -- recover program structure from an x86-64 ELF binary with
 * elfutils libelf/libdw (bloop-style, seed 003 §3, without loops in v1).
 *
 * Procedures come from three sources, in order of trust:
 *   1. DWARF subprograms with code (name, declaration file/line, all
 *      ranges, including hot/cold splits), with their inlined-subroutine
 *      trees (DW_TAG_inlined_subroutine, nested to any depth);
 *   2. ELF function symbols (.symtab, else .dynsym) for code no DWARF
 *      subprogram covers; aliases at one address resolve to one name;
 *   3. .eh_frame FDE ranges for code no symbol covers (stripped binaries),
 *      named "<module basename>+0xOFFSET".
 * Each source only claims addresses the sources before it left free.
 * Statements come from the DWARF line table: the address range of each row
 * is split at scope boundaries and grouped per (innermost PROC/INLINE
 * scope, file, line).  Rows with line 0 inherit the nearest preceding
 * (else following) nonzero row of their sequence, so every address of a
 * procedure with line information is covered by some statement.
 * Procedures are grouped into FILE scopes by declaration file; those with
 * none (and no line information at their entry) go to "<unknown file>".
 * DWARF is read from the binary, else from a separate debug file found by
 * build-id or .gnu_debuglink (see open_dwarf()).  The module is named by
 * the binary's canonical path (realpath), as the kernel shows mappings.
 *
 * Addresses are ELF virtual addresses as in the file (module-relative for
 * PIE and shared libraries).  Tool code only; never runs in a profiled
 * process.  Reports errors through @err, never prints.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "structure/cfg.h"
#include "structure/structure_internal.h"
#include "support/search.h"

enum cand_source { SRC_DWARF = 0, SRC_SYMBOL = 1, SRC_FDE = 2 };

/* An inlined call, as read from DWARF, before clipping. */
struct inl {
    const char *name, *file, *call_file;
    uint32_t line, call_line;
    struct struct_rvec ranges; /* normalized */
    struct inl *first_child, *last_child, *next_sibling;
};

/* A procedure candidate from one of the three sources. */
struct cand {
    enum cand_source src;
    const char *name, *link_name, *file;
    uint32_t line;
    struct struct_rvec raw;   /* normalized ranges as read */
    struct struct_rvec final; /* after claiming */
    struct inl root;          /* children: top-level inlined calls */
    uint64_t entry;           /* entry address (0: the start of the first range) */
    bool noreturn;            /* DW_AT_noreturn */
};

/* One row range of the line table. */
struct line_piece {
    uint64_t lo, hi;
    const char *file;
    uint32_t line;
};

/* A statement piece placed in its innermost scope. */
struct stmt_piece {
    struct struct_scope *scope;
    const char *file;
    uint32_t line;
    uint64_t lo, hi;
};

/*
 * One entry of a direct-mapped cache from a string pointer to its
 * interned copy (or demangled name): DWARF gives the same pointers over
 * and over (file names of every line-table row, names of every instance
 * of an inlined function), and hashing the text each time is slow.
 */
struct str_cache_ent {
    const char *key;
    const char *val;
};

#define STR_CACHE_BITS 13

/* A function symbol. */
struct sym {
    uint64_t lo, hi;
    bool sized; /* st_size > 0; unsized symbols extend to the next symbol */
    int rank;   /* 0 global, 1 weak, 2 local */
    const char *name;
};

struct analysis {
    struct struct_module *m;
    const char *path;
    const struct struct_options *opt;
    Elf *elf;
    int fd;
    Elf *dbg_elf; /* separate debug file, if used */
    int dbg_fd;
    Dwarf *dw;
    struct struct_rvec text; /* executable address ranges, normalized */
    struct cand *cands;
    size_t ncands, capcands;
    struct sym *syms;
    size_t nsyms;
    bool have_symtab;
    struct line_piece *lines;
    size_t nlines, caplines;
    /* Caches (NULL when they could not be allocated: no caching): DWARF
     * string -> interned copy; interned linkage name -> demangled name. */
    struct str_cache_ent *dw_strs, *demangled;
    /* per-CU state */
    struct struct_rvec cu_ranges; /* the CU's code ranges, normalized */
    const void *cu_unit;          /* Dwarf_Die.cu of the CU's DIEs */
    Dwarf_Off cu_off;             /* offset of the CU's DIE */
    Dwarf_Aranges *aranges;       /* .debug_aranges, NULL when absent */
    uint64_t ar_lo, ar_hi;        /* last arange found */
    Dwarf_Off ar_cu;              /* its CU DIE's offset */
    Dwarf_Files *cu_files;
    size_t cu_nfiles;
    int rc; /* first error while walking */
};

static void
set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---- ELF checks ---------------------------------------------------- */

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
static int
check_elf(struct analysis *an, off_t fsize, char *err, size_t errlen)
{
    GElf_Ehdr eh;
    size_t shnum, phnum;
    Elf_Scn *scn = NULL;

    if (elf_kind(an->elf) != ELF_K_ELF) {
        set_err(err, errlen, "%s: not an ELF file%s", an->path,
                elf_kind(an->elf) == ELF_K_AR ? " (an ar archive)" : "");
        return STRUCT_ENOTELF;
    }
    if (gelf_getehdr(an->elf, &eh) == NULL) {
        set_err(err, errlen, "%s: truncated or corrupt ELF header (%s)", an->path, elf_errmsg(-1));
        return STRUCT_ENOTELF;
    }
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64) {
        const char *mn = machine_name(eh.e_machine);

        if (mn != NULL)
            set_err(err, errlen, "%s: ELF for %s (%s-bit) is not supported: x86-64 only", an->path,
                    mn, eh.e_ident[EI_CLASS] == ELFCLASS32 ? "32" : "64");
        else
            set_err(err, errlen, "%s: ELF for machine %u is not supported: x86-64 only", an->path,
                    (unsigned)eh.e_machine);
        return STRUCT_EARCH;
    }
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
        set_err(err, errlen, "%s: ELF type %u is not an executable or shared library", an->path,
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
    set_err(err, errlen,
            "%s: truncated or corrupt ELF (headers or sections past the end of the file)",
            an->path);
    return STRUCT_ENOTELF;
}

static int
collect_text(struct analysis *an)
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

static int
read_build_id(struct analysis *an)
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
    for (ssize_t i = 0; i < len; i++)
        sprintf(hex + 2 * i, "%02x", ((const unsigned char *)p)[i]);
    an->m->build_id = struct_intern(an->m, hex);
    free(hex);
    return an->m->build_id == NULL ? STRUCT_ENOMEM : 0;
}

/* ---- candidates ------------------------------------------------------ */

static struct cand *
cand_new(struct analysis *an, enum cand_source src)
{
    if (an->ncands == an->capcands) {
        size_t cap = an->capcands ? an->capcands * 2 : 256;
        struct cand *v = realloc(an->cands, cap * sizeof(*v));

        if (v == NULL)
            return NULL;
        an->cands = v;
        an->capcands = cap;
    }
    memset(&an->cands[an->ncands], 0, sizeof(an->cands[0]));
    an->cands[an->ncands].src = src;
    return &an->cands[an->ncands++];
}

static void
inl_free_children(struct inl *p)
{
    struct inl *c = p->first_child, *next;

    for (; c != NULL; c = next) {
        next = c->next_sibling;
        inl_free_children(c);
        struct_rvec_free(&c->ranges);
        free(c);
    }
    p->first_child = p->last_child = NULL;
}

/* Start of the first range of @r that begins after @addr, or UINT64_MAX. */
static uint64_t
ranges_next_start(const struct struct_range *r, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (r[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n ? r[lo].lo : UINT64_MAX;
}

/* ---- ELF symbols ----------------------------------------------------- */

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

static int
read_symbols(struct analysis *an)
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
static const struct sym *
sym_at(const struct analysis *an, uint64_t addr)
{
    size_t lo = 0, hi = an->nsyms;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (an->syms[mid].lo < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < an->nsyms && an->syms[lo].lo == addr ? &an->syms[lo] : NULL;
}

static size_t
str_cache_slot(const char *key)
{
    return (size_t)(((uintptr_t)key * 0x9e3779b97f4a7c15ULL) >> (64 - STR_CACHE_BITS));
}

/* Stands for "not mangled" in the demangling cache. */
static const char not_mangled[] = "";

/* Demangled name of @link (interned), or NULL when it is not mangled. */
static const char *
demangled(struct analysis *an, const char *link)
{
    struct str_cache_ent *e = an->demangled != NULL ? &an->demangled[str_cache_slot(link)] : NULL;
    char *d;
    const char *s;

    if (e != NULL && e->key == link)
        return e->val == not_mangled ? NULL : e->val;
    d = struct_demangle(link);
    if (d == NULL) {
        s = NULL;
    } else {
        s = struct_intern(an->m, d);
        free(d);
        if (s == NULL)
            return NULL; /* out of memory: not cached */
    }
    if (e != NULL) {
        e->key = link;
        e->val = s != NULL ? s : not_mangled;
    }
    return s;
}

/*
 * struct_intern() for a string that lives in the DWARF data (or libdw's
 * per-CU file tables) until dwarf_end(), so its address names its text.
 */
static const char *
intern_dw(struct analysis *an, const char *s)
{
    struct str_cache_ent *e;
    const char *v;

    if (s == NULL)
        return NULL;
    e = an->dw_strs != NULL ? &an->dw_strs[str_cache_slot(s)] : NULL;
    if (e != NULL && e->key == s)
        return e->val;
    v = struct_intern(an->m, s);
    if (e != NULL && v != NULL) {
        e->key = s;
        e->val = v;
    }
    return v;
}

static int
add_symbol_cands(struct analysis *an)
{
    for (size_t i = 0; i < an->nsyms; i++) {
        struct cand *c = cand_new(an, SRC_SYMBOL);
        const char *d;

        if (c == NULL || struct_rvec_push(&c->raw, an->syms[i].lo, an->syms[i].hi) != 0)
            return STRUCT_ENOMEM;
        c->link_name = an->syms[i].name;
        c->entry = an->syms[i].lo;
        d = demangled(an, c->link_name);
        c->name = d != NULL ? d : c->link_name;
    }
    return 0;
}

/* ---- PLT stubs --------------------------------------------------------- */

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
                (GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT &&
                 GELF_R_TYPE(r.r_info) != R_X86_64_GLOB_DAT) ||
                gelf_getsym(symd, (int)GELF_R_SYM(r.r_info), &sym) == NULL ||
                (name = elf_strptr(an->elf, symsh.sh_link, sym.st_name)) == NULL || name[0] == '\0')
                continue;
            if (n == cap) {
                size_t ncap = cap ? cap * 2 : 64;
                struct slot *nv = realloc(v, ncap * sizeof(*nv));

                if (nv == NULL) {
                    free(v);
                    return STRUCT_ENOMEM;
                }
                v = nv;
                cap = ncap;
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
static int
add_plt_cands(struct analysis *an)
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
                struct cand *c = cand_new(an, SRC_SYMBOL);
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

/* ---- .eh_frame FDEs -------------------------------------------------- */

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
    for (size_t i = 0; i < sz; i++)
        v |= (uint64_t)p[i] << (8 * i); /* x86-64 is little-endian */
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

static int
add_fde_cands(struct analysis *an)
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
            if (ncies == capcies) {
                size_t cap = capcies ? capcies * 2 : 16;
                struct cie_info *v = realloc(cies, cap * sizeof(*v));

                if (v == NULL) {
                    rc = STRUCT_ENOMEM;
                    goto out;
                }
                cies = v;
                capcies = cap;
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
                struct cand *c = cand_new(an, SRC_FDE);
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

/* ---- DWARF ----------------------------------------------------------- */

/* Normalized code ranges of @die, restricted to executable sections. */
static int
die_ranges(struct analysis *an, Dwarf_Die *die, struct struct_rvec *out)
{
    struct struct_rvec raw = {0};
    Dwarf_Addr base, start, end;
    ptrdiff_t off = 0;
    int rc = 0;

    out->n = 0;
    while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0)
        if (start < end && struct_rvec_push(&raw, start, end) != 0) {
            rc = STRUCT_ENOMEM;
            goto out;
        }
    struct_rvec_normalize(&raw);
    rc = struct_ranges_intersect(raw.v, raw.n, an->text.v, an->text.n, out);
out:
    struct_rvec_free(&raw);
    return rc;
}

static const char *
die_string(Dwarf_Die *die, int at)
{
    Dwarf_Attribute a;

    return dwarf_formstring(dwarf_attr_integrate(die, at, &a));
}

/* Name (demangled when possible) and linkage name of a subprogram or inline. */
static int
die_names(struct analysis *an, Dwarf_Die *die, const char **name, const char **link)
{
    const char *l = die_string(die, DW_AT_linkage_name);
    const char *n;

    if (l == NULL)
        l = die_string(die, DW_AT_MIPS_linkage_name);
    *link = intern_dw(an, l);
    if (l != NULL && *link == NULL)
        return STRUCT_ENOMEM;
    n = *link != NULL ? demangled(an, *link) : NULL;
    if (n == NULL) {
        const char *dn = die_string(die, DW_AT_name);

        n = intern_dw(an, dn);
        if (dn != NULL && n == NULL)
            return STRUCT_ENOMEM;
    }
    *name = n;
    return 0;
}

static int
die_decl(struct analysis *an, Dwarf_Die *die, const char **file, uint32_t *line)
{
    const char *f = dwarf_decl_file(die);
    int l = 0;

    *file = intern_dw(an, f);
    if (f != NULL && *file == NULL)
        return STRUCT_ENOMEM;
    *line = dwarf_decl_line(die, &l) == 0 && l > 0 ? (uint32_t)l : 0;
    return 0;
}

static int walk_children(struct analysis *an, Dwarf_Die *parent, struct inl *scope);

/*
 * The file table that file attributes of @die index: the one of the unit
 * that holds @die (a partial unit imported into the CU being walked has
 * its own), usually the current CU's.  NULL when it has none.
 */
static Dwarf_Files *
die_files(struct analysis *an, Dwarf_Die *die, size_t *n)
{
    Dwarf_Die cu;
    Dwarf_Files *files;

    if (die->cu == an->cu_unit) {
        *n = an->cu_nfiles;
        return an->cu_files;
    }
    if (dwarf_diecu(die, &cu, NULL, NULL) == NULL || dwarf_getsrcfiles(&cu, &files, n) != 0)
        return NULL;
    return files;
}

static int
add_inline(struct analysis *an, Dwarf_Die *die, struct inl *parent)
{
    struct inl *n;
    Dwarf_Attribute a;
    Dwarf_Word w;
    Dwarf_Files *files;
    size_t nfiles;
    const char *link;
    int rc;

    n = calloc(1, sizeof(*n));
    if (n == NULL)
        return STRUCT_ENOMEM;
    rc = die_ranges(an, die, &n->ranges);
    if (rc != 0 || n->ranges.n == 0) {
        struct_rvec_free(&n->ranges);
        free(n);
        return rc != 0 ? rc : walk_children(an, die, parent); /* no code: splice its children */
    }
    if (parent->last_child != NULL)
        parent->last_child->next_sibling = n;
    else
        parent->first_child = n;
    parent->last_child = n;
    if ((rc = die_names(an, die, &n->name, &link)) != 0 ||
        (rc = die_decl(an, die, &n->file, &n->line)) != 0)
        return rc;
    if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &w) == 0 &&
        (files = die_files(an, die, &nfiles)) != NULL && w < nfiles) {
        const char *cf = dwarf_filesrc(files, w, NULL, NULL);

        n->call_file = intern_dw(an, cf);
        if (cf != NULL && n->call_file == NULL)
            return STRUCT_ENOMEM;
    }
    if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &w) == 0 && w <= UINT32_MAX)
        n->call_line = (uint32_t)w;
    return walk_children(an, die, n);
}

static int
add_dwarf_proc(struct analysis *an, Dwarf_Die *die)
{
    struct struct_rvec r = {0};
    struct cand *c;
    size_t ci;
    int rc;

    rc = die_ranges(an, die, &r);
    if (rc != 0 || r.n == 0) {
        struct_rvec_free(&r);
        return rc != 0 ? rc : walk_children(an, die, NULL);
    }
    c = cand_new(an, SRC_DWARF);
    if (c == NULL) {
        struct_rvec_free(&r);
        return STRUCT_ENOMEM;
    }
    c->raw = r;
    {
        Dwarf_Addr low;
        Dwarf_Attribute a;
        bool nr = false;

        if (dwarf_lowpc(die, &low) == 0 ||
            dwarf_formaddr(dwarf_attr(die, DW_AT_entry_pc, &a), &low) == 0)
            c->entry = low;
        if (dwarf_formflag(dwarf_attr_integrate(die, DW_AT_noreturn, &a), &nr) == 0)
            c->noreturn = nr;
    }
    if ((rc = die_names(an, die, &c->name, &c->link_name)) != 0 ||
        (rc = die_decl(an, die, &c->file, &c->line)) != 0)
        return rc;
    /* Prefer the ELF symbol at an entry as the link name ("foo.constprop.0", C names). */
    for (size_t i = 0; i < r.n; i++) {
        const struct sym *s = sym_at(an, r.v[i].lo);

        if (s != NULL && (c->link_name == NULL || strstr(s->name, ".cold") == NULL)) {
            c->link_name = s->name;
            if (strstr(s->name, ".cold") == NULL)
                break;
        }
    }
    if (c->name == NULL)
        c->name = c->link_name;
    /* walk_children may grow an->cands: refer to the candidate by index. */
    ci = (size_t)(c - an->cands);
    {
        struct inl root = {0};

        rc = walk_children(an, die, &root);
        an->cands[ci].root = root;
    }
    return rc;
}

/* Tags that never contain code-bearing DIEs: skipped without descending. */
static bool
tag_is_leafy(int tag)
{
    switch (tag) {
    case DW_TAG_variable:
    case DW_TAG_formal_parameter:
    case DW_TAG_member:
    case DW_TAG_enumeration_type:
    case DW_TAG_enumerator:
    case DW_TAG_base_type:
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type:
    case DW_TAG_const_type:
    case DW_TAG_volatile_type:
    case DW_TAG_typedef:
    case DW_TAG_array_type:
    case DW_TAG_subrange_type:
    case DW_TAG_subroutine_type:
    case DW_TAG_label:
    case DW_TAG_call_site:
    case DW_TAG_GNU_call_site:
    case DW_TAG_call_site_parameter:
    case DW_TAG_GNU_call_site_parameter:
    case DW_TAG_template_type_parameter:
    case DW_TAG_template_value_parameter:
    case DW_TAG_unspecified_parameters:
    case DW_TAG_imported_declaration:
    case DW_TAG_imported_module:
        return true;
    default:
        return false;
    }
}

static int
walk_children(struct analysis *an, Dwarf_Die *parent, struct inl *scope)
{
    Dwarf_Die child;
    int rc = 0;

    if (dwarf_child(parent, &child) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&child);

        if (tag == DW_TAG_subprogram)
            rc = add_dwarf_proc(an, &child);
        else if (tag == DW_TAG_inlined_subroutine && scope != NULL)
            rc = add_inline(an, &child, scope);
        else if (!tag_is_leafy(tag) && dwarf_haschildren(&child))
            rc = walk_children(an, &child, scope);
        if (rc != 0)
            return rc;
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

static int
line_push(struct analysis *an, uint64_t lo, uint64_t hi, const char *file, uint32_t line)
{
    if (an->nlines == an->caplines) {
        struct line_piece *v =
            struct_vec_reserve(an->lines, &an->caplines, an->nlines + 1, sizeof(*v));

        if (v == NULL)
            return STRUCT_ENOMEM;
        an->lines = v;
    }
    an->lines[an->nlines++] = (struct line_piece){lo, hi, file, line};
    return 0;
}

/*
 * Does .debug_aranges give @addr to another CU than the one being read?
 * Then the row is one of a discarded copy of the code (a COMDAT function
 * whose debug information the linker kept pointing at the kept copy), and
 * the owner's row is the one addr2line reports.  The last arange found is
 * cached: rows come in address order.
 */
static bool
owned_elsewhere(struct analysis *an, uint64_t addr)
{
    Dwarf_Arange *ar;
    Dwarf_Addr start;
    Dwarf_Word len;
    Dwarf_Off off;

    if (an->aranges == NULL)
        return false;
    if (addr < an->ar_lo || addr >= an->ar_hi) {
        ar = dwarf_getarange_addr(an->aranges, addr);
        if (ar == NULL || dwarf_getarangeinfo(ar, &start, &len, &off) != 0)
            return false; /* no arange: trust the line table */
        an->ar_lo = start;
        an->ar_hi = start + len;
        an->ar_cu = off;
    }
    return an->ar_cu != an->cu_off;
}

/*
 * Push the row range [lo, hi) clipped to the code ranges of its CU.  libdw
 * sorts a CU's rows by address and puts an end_sequence row before the
 * other rows at its address (elfutils read_srclines, compare_lines), so a
 * row at the very end of a sequence is followed by the first row of the
 * next sequence, anywhere above it: without the clip that row would claim
 * every address up to there, other CUs' code included.
 */
static int
line_push_clipped(struct analysis *an, uint64_t lo, uint64_t hi, const char *file, uint32_t line)
{
    const struct struct_range *r = an->cu_ranges.v;
    size_t n = an->cu_ranges.n, i;

    if (n == 0)
        return line_push(an, lo, hi, file, line);
    i = csp_range_first_after(r, n, sizeof(*r), lo);
    for (; i < n && r[i].lo < hi; i++) {
        uint64_t a = r[i].lo > lo ? r[i].lo : lo, b = r[i].hi < hi ? r[i].hi : hi;

        if (a < b && !owned_elsewhere(an, a) && line_push(an, a, b, file, line) != 0)
            return STRUCT_ENOMEM;
    }
    return 0;
}

/* Collect the row ranges of one CU's line table; line 0 inherits a neighbour. */
static int
read_cu_lines(struct analysis *an, Dwarf_Die *cudie)
{
    Dwarf_Lines *lines;
    size_t n;
    const char *prev_file = NULL;
    uint32_t prev_line = 0;

    if (dwarf_getsrclines(cudie, &lines, &n) != 0)
        return 0; /* no line table: not an error */
    for (size_t i = 0; i < n; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i), *nx;
        Dwarf_Addr a, b;
        bool endseq = false;
        int ln = 0;
        const char *file;

        if (l == NULL || dwarf_lineendsequence(l, &endseq) != 0 || endseq) {
            prev_file = NULL;
            prev_line = 0;
            continue;
        }
        nx = i + 1 < n ? dwarf_onesrcline(lines, i + 1) : NULL;
        if (nx == NULL || dwarf_lineaddr(l, &a) != 0 || dwarf_lineaddr(nx, &b) != 0)
            continue;
        if (dwarf_lineno(l, &ln) != 0)
            ln = 0;
        file = dwarf_linesrc(l, NULL, NULL);
        {
            /* Several rows at one address: the last one wins, unless it is
             * not a statement boundary and an earlier row is (gcc emits
             * is_stmt=0 rows for hoisted instructions at loop heads). */
            bool st = true;

            if (dwarf_linebeginstatement(l, &st) == 0 && !st)
                for (size_t j = i; j-- > 0;) {
                    Dwarf_Line *x = dwarf_onesrcline(lines, j);
                    Dwarf_Addr xa;
                    bool xs = false, xe = false;
                    int xl = 0;
                    const char *xf;

                    if (x == NULL || dwarf_lineaddr(x, &xa) != 0 || xa != a ||
                        dwarf_lineendsequence(x, &xe) != 0 || xe)
                        break;
                    if (dwarf_linebeginstatement(x, &xs) == 0 && xs && dwarf_lineno(x, &xl) == 0 &&
                        xl > 0 && (xf = dwarf_linesrc(x, NULL, NULL)) != NULL) {
                        ln = xl;
                        file = xf;
                        break;
                    }
                }
        }
        if (ln <= 0 || file == NULL) {
            if (prev_file != NULL) {
                file = prev_file;
                ln = (int)prev_line;
            } else { /* look ahead in the sequence */
                file = NULL;
                for (size_t j = i + 1; j < n; j++) {
                    Dwarf_Line *x = dwarf_onesrcline(lines, j);
                    bool e2 = false;
                    int l2 = 0;

                    if (x == NULL || dwarf_lineendsequence(x, &e2) != 0 || e2)
                        break;
                    if (dwarf_lineno(x, &l2) == 0 && l2 > 0 &&
                        (file = dwarf_linesrc(x, NULL, NULL)) != NULL) {
                        ln = l2;
                        break;
                    }
                }
                if (file == NULL)
                    continue;
            }
        }
        if (file != prev_file || (uint32_t)ln != prev_line) {
            prev_file = intern_dw(an, file);
            if (prev_file == NULL)
                return STRUCT_ENOMEM;
            prev_line = (uint32_t)ln;
        }
        if (a < b && line_push_clipped(an, a, b, prev_file, prev_line) != 0)
            return STRUCT_ENOMEM;
    }
    return 0;
}

static int
read_dwarf(struct analysis *an)
{
    Dwarf_CU *cu = NULL;
    Dwarf_Half version;
    uint8_t unit_type;
    Dwarf_Die cudie, subdie;
    int rc;

    if (dwarf_getaranges(an->dw, &an->aranges, NULL) != 0)
        an->aranges = NULL;
    an->dw_strs = calloc((size_t)2 << STR_CACHE_BITS, sizeof(*an->dw_strs));
    if (an->dw_strs != NULL)
        an->demangled = an->dw_strs + ((size_t)1 << STR_CACHE_BITS);
    while (dwarf_get_units(an->dw, cu, &cu, &version, &unit_type, &cudie, &subdie) == 0) {
        Dwarf_Die *top = &cudie;

        if (unit_type != DW_UT_compile && unit_type != DW_UT_skeleton)
            continue; /* type and partial units carry no code of their own */
        if (unit_type == DW_UT_skeleton && dwarf_tag(&subdie) == DW_TAG_compile_unit)
            top = &subdie;
        an->cu_unit = top->cu;
        an->cu_off = dwarf_dieoffset(&cudie);
        an->cu_files = NULL;
        an->cu_nfiles = 0;
        if (dwarf_getsrcfiles(top, &an->cu_files, &an->cu_nfiles) != 0) {
            an->cu_files = NULL;
            an->cu_nfiles = 0;
        }
        rc = walk_children(an, top, NULL);
        if (rc != 0)
            return rc;
        rc = die_ranges(an, top, &an->cu_ranges);
        if (rc != 0)
            return rc;
        rc = read_cu_lines(an, &cudie);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Does @elf have the build-id @bid (hex)?  True when either has none. */
static bool
same_build_id(Elf *elf, const char *bid)
{
    const void *p;
    ssize_t len = dwelf_elf_gnu_build_id(elf, &p);

    if (len <= 0 || bid[0] == '\0')
        return true;
    if (strlen(bid) != (size_t)len * 2)
        return false;
    for (ssize_t i = 0; i < len; i++) {
        char hex[3];

        snprintf(hex, sizeof(hex), "%02x", ((const unsigned char *)p)[i]);
        if (memcmp(hex, bid + 2 * i, 2) != 0)
            return false;
    }
    return true;
}

/* Try @path as the separate debug file; true when it has DWARF. */
static bool
try_debug_file(struct analysis *an, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    Elf *elf;
    Dwarf *dw;

    if (fd < 0)
        return false;
    elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (elf == NULL || elf_kind(elf) != ELF_K_ELF || !same_build_id(elf, an->m->build_id) ||
        (dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL)) == NULL) {
        if (elf != NULL)
            elf_end(elf);
        close(fd);
        return false;
    }
    an->dbg_fd = fd;
    an->dbg_elf = elf;
    an->dw = dw;
    return true;
}

/*
 * Open DWARF from the binary itself, else from a separate debug file, where
 * gdb and elfutils look for one (debug root $CSPROF_DEBUG_DIR, default
 * /usr/lib/debug):  ROOT/.build-id/xx/yyyy.debug, then the .gnu_debuglink
 * name in the binary's directory, in its .debug/ subdirectory, and under
 * ROOT/<binary's directory>.  No DWARF at all is not an error.
 */
static void
open_dwarf(struct analysis *an)
{
    const char *bid = an->m->build_id, *root = getenv("CSPROF_DEBUG_DIR"), *link, *slash;
    char dbg[2 * PATH_MAX + 64], dir[PATH_MAX];
    GElf_Word crc;

    an->dw = dwarf_begin_elf(an->elf, DWARF_C_READ, NULL);
    if (an->dw != NULL)
        return;
    if (root == NULL || root[0] == '\0')
        root = "/usr/lib/debug";
    if (strlen(bid) >= 4) {
        snprintf(dbg, sizeof(dbg), "%s/.build-id/%.2s/%s.debug", root, bid, bid + 2);
        if (try_debug_file(an, dbg))
            return;
    }
    link = dwelf_elf_gnu_debuglink(an->elf, &crc);
    if (link == NULL || strchr(link, '/') != NULL)
        return;
    slash = strrchr(an->m->root.name, '/'); /* the module path is absolute when realpath worked */
    snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - an->m->root.name) : 1,
             slash ? an->m->root.name : ".");
    snprintf(dbg, sizeof(dbg), "%s/%s", dir, link);
    if (strcmp(dbg, an->m->root.name) != 0 && try_debug_file(an, dbg))
        return;
    snprintf(dbg, sizeof(dbg), "%s/.debug/%s", dir, link);
    if (try_debug_file(an, dbg))
        return;
    snprintf(dbg, sizeof(dbg), "%s%s/%s", root, dir, link);
    (void)try_debug_file(an, dbg);
}

/* ---- claiming addresses ---------------------------------------------- */

struct flat {
    uint64_t lo, hi;
    size_t cand;
};

static int
flat_cmp(const void *pa, const void *pb)
{
    const struct flat *a = pa, *b = pb;

    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi > b->hi ? -1 : 1;
    return a->cand < b->cand ? -1 : a->cand > b->cand;
}

/*
 * Give each candidate of source @src the addresses no earlier candidate
 * (of this or an earlier source) claimed; @claimed grows accordingly.
 * DWARF procedures keep what is left of each range; symbol and FDE
 * procedures are dropped when their start is taken and end where the next
 * claimed range starts.
 */
static int
claim(struct analysis *an, enum cand_source src, struct struct_rvec *claimed)
{
    struct flat *v;
    size_t n = 0, k = 0;
    uint64_t max_end = 0;

    for (size_t i = 0; i < an->ncands; i++)
        if (an->cands[i].src == src)
            n += an->cands[i].raw.n;
    v = malloc((n ? n : 1) * sizeof(*v));
    if (v == NULL)
        return STRUCT_ENOMEM;
    for (size_t i = 0; i < an->ncands; i++)
        if (an->cands[i].src == src)
            for (size_t j = 0; j < an->cands[i].raw.n; j++)
                v[k++] = (struct flat){an->cands[i].raw.v[j].lo, an->cands[i].raw.v[j].hi, i};
    qsort(v, n, sizeof(*v), flat_cmp);
    for (size_t i = 0; i < n; i++) {
        struct cand *c = &an->cands[v[i].cand];
        uint64_t lo = v[i].lo, hi = v[i].hi;

        if (src == SRC_DWARF) {
            if (lo < max_end)
                lo = max_end;
        } else {
            uint64_t next;

            if (lo < max_end || struct_ranges_contain(claimed->v, claimed->n, lo))
                continue;
            next = ranges_next_start(claimed->v, claimed->n, lo);
            if (hi > next)
                hi = next;
        }
        if (lo < hi) {
            if (struct_rvec_push(&c->final, lo, hi) != 0)
                goto nomem;
            if (hi > max_end)
                max_end = hi;
        }
    }
    for (size_t i = 0; i < an->ncands; i++) {
        struct cand *c = &an->cands[i];

        if (c->src != src)
            continue;
        struct_rvec_normalize(&c->final);
        for (size_t j = 0; j < c->final.n; j++)
            if (struct_rvec_push(claimed, c->final.v[j].lo, c->final.v[j].hi) != 0)
                goto nomem;
    }
    struct_rvec_normalize(claimed);
    free(v);
    return 0;
nomem:
    free(v);
    return STRUCT_ENOMEM;
}

/* ---- building the scope tree ----------------------------------------- */

/*
 * Add INLINE scopes for the children of @in under @parent: each clipped to
 * the parent's ranges and to what earlier siblings left, so the tree nests.
 */
static int
add_inline_scopes(struct analysis *an, struct struct_scope *parent, const struct inl *in)
{
    struct struct_rvec used = {0}, tmp = {0}, mine = {0};
    int rc = 0;

    for (const struct inl *c = in->first_child; c != NULL; c = c->next_sibling) {
        struct struct_scope *s;

        if ((rc = struct_ranges_intersect(c->ranges.v, c->ranges.n, parent->ranges, parent->nranges,
                                          &tmp)) != 0 ||
            (rc = struct_ranges_subtract(tmp.v, tmp.n, used.v, used.n, &mine)) != 0)
            goto out;
        if (mine.n == 0)
            continue;
        s = struct_scope_new(an->m, parent, STRUCT_SCOPE_INLINE, mine.v, mine.n);
        if (s == NULL) {
            rc = STRUCT_ENOMEM;
            goto out;
        }
        s->name = c->name;
        s->file = c->file;
        s->line = c->line;
        s->call_file = c->call_file;
        s->call_line = c->call_line;
        for (size_t j = 0; j < mine.n; j++)
            if ((rc = struct_rvec_push(&used, mine.v[j].lo, mine.v[j].hi)) != 0)
                goto out;
        struct_rvec_normalize(&used);
        if ((rc = add_inline_scopes(an, s, c)) != 0)
            goto out;
    }
out:
    struct_rvec_free(&used);
    struct_rvec_free(&tmp);
    struct_rvec_free(&mine);
    return rc;
}

static int
stmt_piece_cmp(const void *pa, const void *pb)
{
    const struct stmt_piece *a = pa, *b = pb;

    if (a->scope != b->scope)
        return (uintptr_t)a->scope < (uintptr_t)b->scope ? -1 : 1;
    if (a->file != b->file)
        return (uintptr_t)a->file < (uintptr_t)b->file ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    return 0;
}

/*
 * Split every line-table range at scope boundaries and create one STMT per
 * (innermost scope, file, line) holding the merged ranges.  Uses the
 * module's lookup index over PROC/INLINE scopes, then drops it.
 */
static int
add_statements(struct analysis *an)
{
    struct struct_module *m = an->m;
    struct stmt_piece *p = NULL;
    size_t np = 0, capp = 0;
    struct struct_rvec rv = {0};
    int rc = 0;

    if (an->nlines == 0)
        return 0;
    if (struct_lookup(m, 0) == NULL && !m->index_built)
        return STRUCT_ENOMEM;
    for (size_t i = 0; i < an->nlines; i++) {
        const struct line_piece *l = &an->lines[i];
        size_t lo = 0, hi = m->nindex;

        while (lo < hi) { /* first index entry ending after l->lo */
            size_t mid = lo + (hi - lo) / 2;

            if (m->index[mid].hi <= l->lo)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t j = lo; j < m->nindex && m->index[j].lo < l->hi; j++) {
            const struct struct_index_entry *e = &m->index[j];

            if (np == capp) {
                struct stmt_piece *v = struct_vec_reserve(p, &capp, np + 1, sizeof(*v));

                if (v == NULL) {
                    rc = STRUCT_ENOMEM;
                    goto out;
                }
                p = v;
            }
            p[np++] =
                (struct stmt_piece){(struct struct_scope *)e->scope, l->file, l->line,
                                    e->lo > l->lo ? e->lo : l->lo, e->hi < l->hi ? e->hi : l->hi};
        }
    }
    if (np > 0)
        qsort(p, np, sizeof(*p), stmt_piece_cmp);
    for (size_t i = 0; i < np;) {
        size_t j = i;
        struct struct_scope *s;

        rv.n = 0;
        for (;
             j < np && p[j].scope == p[i].scope && p[j].file == p[i].file && p[j].line == p[i].line;
             j++)
            if ((rc = struct_rvec_push(&rv, p[j].lo, p[j].hi)) != 0)
                goto out;
        struct_rvec_normalize(&rv);
        s = struct_scope_new(m, p[i].scope, STRUCT_SCOPE_STMT, rv.v, rv.n);
        if (s == NULL) {
            rc = STRUCT_ENOMEM;
            goto out;
        }
        s->file = p[i].file;
        s->line = p[i].line;
        i = j;
    }
out:
    free(m->index);
    m->index = NULL;
    m->nindex = 0;
    m->index_built = false;
    struct_rvec_free(&rv);
    struct_vec_free(p, capp, sizeof(*p));
    return rc;
}

static int
proc_file_cmp(const void *pa, const void *pb)
{
    const struct struct_scope *a = *(const struct struct_scope *const *)pa;
    const struct struct_scope *b = *(const struct struct_scope *const *)pb;

    if (a->file == b->file)
        return 0;
    if (a->file == NULL || b->file == NULL)
        return a->file == NULL ? 1 : -1;
    return strcmp(a->file, b->file);
}

/* Move the PROC scopes (children of the root) under FILE scopes. */
static int
group_by_file(struct analysis *an)
{
    struct struct_module *m = an->m;
    struct struct_scope **v, *c, *f = NULL;
    size_t n = 0, i;

    for (c = m->root.first_child; c != NULL; c = c->next_sibling)
        n++;
    if (n == 0)
        return 0;
    v = malloc(n * sizeof(*v));
    if (v == NULL)
        return STRUCT_ENOMEM;
    for (i = 0, c = m->root.first_child; c != NULL; c = c->next_sibling) {
        v[i++] = c;
        /* Procedures from symbols or FDEs: take the file and line of their entry. */
        if (c->file == NULL && c->nranges > 0) {
            for (struct struct_scope *s = c->first_child; s != NULL; s = s->next_sibling)
                if (s->kind == STRUCT_SCOPE_STMT &&
                    struct_ranges_contain(s->ranges, s->nranges, c->ranges[0].lo)) {
                    c->file = s->file;
                    if (c->line == 0)
                        c->line = s->line;
                    break;
                }
        }
    }
    qsort(v, n, sizeof(*v), proc_file_cmp);
    m->root.first_child = NULL;
    for (i = 0; i < n; i++) {
        if (f == NULL || proc_file_cmp(&v[i], &v[i - 1]) != 0) {
            f = struct_scope_new(m, &m->root, STRUCT_SCOPE_FILE, NULL, 0);
            if (f == NULL) {
                free(v);
                return STRUCT_ENOMEM;
            }
            f->name = v[i]->file != NULL ? v[i]->file : struct_intern(m, STRUCT_UNKNOWN_FILE);
            if (f->name == NULL) {
                free(v);
                return STRUCT_ENOMEM;
            }
        }
        v[i]->parent = f;
        v[i]->next_sibling = f->first_child;
        f->first_child = v[i];
    }
    free(v);
    return 0;
}

/* ---- loops and call sites ---------------------------------------------- */

static int
part_cmp(const void *pa, const void *pb)
{
    const struct struct_image_part *a = pa, *b = pb;

    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static int
entry_cmp(const void *pa, const void *pb)
{
    const struct struct_entry *a = pa, *b = pb;

    return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* Every allocated section with bytes in the file: code and jump tables. */
static int
collect_image(struct analysis *an, struct struct_image_part **out, size_t *nout)
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
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 32;
            struct struct_image_part *nv = realloc(v, ncap * sizeof(*nv));

            if (nv == NULL) {
                free(v);
                return STRUCT_ENOMEM;
            }
            v = nv;
            cap = ncap;
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

/* The decoding environment: image sections and procedure entries; freed with env_free(). */
static int
make_env(struct analysis *an, const struct struct_proc_in *procs, const struct cand **pc,
         size_t nprocs, struct struct_cfg_env *env)
{
    struct struct_image_part *parts = NULL;
    struct struct_entry *entries = NULL;
    size_t nparts = 0, k = 0;
    int rc;

    *env = (struct struct_cfg_env){0};
    if ((rc = collect_image(an, &parts, &nparts)) != 0)
        return rc;
    entries = malloc((nprocs + 1) * sizeof(*entries));
    if (entries == NULL) {
        free(parts);
        return STRUCT_ENOMEM;
    }
    for (size_t i = 0; i < nprocs; i++) {
        const struct struct_scope *s = procs[i].scope;

        entries[i] = (struct struct_entry){procs[i].entry, s->name != NULL ? s->name : s->link_name,
                                           pc[i]->noreturn || struct_name_noreturn(s->link_name) ||
                                               struct_name_noreturn(s->name)};
    }
    if (nprocs > 1)
        qsort(entries, nprocs, sizeof(*entries), entry_cmp);
    for (size_t i = 0; i < nprocs; i++)
        if (k == 0 || entries[k - 1].addr != entries[i].addr)
            entries[k++] = entries[i];
    *env = (struct struct_cfg_env){parts, nparts, entries, k};
    return 0;
}

static void
env_free(struct struct_cfg_env *env)
{
    free((void *)env->parts);
    free((void *)env->entries);
}

/*
 * Create the PROC scopes with their inlined calls and statements, group
 * them by file, and decode them to find loops and call sites.  Decoding
 * starts (in other threads) as soon as the procedures are known, while
 * this thread adds the statements.
 */
static int
build_tree(struct analysis *an)
{
    struct struct_rvec claimed = {0};
    struct struct_proc_in *procs = NULL;
    const struct cand **pcands = NULL;
    struct struct_cfg_env env = {0};
    struct struct_loop_job *job = NULL;
    size_t nprocs = 0;
    int rc;

    if ((rc = claim(an, SRC_DWARF, &claimed)) != 0 || (rc = claim(an, SRC_SYMBOL, &claimed)) != 0 ||
        (rc = claim(an, SRC_FDE, &claimed)) != 0)
        goto out;
    procs = malloc((an->ncands + 1) * sizeof(*procs));
    pcands = malloc((an->ncands + 1) * sizeof(*pcands));
    if (procs == NULL || pcands == NULL) {
        rc = STRUCT_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < an->ncands; i++) {
        struct cand *c = &an->cands[i];
        struct struct_scope *s;

        if (c->final.n == 0)
            continue;
        s = struct_scope_new(an->m, &an->m->root, STRUCT_SCOPE_PROC, c->final.v, c->final.n);
        if (s == NULL) {
            rc = STRUCT_ENOMEM;
            goto out;
        }
        s->name = c->name;
        s->link_name = c->link_name;
        s->file = c->file;
        s->line = c->line;
        if ((rc = add_inline_scopes(an, s, &c->root)) != 0)
            goto out;
        procs[nprocs].scope = s;
        procs[nprocs].entry =
            c->entry != 0 && struct_ranges_contain(s->ranges, s->nranges, c->entry)
                ? c->entry
                : s->ranges[0].lo;
        pcands[nprocs++] = c;
    }
    if ((rc = make_env(an, procs, pcands, nprocs, &env)) != 0 ||
        (rc = struct_recover_loops_start(an->m, procs, nprocs, &env, an->opt, &job)) != 0)
        goto out;
    /* group_by_file reads each procedure's entry statement before loops nest them. */
    if ((rc = add_statements(an)) != 0 || (rc = group_by_file(an)) != 0)
        goto out;
    rc = struct_recover_loops_finish(job, false);
    job = NULL;
    if (rc != 0)
        goto out;
    struct_module_finalize(an->m);
out:
    if (job != NULL)
        (void)struct_recover_loops_finish(job, true);
    env_free(&env);
    free(procs);
    free(pcands);
    struct_rvec_free(&claimed);
    return rc;
}

static void
analysis_free(struct analysis *an)
{
    for (size_t i = 0; i < an->ncands; i++) {
        struct_rvec_free(&an->cands[i].raw);
        struct_rvec_free(&an->cands[i].final);
        inl_free_children(&an->cands[i].root);
    }
    free(an->cands);
    free(an->dw_strs); /* an->demangled shares this block */
    free(an->syms);
    struct_vec_free(an->lines, an->caplines, sizeof(*an->lines));
    struct_rvec_free(&an->text);
    struct_rvec_free(&an->cu_ranges);
    if (an->dw != NULL)
        dwarf_end(an->dw);
    if (an->dbg_elf != NULL)
        elf_end(an->dbg_elf);
    if (an->dbg_fd >= 0)
        close(an->dbg_fd);
    if (an->elf != NULL)
        elf_end(an->elf);
    if (an->fd >= 0)
        close(an->fd);
}

int
struct_analyze(const char *path, const struct struct_options *opt, struct struct_module **out,
               const char **note, char *err, size_t errlen)
{
    static const struct struct_options defaults = {0};
    struct analysis an = {
        .path = path, .opt = opt != NULL ? opt : &defaults, .fd = -1, .dbg_fd = -1};
    char real[PATH_MAX];
    struct stat st;
    int rc;

    *out = NULL;
    if (note != NULL)
        *note = NULL;
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    an.fd = open(path, O_RDONLY | O_CLOEXEC);
    if (an.fd < 0) {
        set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        rc = STRUCT_EIO;
        goto out;
    }
    if (fstat(an.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        set_err(err, errlen, "%s: not a regular file", path);
        rc = STRUCT_EIO;
        goto out;
    }
    elf_version(EV_CURRENT);
    an.elf = elf_begin(an.fd, ELF_C_READ_MMAP, NULL);
    if (an.elf == NULL) {
        set_err(err, errlen, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
        rc = STRUCT_ENOTELF;
        goto out;
    }
    if ((rc = check_elf(&an, st.st_size, err, errlen)) != 0)
        goto out;
    an.m = struct_module_new_large(realpath(path, real) != NULL ? real : path, true);
    if (an.m == NULL) {
        rc = STRUCT_ENOMEM;
        goto out_nomem;
    }
    if ((rc = read_build_id(&an)) != 0 || (rc = collect_text(&an)) != 0 ||
        (rc = read_symbols(&an)) != 0)
        goto out_nomem;
    open_dwarf(&an);
    if (an.dw != NULL && (rc = read_dwarf(&an)) != 0)
        goto out_nomem;
    if ((rc = add_symbol_cands(&an)) != 0 || (rc = add_plt_cands(&an)) != 0 ||
        (rc = add_fde_cands(&an)) != 0 || (rc = build_tree(&an)) != 0)
        goto out_nomem;
    if (note != NULL && an.nlines == 0) {
        if (an.dw != NULL)
            *note = "DWARF without line tables: procedures only, no statements";
        else if (!an.have_symtab)
            *note = "stripped and no DWARF: procedures from .dynsym and .eh_frame only";
        else
            *note = "no DWARF debug information: procedures from the symbol table only";
    }
    *out = an.m;
    an.m = NULL;
    rc = 0;
    goto out;
out_nomem:
    if (rc == STRUCT_ENOMEM)
        set_err(err, errlen, "%s: out of memory", path);
out:
    struct_module_free(an.m);
    analysis_free(&an);
    return rc;
}
