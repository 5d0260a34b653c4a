/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * viewer.h -- the zero-install viewer of an experiment database.
 *
 * vw_write() puts DB/index.html, the viewer's scripts and style
 * (share/viewer/, embedded into the program at build time so that the
 * viewer always matches the writer) and its data into a database
 * directory: DB/viewer/data.js (the calling-context tree, metrics, summary
 * and per-thread inputs as one classic script, format in
 * share/schemas/viewer-data.md) and DB/viewer/src-N.js (the copied source
 * files, as scripts, because browsers block fetch/XHR of file:// URLs).
 *
 * Tool code: never prints, never exits; errors are negative RPT_E* values
 * (report/report.h) with a one-line reason in a caller-supplied buffer.
 * [not async-signal-safe]
 */
#ifndef CSP_VIEWER_H
#define CSP_VIEWER_H

#include <stddef.h>

struct rpt_db;

/*
 * Write the viewer for database @db (a directory holding experiment.xml)
 * into directory @out (created if missing; usually @db itself).  When
 * @base_db is not NULL, the viewer is differential: it also holds
 * @base_db's data (DB/viewer/base.js) and colours views by the change from
 * @base_db to @db.  Sources are read from @db's src/ (and @base_db's).
 * @db_read is @db as rpt_db_read() already read it (borrowed: not freed
 * here), or NULL to read it now; a caller that reads the database for
 * other work too saves parsing experiment.xml twice.
 * Returns 0, or RPT_EIO / RPT_EFORMAT / RPT_ENOMEM with the reason in @err.
 */
int vw_write(const char *db, const struct rpt_db *db_read, const char *base_db, const char *out,
             char *err, size_t errlen);

#endif /* CSP_VIEWER_H */
