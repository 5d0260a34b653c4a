/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_internal.h -- helpers shared by the files of lib/report.  Tool code.
 */
#ifndef CSP_REPORT_INTERNAL_H
#define CSP_REPORT_INTERNAL_H

#include <stddef.h>

#include "report/report.h"

/* Format a message into @err (@errlen bytes); no-op when @err is NULL. */
void rpt_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * Make @p (an array of @elem-byte items, *cap of them) hold at least @need
 * items, zeroing new ones (csp_vec_reserve of support/vec.h).  Returns the (maybe moved) array, or NULL on
 * ENOMEM; the old array is then lost, so callers treat ENOMEM as the end of
 * the object being built (the process is out of memory anyway).
 */
void *rpt_grow(void *p, size_t *cap, size_t need, size_t elem);

#endif /* CSP_REPORT_INTERNAL_H */
