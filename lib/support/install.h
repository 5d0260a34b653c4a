/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * install.h -- where csprof's own files are: every tool finds what it ships
 * with (libcsprof.so, the DTDs, the viewer) relative to its own executable,
 * in the layout both the build tree and an install share:
 *   BINDIR/csrun   BINDIR/../lib/csprof/libcsprof.so   BINDIR/../share/csprof/...
 * so that a build or an install can be moved as a whole.
 */
#ifndef CSP_INSTALL_H
#define CSP_INSTALL_H

#include <stddef.h>

/*
 * Write "DIR/../@rel" into @out (@size bytes), DIR the directory of the
 * running executable (/proc/self/exe, proc(5)), e.g. @rel =
 * "share/csprof/schemas/experiment.dtd".  Returns 0, or -1 with errno set:
 * the executable's path cannot be read (readlink's errno) or the result does
 * not fit (ENAMETOOLONG).  Whether the file exists is the caller's question.
 * [not async-signal-safe]
 */
int csp_install_path(const char *rel, char *out, size_t size);

#endif /* CSP_INSTALL_H */
