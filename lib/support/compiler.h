/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * compiler.h -- attribute macros shared by every csprof module.
 *
 * CSP_SIGSAFE marks a declaration that may be called from signal context;
 * it expands to nothing and exists for readers; what the signal-path objects
 * (*_sig.c) import is checked by test/integration/monitor_exports.sh.
 */
#ifndef CSP_COMPILER_H
#define CSP_COMPILER_H

#define CSP_SIGSAFE   /* may be called from signal context */
#define CSP_EXPORT    __attribute__((visibility("default")))
#define CSP_HIDDEN    __attribute__((visibility("hidden")))
#define CSP_NOINLINE  __attribute__((noinline))
#define CSP_TLS       _Thread_local __attribute__((tls_model("initial-exec")))
#define CSP_UNUSED(x) ((void)(x))
/* gcc's noclone (no specialised copies of the function); clang makes none and has no such attribute */
#if defined(__clang__)
#    define CSP_NOCLONE
#else
#    define CSP_NOCLONE __attribute__((noclone))
#endif

/* Frames the per-thread walk arrays, shadow stack and CCT memo hold at
 * first.  A deeper stack grows them (doubling) from the thread's arena in
 * signal context, so call paths are recorded in full, however deep, until
 * the arena limit (CSPROF_MEMORY_LIMIT) is reached; a sample that would
 * need more is dropped and counted, never cut. */
#define CSP_INITIAL_FRAMES 16384

#endif /* CSP_COMPILER_H */
