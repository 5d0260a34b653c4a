/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export_internal.h -- helpers shared by the writers of lib/export.  Tool code.
 */
#ifndef CSP_EXPORT_INTERNAL_H
#define CSP_EXPORT_INTERNAL_H

#include <stdio.h>

#include "export/export.h"
#include "support/text.h"

/* Value @v of column @col of @t as text tables print it, right-aligned in @w
 * columns (0: no padding), in the column's display unit: integral counts as
 * integers, else 4 decimals, or 3 significant digits where fixed point would
 * lose them (under 0.0009995, or 1e5 and over).  Errors: those of fprintf. */
void exp_text_value(FILE *out, const struct rpt_tree *t, int col, double v, int w);

/* The same into @buf (@size bytes, NUL-terminated, cut to fit; "%g" when no memory
 * stream can be opened).  Returns @buf. */
char *exp_text_value_str(char *buf, size_t size, const struct rpt_tree *t, int col, double v);

/* @s as one CSV field (quoted when it holds a comma, quote or line break). */
void exp_csv_str(FILE *out, const char *s);

#endif /* CSP_EXPORT_INTERNAL_H */
