/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export_internal.h -- helpers shared by the writers of lib/export.  Tool code.
 */
#ifndef CSP_EXPORT_INTERNAL_H
#define CSP_EXPORT_INTERNAL_H

#include <stdio.h>

#include "export/export.h"
#include "support/text.h"

/*
 * Value @v of metric @m for people (issue 22, item 7) into @buf (@size bytes,
 * NUL-terminated, cut to fit); returns its display columns.  Times (unit s)
 * in ns, µs, ms or s with 2 decimals ("58.70 ms", "1.28 s"); bytes in B, KiB,
 * MiB, GiB, TiB with 1 decimal ("2.0 GiB"); counts (samples, calls, events)
 * with k, M, G, T and 1 decimal ("12.3 k"); whole counts and bytes below the
 * first multiple, and 0, without decimals.  In a column (@word false) the
 * unit is padded to its kind's widest and a whole value's decimals are
 * blank, so that cells right-aligned in one column line up their decimal
 * points; in a sentence (@word true) nothing is padded and counts name their
 * unit ("12.3 k samples").  Other units (ratios, derived metrics): 4
 * decimals, or 3 significant digits under 0.0009995 or from 1e5 (with the
 * unit when @word).  CSV and JSON keep raw values; this is text only.
 */
size_t exp_human(char *buf, size_t size, const struct rpt_metric *m, double v, bool word);

/* exp_human() in a column: right-aligned in @w display columns. */
void exp_put_human(FILE *out, const struct rpt_metric *m, double v, int w);

/* exp_put_human() for column @col of @t.  Errors: those of fprintf. */
void exp_text_value(FILE *out, const struct rpt_tree *t, int col, double v, int w);

/* exp_human() in a sentence for column @col of @t ("1.28 s", "2.0 GiB", "812 samples").
 * Returns @buf. */
char *exp_text_value_str(char *buf, size_t size, const struct rpt_tree *t, int col, double v);

/* @s as one CSV field (quoted when it holds a comma, quote or line break). */
void exp_csv_str(FILE *out, const char *s);

#endif /* CSP_EXPORT_INTERNAL_H */
