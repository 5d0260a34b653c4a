/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export_internal.h -- helpers shared by the writers of lib/export.  Tool code.
 */
#ifndef CSP_EXPORT_INTERNAL_H
#define CSP_EXPORT_INTERNAL_H

#include <stdio.h>

#include "export/export.h"
#include "support/text.h"

/* @s as one CSV field (quoted when it holds a comma, quote or line break). */
void exp_csv_str(FILE *out, const char *s);

#endif /* CSP_EXPORT_INTERNAL_H */
