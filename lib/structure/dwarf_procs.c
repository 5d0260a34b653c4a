/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dwarf_procs.c -- procedure candidates from DWARF subprograms with code
 * (name, declaration file/line, all ranges, hot/cold splits included) and
 * their DW_TAG_inlined_subroutine trees, nested to any depth; walks every
 * compilation unit and collects its line rows (dwarf_lines.c).
 * File attributes are resolved in the file table of the DIE's own unit.
 * Tool code only.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "structure/binary_internal.h"

/* Normalized code ranges of @die, restricted to executable sections. */
int
bin_die_ranges(struct analysis *an, Dwarf_Die *die, struct struct_rvec *out)
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
    *link = bin_intern_dw(an, l);
    if (l != NULL && *link == NULL)
        return STRUCT_ENOMEM;
    n = *link != NULL ? bin_demangled(an, *link) : NULL;
    if (n == NULL) {
        const char *dn = die_string(die, DW_AT_name);

        n = bin_intern_dw(an, dn);
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

    *file = bin_intern_dw(an, f);
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

/*
 * Names and declaration of inlined call @die into @n (@link: its linkage
 * name), as die_names() and die_decl() give them.  An inlined call that
 * has none of those attributes itself takes them all from its abstract
 * origin (dwarf_attr_integrate), so they are cached by the origin's offset.
 */
static int
inline_origin(struct analysis *an, Dwarf_Die *die, struct inl *n, const char **link)
{
    static const int own[] = {DW_AT_name, DW_AT_linkage_name, DW_AT_MIPS_linkage_name,
                              DW_AT_decl_file, DW_AT_decl_line};
    struct origin_ent *e = NULL;
    Dwarf_Attribute a;
    Dwarf_Die origin;
    int rc;

    if (an->origins != NULL &&
        dwarf_formref_die(dwarf_attr(die, DW_AT_abstract_origin, &a), &origin) != NULL) {
        Dwarf_Off key = dwarf_dieoffset(&origin) + 1;
        size_t i = 0;

        while (i < sizeof(own) / sizeof(own[0]) && !dwarf_hasattr(die, own[i]))
            i++;
        if (i == sizeof(own) / sizeof(own[0])) {
            e = &an->origins[(key * 0x9e3779b97f4a7c15ULL) >> (64 - ORIGIN_CACHE_BITS)];
            if (e->key == key) {
                n->name = e->name;
                *link = e->link;
                n->file = e->file;
                n->line = e->line;
                return 0;
            }
        }
    }
    if ((rc = die_names(an, die, &n->name, link)) != 0 ||
        (rc = die_decl(an, die, &n->file, &n->line)) != 0)
        return rc;
    if (e != NULL)
        *e = (struct origin_ent){dwarf_dieoffset(&origin) + 1, n->name, *link, n->file, n->line};
    return 0;
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
    rc = bin_die_ranges(an, die, &n->ranges);
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
    if ((rc = inline_origin(an, die, n, &link)) != 0)
        return rc;
    if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &w) == 0 &&
        (files = die_files(an, die, &nfiles)) != NULL && w < nfiles) {
        const char *cf = dwarf_filesrc(files, w, NULL, NULL);

        n->call_file = bin_intern_dw(an, cf);
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

    rc = bin_die_ranges(an, die, &r);
    if (rc != 0 || r.n == 0) {
        struct_rvec_free(&r);
        return rc != 0 ? rc : walk_children(an, die, NULL);
    }
    c = bin_cand_new(an, SRC_DWARF);
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
        const struct sym *s = bin_sym_at(an, r.v[i].lo);

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

int
bin_read_dwarf(struct analysis *an)
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
    an->origins = calloc((size_t)1 << ORIGIN_CACHE_BITS, sizeof(*an->origins));
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
        rc = bin_die_ranges(an, top, &an->cu_ranges);
        if (rc != 0)
            return rc;
        rc = bin_read_cu_lines(an, &cudie);
        if (rc != 0)
            return rc;
    }
    return 0;
}
