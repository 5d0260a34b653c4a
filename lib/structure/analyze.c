/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * analyze.c -- struct_analyze(): recover the program structure of an
 * x86-64 ELF binary with elfutils libelf/libdw (bloop-style, [HPCView] §3).
 *
 * The steps, each in its own file (binary_internal.h lists them):
 * procedures come from three sources, in order of trust:
 *   1. DWARF subprograms with code, with their inlined-subroutine trees
 *      (dwarf_procs.c);
 *   2. ELF function symbols (.symtab, else .dynsym) and PLT stubs for code
 *      no DWARF subprogram covers (symbols.c, plt.c);
 *   3. .eh_frame FDE ranges for code no symbol covers (ehframe.c), named
 *      "<module basename>+0xOFFSET".
 * Each source only claims addresses the sources before it left free
 * (claim.c).  Statements come from the DWARF line table (dwarf_lines.c);
 * build.c turns all of it into scopes, groups procedures into FILE scopes
 * by declaration file (else the line table's file at their entry, else
 * "<unknown file>") and recovers loops and call sites.  DWARF is read
 * from the binary, else from a separate debug file (debuginfo.c).  The
 * module is named by the binary's canonical path (realpath), as the
 * kernel shows mappings.
 *
 * Addresses are ELF virtual addresses as in the file (module-relative for
 * PIE and shared libraries).  Tool code only; never runs in a profiled
 * process.  Reports errors through @err, never prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "structure/binary_internal.h"
#include "support/vec.h"

const char *const bin_notes[BIN_NOTES] = {
    [BIN_NOTE_NO_LINES] = "DWARF without line tables: procedures only, no statements",
    [BIN_NOTE_STRIPPED] = "stripped and no DWARF: procedures from .dynsym and .eh_frame only",
    [BIN_NOTE_NO_DWARF] = "no DWARF debug information: procedures from the symbol table only",
};

void
bin_set_err(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    if (err == NULL || errlen == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

struct cand *
bin_cand_new(struct analysis *an, enum cand_source src)
{
    if (csp_vec_reserve(&an->cands, &an->capcands, an->ncands + 1, sizeof(*an->cands)) != 0)
        return NULL;
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

/*
 * Close the DWARF data of @an (libdw's handle, or the separate debug file
 * with it), which holds every unit's line table and abbreviations:
 * nothing reads it after bin_read_dwarf().
 */
static void
release_dwarf(struct analysis *an)
{
    if (an->dw != NULL && an->dw_own)
        dwarf_end(an->dw);
    if (an->dwfl != NULL)
        dwfl_end(an->dwfl);
    an->dw = NULL;
    an->dwfl = NULL;
    an->aranges = NULL; /* libdw's */
    an->cu_files = NULL;
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
    free(an->origins);
    free(an->syms);
    struct_vec_free(an->lines, an->caplines, sizeof(*an->lines));
    struct_rvec_free(&an->text);
    struct_rvec_free(&an->cu_ranges);
    release_dwarf(an);
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
    struct analysis an = {.path = path, .opt = opt != NULL ? opt : &defaults, .fd = -1};
    char real[PATH_MAX];
    struct stat st;
    bool had_dwarf;
    int rc;

    *out = NULL;
    if (note != NULL)
        *note = NULL;
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    an.fd = open(path, O_RDONLY | O_CLOEXEC);
    if (an.fd < 0) {
        bin_set_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        rc = STRUCT_EIO;
        goto out;
    }
    if (fstat(an.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        bin_set_err(err, errlen, "%s: not a regular file", path);
        rc = STRUCT_EIO;
        goto out;
    }
    elf_version(EV_CURRENT);
    an.elf = elf_begin(an.fd, ELF_C_READ_MMAP, NULL);
    if (an.elf == NULL) {
        bin_set_err(err, errlen, "%s: not an ELF file (%s)", path, elf_errmsg(-1));
        rc = STRUCT_ENOTELF;
        goto out;
    }
    if ((rc = bin_check_elf(&an, st.st_size, err, errlen)) != 0)
        goto out;
    an.m = struct_module_new_large(realpath(path, real) != NULL ? real : path, true);
    if (an.m == NULL) {
        rc = STRUCT_ENOMEM;
        goto out_nomem;
    }
    if ((rc = bin_read_build_id(&an)) != 0 || (rc = bin_collect_text(&an)) != 0 ||
        (rc = bin_read_symbols(&an)) != 0)
        goto out_nomem;
    bin_open_dwarf(&an);
    had_dwarf = an.dw != NULL;
    if (an.dw != NULL && (rc = bin_read_dwarf(&an)) != 0)
        goto out_nomem;
    release_dwarf(&an); /* all read: its memory goes to the scopes */
    if ((rc = bin_add_symbol_cands(&an)) != 0 || (rc = bin_add_plt_cands(&an)) != 0 ||
        (rc = bin_add_fde_cands(&an)) != 0 || (rc = struct_build_tree(&an)) != 0)
        goto out_nomem;
    if (note != NULL && an.nlines == 0) {
        if (had_dwarf)
            *note = bin_notes[BIN_NOTE_NO_LINES];
        else if (!an.have_symtab)
            *note = bin_notes[BIN_NOTE_STRIPPED];
        else
            *note = bin_notes[BIN_NOTE_NO_DWARF];
    }
    *out = an.m;
    an.m = NULL;
    rc = 0;
    goto out;
out_nomem:
    if (rc == STRUCT_ENOMEM)
        bin_set_err(err, errlen, "%s: out of memory", path);
out:
    struct_module_free(an.m);
    analysis_free(&an);
    return rc;
}
