/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dwarf_lines.c -- statements from the DWARF line table (libdw's
 * dwarf_getsrclines, per compilation unit): the address range of each row,
 * clipped to its CU's code ranges; rows with line 0 inherit the nearest
 * preceding (else following) nonzero row of their sequence.  Tool code only.
 */
#include <stdlib.h>

#include "support/search.h"

#include "structure/binary_internal.h"

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
int
bin_read_cu_lines(struct analysis *an, Dwarf_Die *cudie)
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
            prev_file = bin_intern_dw(an, file);
            if (prev_file == NULL)
                return STRUCT_ENOMEM;
            prev_line = (uint32_t)ln;
        }
        if (a < b && line_push_clipped(an, a, b, prev_file, prev_line) != 0)
            return STRUCT_ENOMEM;
    }
    return 0;
}
