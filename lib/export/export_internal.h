/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export_internal.h -- helpers shared by the writers of lib/export.  Tool code.
 */
#ifndef CSP_EXPORT_INTERNAL_H
#define CSP_EXPORT_INTERNAL_H

#include <stdio.h>

#include "export/export.h"
#include "support/text.h"

/* @s as a JSON string: quotes, backslashes, controls and <>& escaped; bytes
 * that are not clean UTF-8 become \xNN first (lib/support/text.h). */
void exp_json_str(FILE *out, const char *s);

#endif /* CSP_EXPORT_INTERNAL_H */
