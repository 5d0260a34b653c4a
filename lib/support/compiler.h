/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * compiler.h -- attribute macros shared by every csprof module.
 *
 * CSP_SIGSAFE marks a declaration that may be called from signal context;
 * it expands to nothing and exists for readers and for check-sigsafe.sh.
 */
#ifndef CSP_COMPILER_H
#define CSP_COMPILER_H

#define CSP_SIGSAFE   /* may be called from signal context */
#define CSP_EXPORT    __attribute__((visibility("default")))
#define CSP_HIDDEN    __attribute__((visibility("hidden")))
#define CSP_NOINLINE  __attribute__((noinline))
#define CSP_TLS       _Thread_local __attribute__((tls_model("initial-exec")))
#define CSP_UNUSED(x) ((void)(x))

/* Longest call path a sample records, in frames.  Deeper stacks are cut at
 * this depth and the sample is counted as partial. */
#define CSP_MAX_FRAMES 16384

#endif /* CSP_COMPILER_H */
