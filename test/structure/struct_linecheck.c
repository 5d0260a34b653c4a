/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * struct_linecheck.c -- line-table agreement of a structure file with libdw.
 *
 *   struct_linecheck [-s N] [-S SEED] [-m MIN%] [-q] BINARY STRUCTFILE
 *
 * For every statement entry of STRUCTFILE (one STMT scope range: its first
 * address), ask libdw what addr2line would answer for that address of
 * BINARY: the line-table row covering it in the compilation unit that
 * covers it (dwfl_module_addrdie + dwarf_getsrclines, searched as
 * dwarf_getsrc_die does), with the debug file found by libdwfl's standard
 * lookup (build-id / .gnu_debuglink CRC validated).  An entry agrees when
 * any row at the covering row's address has the entry's file and line
 * ("another row at the same address" counts).  Entries whose rows all have
 * line 0 are counted apart (csprof-struct gives them a neighbour's line by
 * design); entries no row covers are disagreements.  Every disagreement is
 * listed (-q: only the first 20).  -s N checks a random sample of N entries
 * (fixed seed, -S to change it) instead of all.  Exit 0 when the agreement
 * is at least MIN% (default 99.5), 1 below it, 2 on a usage or input error,
 * 77 when there is nothing to check (no entries).  Test tool only.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "structure/structure.h"

struct entry {
    uint64_t addr;
    const char *file;
    uint32_t line;
};

struct entries {
    struct entry *v;
    size_t n, cap;
};

static int
push(struct entries *e, uint64_t addr, const char *file, uint32_t line)
{
    if (e->n == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 1024;
        struct entry *v = realloc(e->v, cap * sizeof(*v));

        if (v == NULL)
            return -1;
        e->v = v;
        e->cap = cap;
    }
    e->v[e->n++] = (struct entry){addr, file, line};
    return 0;
}

static int
collect(const struct struct_scope *s, struct entries *e)
{
    if (s->kind == STRUCT_SCOPE_STMT && s->file != NULL)
        for (size_t i = 0; i < s->nranges; i++)
            if (push(e, s->ranges[i].lo, s->file, s->line) != 0)
                return -1;
    for (const struct struct_scope *c = s->first_child; c != NULL; c = c->next_sibling)
        if (collect(c, e) != 0)
            return -1;
    return 0;
}

/* xorshift64*: a fixed, portable sequence for sampling. */
static uint64_t
next_rand(uint64_t *state)
{
    uint64_t x = *state;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

enum verdict { AGREE, LINE0, NOROW, DIFFER };

/* A CU's code range, for modules without .debug_aranges (clang writes none). */
struct cu_range {
    uint64_t lo, hi;
    Dwarf_Die cu;
};

static struct cu_range *cu_ranges;
static size_t ncu_ranges;

static int
cu_range_cmp(const void *pa, const void *pb)
{
    const struct cu_range *a = pa, *b = pb;

    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Index every CU's ranges (DW_AT_ranges / low_pc-high_pc). */
static int
index_cus(Dwarf *dw)
{
    Dwarf_CU *cu = NULL;
    Dwarf_Die cudie, sub;
    Dwarf_Half v;
    uint8_t ut;
    size_t cap = 0;

    while (dwarf_get_units(dw, cu, &cu, &v, &ut, &cudie, &sub) == 0) {
        Dwarf_Addr base, start, end;
        ptrdiff_t off = 0;

        while ((off = dwarf_ranges(&cudie, off, &base, &start, &end)) > 0) {
            if (start >= end)
                continue;
            if (ncu_ranges == cap) {
                struct cu_range *nv;

                cap = cap ? cap * 2 : 256;
                nv = realloc(cu_ranges, cap * sizeof(*nv));
                if (nv == NULL)
                    return -1;
                cu_ranges = nv;
            }
            cu_ranges[ncu_ranges++] = (struct cu_range){start, end, cudie};
        }
    }
    qsort(cu_ranges, ncu_ranges, sizeof(*cu_ranges), cu_range_cmp);
    return 0;
}

/* The CU covering @addr: libdwfl's (aranges) answer, else the CU ranges'. */
static Dwarf_Die *
cu_of(Dwfl_Module *mod, Dwarf_Addr bias, uint64_t addr)
{
    Dwarf_Addr b2;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, addr + bias, &b2);
    size_t lo = 0, hi = ncu_ranges;

    if (cu != NULL)
        return cu;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (cu_ranges[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;) /* ranges may nest: a few steps back at most */
        if (cu_ranges[i].lo <= addr && addr < cu_ranges[i].hi)
            return &cu_ranges[i].cu;
    return NULL;
}

/* The rows libdw gives for @addr (as dwarf_getsrc_die), compared with @e. */
static enum verdict
judge(Dwfl_Module *mod, Dwarf_Addr bias, const struct entry *e, char *why, size_t whylen)
{
    Dwarf_Die *cu = cu_of(mod, bias, e->addr);
    Dwarf_Lines *lines;
    size_t n, lo, hi;
    Dwarf_Addr at;
    bool any_line = false;

    if (cu == NULL || dwarf_getsrclines(cu, &lines, &n) != 0 || n == 0) {
        snprintf(why, whylen, "no compilation unit with lines covers it");
        return NOROW;
    }
    lo = 0;
    hi = n;
    while (lo < hi) { /* first row past e->addr */
        size_t mid = lo + (hi - lo) / 2;
        Dwarf_Addr a = 0;

        dwarf_lineaddr(dwarf_onesrcline(lines, mid), &a);
        if (a <= e->addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) {
        snprintf(why, whylen, "before the first row of its unit");
        return NOROW;
    }
    {
        Dwarf_Line *l = dwarf_onesrcline(lines, lo - 1);
        bool end = false;

        dwarf_lineaddr(l, &at);
        if (dwarf_lineendsequence(l, &end) == 0 && end) {
            snprintf(why, whylen, "outside every sequence of its unit");
            return NOROW;
        }
    }
    why[0] = '\0';
    for (size_t i = lo; i-- > 0;) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        Dwarf_Addr a = 0;
        bool end = false;
        int ln = 0;
        const char *f;

        if (dwarf_lineaddr(l, &a) != 0 || a != at || (dwarf_lineendsequence(l, &end) == 0 && end))
            break;
        if (dwarf_lineno(l, &ln) != 0 || ln <= 0)
            continue;
        any_line = true;
        f = dwarf_linesrc(l, NULL, NULL);
        if (f != NULL && (uint32_t)ln == e->line && strcmp(f, e->file) == 0)
            return AGREE;
        if (why[0] == '\0')
            snprintf(why, whylen, "libdw: %s:%d", f != NULL ? f : "??", ln);
    }
    return any_line ? DIFFER : LINE0;
}

int
main(int argc, char **argv)
{
    static char *debuginfo_path = NULL;
    static const Dwfl_Callbacks cb = {
        .find_elf = dwfl_build_id_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .section_address = dwfl_offline_section_address,
        .debuginfo_path = &debuginfo_path,
    };
    struct struct_module **mods = NULL;
    struct entries e = {0};
    size_t nmods = 0, sample = 0, counts[4] = {0}, listed = 0, checked;
    uint64_t seed = 20261123;
    double min = 99.5, pct;
    bool quiet = false;
    char err[512];
    Dwfl *dwfl;
    Dwfl_Module *mod;
    Dwarf_Addr bias = 0;
    Dwarf *dw;
    int opt;

    while ((opt = getopt(argc, argv, "s:S:m:q")) != -1) {
        switch (opt) {
        case 's':
            sample = strtoul(optarg, NULL, 10);
            break;
        case 'S':
            seed = strtoull(optarg, NULL, 10);
            break;
        case 'm':
            min = strtod(optarg, NULL);
            break;
        case 'q':
            quiet = true;
            break;
        default:
            return 2;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "usage: struct_linecheck [-s N] [-S SEED] [-m MIN%%] [-q] BINARY STRUCT\n");
        return 2;
    }
    if (struct_read_xml(argv[optind + 1], &mods, &nmods, err, sizeof(err)) != 0) {
        fprintf(stderr, "struct_linecheck: %s\n", err);
        return 2;
    }
    for (size_t i = 0; i < nmods; i++)
        if (collect(struct_module_root(mods[i]), &e) != 0) {
            fprintf(stderr, "struct_linecheck: out of memory\n");
            return 2;
        }
    if (e.n == 0) {
        printf("SKIP: %s: no statement entries\n", argv[optind + 1]);
        return 77;
    }
    dwfl = dwfl_begin(&cb);
    if (dwfl == NULL || (mod = dwfl_report_offline(dwfl, "", argv[optind], -1)) == NULL ||
        dwfl_report_end(dwfl, NULL, NULL) != 0 || (dw = dwfl_module_getdwarf(mod, &bias)) == NULL) {
        fprintf(stderr, "struct_linecheck: %s: no DWARF found by libdwfl: %s\n", argv[optind],
                dwfl_errmsg(-1));
        return 2;
    }
    if (index_cus(dw) != 0) {
        fprintf(stderr, "struct_linecheck: out of memory\n");
        return 2;
    }
    if (sample > 0 && sample < e.n) {
        uint64_t st = seed ? seed : 1;

        for (size_t i = 0; i < sample; i++) { /* partial Fisher-Yates */
            size_t j = i + (size_t)(next_rand(&st) % (e.n - i));
            struct entry t = e.v[i];

            e.v[i] = e.v[j];
            e.v[j] = t;
        }
        e.n = sample;
    }
    for (size_t i = 0; i < e.n; i++) {
        char why[600];
        enum verdict v = judge(mod, bias, &e.v[i], why, sizeof(why));

        counts[v]++;
        if ((v == DIFFER || v == NOROW) && (!quiet || listed < 20)) {
            printf("differs: 0x%" PRIx64 " %s:%u; %s\n", e.v[i].addr, e.v[i].file, e.v[i].line,
                   why);
            listed++;
        }
    }
    checked = counts[AGREE] + counts[DIFFER] + counts[NOROW];
    pct = checked > 0 ? 100.0 * (double)counts[AGREE] / (double)checked : 100.0;
    printf("%s: %zu statement entries checked%s: %zu agree, %zu differ, %zu not covered by the "
           "line table, %zu on line-0 rows (not counted): %.2f%% agreement (minimum %.2f%%)\n",
           argv[optind], e.n, sample > 0 ? " (random sample)" : "", counts[AGREE], counts[DIFFER],
           counts[NOROW], counts[LINE0], pct, min);
    dwfl_end(dwfl);
    for (size_t i = 0; i < nmods; i++)
        struct_module_free(mods[i]);
    free(mods);
    free(e.v);
    free(cu_ranges);
    return pct >= min ? 0 : 1;
}
