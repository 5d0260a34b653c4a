/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The allocation-failure sweeps of test_prof_db and test_prof_parts, under LeakSanitizer.
 *
 * lib/profile leaves a failing allocation by longjmp to its entry point's PROF_GUARD
 * (profile_internal.h), which returns PROF_ENOMEM without freeing the temporaries of the
 * call that failed (csprof-prof then exits).  So a sweep brackets only the calls it makes
 * fail with oom_region_begin()/oom_region_end(): what they allocate is not reported as a
 * leak, while everything allocated outside them (the context, its tree and inputs) still
 * is, if freeing the context after a failure misses it.  Without LeakSanitizer both are
 * no-ops.  Header-only, tests only.
 */
#ifndef CSP_TEST_OOM_REGION_H
#define CSP_TEST_OOM_REGION_H

#if defined(__SANITIZE_ADDRESS__)
#    define CSP_HAVE_LSAN 1
#elif defined(__has_feature)
#    if __has_feature(address_sanitizer)
#        define CSP_HAVE_LSAN 1
#    endif
#endif

#ifdef CSP_HAVE_LSAN
#    include <sanitizer/lsan_interface.h>
/* Allocations from here to oom_region_end() are not leak-checked (this thread). */
static inline void
oom_region_begin(void)
{
    __lsan_disable();
}
static inline void
oom_region_end(void)
{
    __lsan_enable();
}
#else
static inline void
oom_region_begin(void)
{
}
static inline void
oom_region_end(void)
{
}
#endif

#endif /* CSP_TEST_OOM_REGION_H */
