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
 * 77 when there is nothing to check (no entries).
 *
 *   struct_linecheck -P N [-S SEED] BINARY STRUCTFILE
 *   struct_linecheck -B A2L [-m MIN%] [-q] BINARY STRUCTFILE
 *
 * The comparison with binutils' addr2line (BFD's DWARF reader, independent
 * of libdw).  -P prints N addresses, one a line in hex: N/2 statement
 * entries and N/2 addresses drawn uniformly over the bytes statements cover
 * (fixed seed).  -B reads A2L, the output of "addr2line -i -e BINARY -a
 * ADDR..." for such addresses, and compares each answer (file base name and
 * line) with the statement struct_lookup() finds at the address in
 * STRUCTFILE, and the call sites -i adds (one per inlined frame, innermost
 * first) with those of the INLINE scopes around that statement.
 * One difference is by design and counted apart: at an address with several
 * rows, BFD keeps only the last (binutils dwarf2.c, add_line_info), while
 * csprof-struct takes the nearest earlier is_stmt row when the last row is
 * not a statement boundary (lib/structure/dwarf_lines.c); such an answer is
 * accepted only when libdw's rows at the address show exactly that: the
 * addr2line answer is the last row, it has is_stmt false, and the statement
 * is the nearest is_stmt row before it.  Answers of line 0 ("??:0", "FILE:0")
 * are counted apart (csprof-struct gives such code a neighbour's line).
 * Every other answer must agree, at the -m rate, and so must the inlined
 * calls; differences are listed (-q: the first 20).
 * Test tool only.
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
    uint64_t addr, hi; /* one statement range [addr, hi) */
    const char *file;
    uint32_t line;
};

struct entries {
    struct entry *v;
    size_t n, cap;
};

static int
push(struct entries *e, uint64_t addr, uint64_t hi, const char *file, uint32_t line)
{
    if (e->n == e->cap) {
        size_t cap = e->cap ? e->cap * 2 : 1024;
        struct entry *v = realloc(e->v, cap * sizeof(*v));

        if (v == NULL)
            return -1;
        e->v = v;
        e->cap = cap;
    }
    e->v[e->n++] = (struct entry){addr, hi, file, line};
    return 0;
}

static int
collect(const struct struct_scope *s, struct entries *e)
{
    if (s->kind == CSP_SCOPE_STMT && s->file != NULL)
        for (size_t i = 0; i < s->nranges; i++)
            if (push(e, s->ranges[i].lo, s->ranges[i].hi, s->file, s->line) != 0)
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

/*
 * The rows libdw has at the address of the row covering @addr, as
 * dwarf_getsrc_die finds it: rows *first .. *last of *lines (*last is the
 * covering row).  NOROW with the reason in @why when no row covers @addr,
 * else AGREE.
 */
static enum verdict
covering_rows(Dwfl_Module *mod, Dwarf_Addr bias, uint64_t addr, Dwarf_Lines **lines, size_t *first,
              size_t *last, char *why, size_t whylen)
{
    Dwarf_Die *cu = cu_of(mod, bias, addr);
    size_t n, lo, hi;
    Dwarf_Addr at;

    if (cu == NULL || dwarf_getsrclines(cu, lines, &n) != 0 || n == 0) {
        snprintf(why, whylen, "no compilation unit with lines covers it");
        return NOROW;
    }
    lo = 0;
    hi = n;
    while (lo < hi) { /* first row past addr */
        size_t mid = lo + (hi - lo) / 2;
        Dwarf_Addr a = 0;

        dwarf_lineaddr(dwarf_onesrcline(*lines, mid), &a);
        if (a <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) {
        snprintf(why, whylen, "before the first row of its unit");
        return NOROW;
    }
    {
        Dwarf_Line *l = dwarf_onesrcline(*lines, lo - 1);
        bool end = false;

        dwarf_lineaddr(l, &at);
        if (dwarf_lineendsequence(l, &end) == 0 && end) {
            snprintf(why, whylen, "outside every sequence of its unit");
            return NOROW;
        }
    }
    *last = *first = lo - 1;
    while (*first > 0) {
        Dwarf_Line *l = dwarf_onesrcline(*lines, *first - 1);
        Dwarf_Addr a = 0;
        bool end = false;

        if (dwarf_lineaddr(l, &a) != 0 || a != at || (dwarf_lineendsequence(l, &end) == 0 && end))
            break;
        (*first)--;
    }
    why[0] = '\0';
    return AGREE;
}

/* The rows libdw gives for @addr (as dwarf_getsrc_die), compared with @e. */
static enum verdict
judge(Dwfl_Module *mod, Dwarf_Addr bias, const struct entry *e, char *why, size_t whylen)
{
    Dwarf_Lines *lines;
    size_t first, last;
    bool any_line = false;
    enum verdict v = covering_rows(mod, bias, e->addr, &lines, &first, &last, why, whylen);

    if (v != AGREE)
        return v;
    for (size_t i = last + 1; i-- > first;) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        int ln = 0;
        const char *f;

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

/* ---- the comparison with addr2line (-P, -B) ------------------------------ */

/* -P: @n addresses to stdout, half statement entries, half statement bytes. */
static int
print_sample(struct entries *e, size_t n, uint64_t seed)
{
    uint64_t st = seed ? seed : 1, total = 0;
    uint64_t *cum = malloc(e->n * sizeof(*cum));
    size_t nent = n / 2 < e->n ? n / 2 : e->n;

    if (cum == NULL)
        return 2;
    for (size_t i = 0; i < e->n; i++)
        cum[i] = total += e->v[i].hi - e->v[i].addr;
    for (size_t k = nent; k < n && total > 0; k++) { /* uniform over the bytes */
        uint64_t x = next_rand(&st) % total;
        size_t lo = 0, hi = e->n;

        while (lo < hi) { /* first range whose cumulative end is past x */
            size_t mid = lo + (hi - lo) / 2;

            if (cum[mid] <= x)
                lo = mid + 1;
            else
                hi = mid;
        }
        printf("0x%" PRIx64 "\n", e->v[lo].hi - (cum[lo] - x));
    }
    for (size_t i = 0; i < nent; i++) { /* partial Fisher-Yates over the entries */
        size_t j = i + (size_t)(next_rand(&st) % (e->n - i));
        struct entry t = e->v[i];

        e->v[i] = e->v[j];
        e->v[j] = t;
        printf("0x%" PRIx64 "\n", e->v[i].addr);
    }
    free(cum);
    return 0;
}

static const char *
base_name(const char *path)
{
    const char *s = strrchr(path, '/');

    return s != NULL ? s + 1 : path;
}

/*
 * One answer line of addr2line, "FILE:LINE" with maybe " (discriminator N)":
 * the base name of FILE into @base (cut at @len) and LINE.  LINE is 0 for
 * "??:0", "??:?" and "FILE:0".
 */
static void
parse_answer(const char *text, char *base, size_t len, uint32_t *line)
{
    const char *colon = strrchr(text, ':'), *b;
    size_t n;

    *line = 0;
    base[0] = '\0';
    if (colon == NULL)
        return;
    for (b = colon; b > text && b[-1] != '/'; b--)
        ;
    n = (size_t)(colon - b) < len - 1 ? (size_t)(colon - b) : len - 1;
    memcpy(base, b, n);
    base[n] = '\0';
    *line = (uint32_t)strtoul(colon + 1, NULL, 10);
}

/*
 * Does addr2line's answer @base:@line name row @l as BFD reads it?  By the
 * row's own file, or (*file0 set) for a row of file 1 by the unit's file 0:
 * BFD (binutils 2.40, dwarf2.c decode_line_info) starts each DWARF 5
 * sequence at file 0, where DWARF 5 (6.2.2) starts it at file 1.  gcc
 * usually repeats file 0 as file 1, so this shows only in tables that do not
 * (Debian's libc6-dbg: file 1 is an #included .c file).
 */
static bool
names_row(Dwarf_Line *l, const char *base, uint32_t line, bool *file0)
{
    Dwarf_Files *files;
    size_t idx;
    int ln = 0;
    const char *f = dwarf_linesrc(l, NULL, NULL), *f0;

    *file0 = false;
    if (dwarf_lineno(l, &ln) != 0 || (uint32_t)ln != line || f == NULL)
        return false;
    if (strcmp(base_name(f), base) == 0)
        return true;
    if (dwarf_line_file(l, &files, &idx) == 0 && idx == 1 &&
        (f0 = dwarf_filesrc(files, 0, NULL, NULL)) != NULL && strcmp(base_name(f0), base) == 0) {
        *file0 = true;
        return true;
    }
    return false;
}

/*
 * The row csprof-struct takes among rows @first .. @last at one address
 * (lib/structure/dwarf_lines.c): the last, unless it is not a statement
 * boundary and an earlier row with a line is; then the nearest such row.
 */
static size_t
csprof_row(Dwarf_Lines *lines, size_t first, size_t last)
{
    bool st = true;

    if (dwarf_linebeginstatement(dwarf_onesrcline(lines, last), &st) != 0 || st)
        return last;
    for (size_t i = last; i-- > first;) {
        Dwarf_Line *x = dwarf_onesrcline(lines, i);
        bool xs = false;
        int xl = 0;

        if (dwarf_linebeginstatement(x, &xs) == 0 && xs && dwarf_lineno(x, &xl) == 0 && xl > 0 &&
            dwarf_linesrc(x, NULL, NULL) != NULL)
            return i;
    }
    return last;
}

/* Is @stmt's file and line those of row @l? */
static bool
is_row(const struct struct_scope *stmt, Dwarf_Line *l)
{
    int ln = 0;
    const char *f = dwarf_linesrc(l, NULL, NULL);

    return f != NULL && dwarf_lineno(l, &ln) == 0 && (uint32_t)ln == stmt->line &&
           strcmp(f, stmt->file) == 0;
}

/* "FILE:LINE" of each row at the covering address, for a difference's report. */
static void
rows_text(Dwarf_Lines *lines, size_t first, size_t last, char *out, size_t len)
{
    size_t used = 0;

    out[0] = '\0';
    for (size_t i = first; i <= last && used + 1 < len; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        bool st = false;
        int ln = 0;
        const char *f = dwarf_linesrc(l, NULL, NULL);
        int k;

        dwarf_lineno(l, &ln);
        dwarf_linebeginstatement(l, &st);
        k = snprintf(out + used, len - used, "%s%s:%d%s", i > first ? " " : "",
                     f != NULL ? base_name(f) : "??", ln, st ? "" : "(not is_stmt)");
        if (k < 0)
            break;
        used += (size_t)k;
    }
}

/*
 * The call sites of the inlined calls around @s (INLINE scopes, innermost
 * first) against addr2line -i's further answers @a2l[0 .. na) (the call
 * site of each inlined frame, innermost first): base name and line.
 */
static bool
chain_agrees(const struct struct_scope *s, char **a2l, size_t na, char *why, size_t len)
{
    char base[512];
    uint32_t line;
    size_t k = 0;

    for (const struct struct_scope *q = s; q != NULL; q = q->parent) {
        if (q->kind != CSP_SCOPE_INLINE)
            continue;
        if (k == na) {
            snprintf(why, len, "csprof-struct has one more inlined call, of %s at %s:%u",
                     q->name ? q->name : "?", q->call_file ? q->call_file : "?", q->call_line);
            return false;
        }
        parse_answer(a2l[k], base, sizeof(base), &line);
        if (q->call_file == NULL || q->call_line != line ||
            strcmp(base_name(q->call_file), base) != 0) {
            snprintf(why, len, "inlined call %zu of %s at %s:%u, addr2line %s", k + 1,
                     q->name ? q->name : "?", q->call_file ? q->call_file : "?", q->call_line,
                     a2l[k]);
            return false;
        }
        k++;
    }
    if (k != na) {
        snprintf(why, len, "addr2line has one more inlined call, at %s", a2l[k]);
        return false;
    }
    return true;
}

enum a2l_verdict { A2L_AGREE, A2L_ROW_CHOICE, A2L_FILE0, A2L_LINE0, A2L_DIFFER, A2L_NKINDS };

/* One line of @f without its newline, malloc'd; NULL at the end. */
static char *
read_line(FILE *f)
{
    char *l = NULL;
    size_t cap = 0;
    ssize_t len = getline(&l, &cap, f);

    if (len < 0) {
        free(l);
        return NULL;
    }
    l[strcspn(l, "\n")] = '\0';
    return l;
}

/*
 * -B: compare the answers in @path (addr2line -a output for BINARY) with
 * the statements of @m.  Exit status as main's.
 */
static int
check_addr2line(const char *path, const char *binary, const struct struct_module *m,
                Dwfl_Module *mod, Dwarf_Addr bias, double min, bool quiet)
{
    FILE *f = fopen(path, "r");
    char **text = NULL, *buf, base[512], why[600], rows[1024];
    size_t counts[A2L_NKINDS] = {0}, entries[A2L_NKINDS] = {0}, listed = 0, n = 0, nentries = 0;
    size_t checked, ntext = 0, captext = 0, chains = 0, chain_ok = 0, nested = 0;
    double pct, chain_pct;

    if (f == NULL) {
        fprintf(stderr, "struct_linecheck: %s: %s\n", path, strerror(errno));
        return 2;
    }
    for (char *l = NULL; (l = read_line(f)) != NULL;) { /* every line, for the lookahead */
        if (ntext == captext) {
            char **nt = realloc(text, (captext = captext ? captext * 2 : 1024) * sizeof(*nt));

            if (nt == NULL) {
                fprintf(stderr, "struct_linecheck: out of memory\n");
                return 2;
            }
            text = nt;
        }
        text[ntext++] = l;
    }
    fclose(f);
    for (size_t t = 0; t < ntext; t++) {
        uint64_t addr;
        uint32_t line;
        const struct struct_scope *s;
        enum a2l_verdict v = A2L_DIFFER;
        bool entry = false, file0 = false;
        Dwarf_Lines *lines = NULL;
        size_t first = 0, last = 0, ncalls = 0;

        if (strncmp(text[t], "0x", 2) != 0)
            continue;
        addr = strtoull(text[t], NULL, 16);
        if (t + 1 == ntext || strncmp(text[t + 1], "0x", 2) == 0) {
            fprintf(stderr, "struct_linecheck: %s: no answer for 0x%" PRIx64 "\n", path, addr);
            return 2;
        }
        buf = text[++t];
        while (t + 1 + ncalls < ntext && strncmp(text[t + 1 + ncalls], "0x", 2) != 0)
            ncalls++; /* -i: the call sites of the inlined frames */
        n++;
        parse_answer(buf, base, sizeof(base), &line);
        s = struct_lookup(m, addr);
        if (s != NULL && s->kind == CSP_SCOPE_STMT)
            for (size_t i = 0; i < s->nranges; i++)
                entry |= s->ranges[i].lo == addr;
        if (s != NULL && s->kind == CSP_SCOPE_STMT && line != 0 && base[0] != '?') {
            chains++;
            nested += ncalls > 0;
            if (chain_agrees(s, text + t + 1, ncalls, why, sizeof(why)))
                chain_ok++;
            else if (!quiet || listed < 20) {
                printf("inlined calls differ: 0x%" PRIx64 ": %s\n", addr, why);
                listed++;
            }
        }
        t += ncalls;
        if (line == 0 || base[0] == '?')
            v = A2L_LINE0;
        else if (s == NULL || s->kind != CSP_SCOPE_STMT || s->file == NULL)
            v = A2L_DIFFER;
        else if (s->line == line && strcmp(base_name(s->file), base) == 0)
            v = A2L_AGREE;
        else if (covering_rows(mod, bias, addr, &lines, &first, &last, why, sizeof(why)) == AGREE &&
                 names_row(dwarf_onesrcline(lines, last), base, line, &file0)) {
            size_t r = csprof_row(lines, first, last);

            /* addr2line answered BFD's row, the last; the statement is csprof-struct's row */
            if (is_row(s, dwarf_onesrcline(lines, r)))
                v = r != last ? A2L_ROW_CHOICE : file0 ? A2L_FILE0 : A2L_AGREE;
        }
        counts[v]++;
        entries[v] += entry;
        nentries += entry;
        if (v == A2L_DIFFER && (!quiet || listed < 20)) {
            rows[0] = '\0';
            if (lines != NULL ||
                covering_rows(mod, bias, addr, &lines, &first, &last, why, sizeof(why)) == AGREE)
                rows_text(lines, first, last, rows, sizeof(rows));
            printf("differs: 0x%" PRIx64 "%s: csprof-struct %s:%u; addr2line %s; libdw rows at "
                   "its address: %s\n",
                   addr, entry ? " (statement entry)" : "",
                   s != NULL && s->kind == CSP_SCOPE_STMT && s->file ? s->file : "no statement",
                   s != NULL && s->kind == CSP_SCOPE_STMT ? s->line : 0, buf, rows[0] ? rows : why);
            listed++;
        }
    }
    for (size_t t = 0; t < ntext; t++)
        free(text[t]);
    free(text);
    if (n == 0) {
        fprintf(stderr, "struct_linecheck: %s: no addr2line answers\n", path);
        return 2;
    }
    checked = n - counts[A2L_LINE0];
    if (checked * 2 < n) { /* not a comparison: addr2line found no line table */
        fprintf(stderr,
                "struct_linecheck: %s: addr2line answered line 0 for %zu of %zu addresses\n", path,
                counts[A2L_LINE0], n);
        return 1;
    }
    pct = checked > 0
              ? 100.0 * (double)(counts[A2L_AGREE] + counts[A2L_ROW_CHOICE] + counts[A2L_FILE0]) /
                    (double)checked
              : 100.0;
    printf("%s: %zu addresses (%zu statement entries) against addr2line: %zu agree; %zu differ "
           "by design, several rows at one address whose last is not is_stmt (%zu entries); %zu "
           "differ by BFD's file 0 for file 1 (%zu entries); %zu line-0 answers (not counted); "
           "%zu differ (%zu entries): %.2f%% agreement (minimum %.2f%%)\n",
           binary, n, nentries, counts[A2L_AGREE], counts[A2L_ROW_CHOICE], entries[A2L_ROW_CHOICE],
           counts[A2L_FILE0], entries[A2L_FILE0], counts[A2L_LINE0], counts[A2L_DIFFER],
           entries[A2L_DIFFER], pct, min);
    chain_pct = chains > 0 ? 100.0 * (double)chain_ok / (double)chains : 100.0;
    printf("%s: inlined calls (addr2line -i) at %zu addresses with a statement, %zu of them in "
           "inlined code: %zu agree, %zu differ: %.2f%% agreement (minimum %.2f%%)\n",
           binary, chains, nested, chain_ok, chains - chain_ok, chain_pct, min);
    if (chain_pct < min)
        return 1;
    return pct >= min ? 0 : 1;
}

/* What main's options ask for. */
struct options {
    size_t sample, print_n; /* -s, -P */
    uint64_t seed;          /* -S */
    double min;             /* -m, percent */
    bool quiet;             /* -q */
    const char *a2l;        /* -B */
};

/* The check of @struct_path (@mods, @nmods read from it) against @binary's DWARF: main's exit
 * status (0 agreement at least o->min, 1 below, 2 error, 77 nothing to check).  Owns nothing:
 * the caller frees @mods and @e's entries. */
static int
check(struct entries *e, struct struct_module **mods, size_t nmods, const char *binary,
      const char *struct_path, const struct options *o)
{
    static char *debuginfo_path = NULL;
    static const Dwfl_Callbacks cb = {
        .find_elf = dwfl_build_id_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .section_address = dwfl_offline_section_address,
        .debuginfo_path = &debuginfo_path,
    };
    size_t counts[4] = {0}, listed = 0, checked;
    double pct;
    Dwfl *dwfl;
    Dwfl_Module *mod;
    Dwarf_Addr bias = 0;
    Dwarf *dw;
    int rc;

    for (size_t i = 0; i < nmods; i++)
        if (collect(struct_module_root(mods[i]), e) != 0) {
            fprintf(stderr, "struct_linecheck: out of memory\n");
            return 2;
        }
    if (e->n == 0) {
        printf("SKIP: %s: no statement entries\n", struct_path);
        return 77;
    }
    if (o->print_n > 0)
        return print_sample(e, o->print_n, o->seed);
    dwfl = dwfl_begin(&cb);
    if (dwfl == NULL || (mod = dwfl_report_offline(dwfl, "", binary, -1)) == NULL ||
        dwfl_report_end(dwfl, NULL, NULL) != 0 || (dw = dwfl_module_getdwarf(mod, &bias)) == NULL) {
        fprintf(stderr, "struct_linecheck: %s: no DWARF found by libdwfl: %s\n", binary,
                dwfl_errmsg(-1));
        dwfl_end(dwfl);
        return 2;
    }
    if (index_cus(dw) != 0) {
        fprintf(stderr, "struct_linecheck: out of memory\n");
        dwfl_end(dwfl);
        return 2;
    }
    if (o->a2l != NULL) {
        rc = check_addr2line(o->a2l, binary, mods[0], mod, bias, o->min, o->quiet);
        dwfl_end(dwfl);
        return rc;
    }
    if (o->sample > 0 && o->sample < e->n) {
        uint64_t st = o->seed ? o->seed : 1;

        for (size_t i = 0; i < o->sample; i++) { /* partial Fisher-Yates */
            size_t j = i + (size_t)(next_rand(&st) % (e->n - i));
            struct entry t = e->v[i];

            e->v[i] = e->v[j];
            e->v[j] = t;
        }
        e->n = o->sample;
    }
    for (size_t i = 0; i < e->n; i++) {
        char why[600];
        enum verdict v = judge(mod, bias, &e->v[i], why, sizeof(why));

        counts[v]++;
        if ((v == DIFFER || v == NOROW) && (!o->quiet || listed < 20)) {
            printf("differs: 0x%" PRIx64 " %s:%u; %s\n", e->v[i].addr, e->v[i].file, e->v[i].line,
                   why);
            listed++;
        }
    }
    checked = counts[AGREE] + counts[DIFFER] + counts[NOROW];
    pct = checked > 0 ? 100.0 * (double)counts[AGREE] / (double)checked : 100.0;
    printf("%s: %zu statement entries checked%s: %zu agree, %zu differ, %zu not covered by the "
           "line table, %zu on line-0 rows (not counted): %.2f%% agreement (minimum %.2f%%)\n",
           binary, e->n, o->sample > 0 ? " (random sample)" : "", counts[AGREE], counts[DIFFER],
           counts[NOROW], counts[LINE0], pct, o->min);
    dwfl_end(dwfl);
    return pct >= o->min ? 0 : 1;
}

int
main(int argc, char **argv)
{
    struct options o = {.seed = 20261123, .min = 99.5};
    struct struct_module **mods = NULL;
    struct entries e = {0};
    size_t nmods = 0;
    char err[512];
    int opt, rc;

    while ((opt = getopt(argc, argv, "s:S:m:qP:B:")) != -1) {
        switch (opt) {
        case 'P':
            o.print_n = strtoul(optarg, NULL, 10);
            break;
        case 'B':
            o.a2l = optarg;
            break;
        case 's':
            o.sample = strtoul(optarg, NULL, 10);
            break;
        case 'S':
            o.seed = strtoull(optarg, NULL, 10);
            break;
        case 'm':
            o.min = strtod(optarg, NULL);
            break;
        case 'q':
            o.quiet = true;
            break;
        default:
            return 2;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "usage: struct_linecheck [-s N] [-S SEED] [-m MIN%%] [-q] BINARY STRUCT\n"
                        "       struct_linecheck -P N [-S SEED] BINARY STRUCT\n"
                        "       struct_linecheck -B A2L [-m MIN%%] [-q] BINARY STRUCT\n");
        return 2;
    }
    if (struct_read_xml(argv[optind + 1], &mods, &nmods, err, sizeof(err)) != 0) {
        fprintf(stderr, "struct_linecheck: %s\n", err);
        return 2;
    }
    rc = check(&e, mods, nmods, argv[optind], argv[optind + 1], &o);
    for (size_t i = 0; i < nmods; i++)
        struct_module_free(mods[i]);
    free(mods);
    free(e.v);
    free(cu_ranges);
    return rc;
}
