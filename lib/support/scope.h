/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * scope.h -- the kinds of scope every analysis-side library names the same
 * way: the program structure (csprof-struct), the merged calling context tree
 * and flat view (csprof-prof), the database's views (csprof-report, the
 * viewer's data).  The one-letter XML tags of experiment.xml and the
 * structure file (PF, A, L, C, S, LM, F, P...) belong to the XML readers and
 * writers only; everything else says CSP_SCOPE_*.
 *
 * The order is the nesting order (outer kinds first), so that sorting by
 * kind puts a frame before what it contains.  The values are in memory only:
 * no file stores them.  (The measurement side's CCT keeps its own two node
 * kinds, call site and leaf, keyed by addresses: lib/cct/cct.h, lib/fmt/fmt.h.)
 */
#ifndef CSP_SCOPE_H
#define CSP_SCOPE_H

enum csp_scope {
    CSP_SCOPE_ROOT = 0, /* the whole run (or the structure of one load module's root) */
    CSP_SCOPE_MODULE,   /* a load module (static views; the structure's root) */
    CSP_SCOPE_FILE,     /* a source file (static views) */
    CSP_SCOPE_PROC,     /* a procedure: a procedure frame in call paths */
    CSP_SCOPE_INLINE,   /* an inlined frame (a procedure inlined at a call site) */
    CSP_SCOPE_LOOP,     /* a loop (by interval analysis of the CFG: loopnest.c) */
    CSP_SCOPE_CALL,     /* a call site: the callee frames are its children in call paths */
    CSP_SCOPE_STMT,     /* a statement: the code of one source line */
    CSP_SCOPE_TRUNC,    /* the rest of a path cut by csprof-prof (experiment.xml T) */
    CSP_SCOPE_GROUP,    /* a row of a flat view grouped by module, file or line (report only) */
    CSP_SCOPE_NKINDS
};

#endif /* CSP_SCOPE_H */
