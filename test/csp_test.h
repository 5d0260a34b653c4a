/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * csp_test.h -- the one result line of csprof's C test programs.
 *
 * Every test program ends as test/harness.sh's finish ends a script test: one line
 * "N passed, M failed" on standard output, and exit status 0 when nothing failed, else 1
 * (ctest reads the status; a person reads the line).  Header-only, tests only; the test
 * targets find it through test/CMakeLists.txt's include directory.
 */
#ifndef CSP_TEST_H
#define CSP_TEST_H

#include <stdio.h>

/* Print the result line for @passed and @failed checks and return the exit status. */
static inline int
csp_test_finish(long passed, long failed)
{
    printf("%ld passed, %ld failed\n", passed, failed);
    fflush(stdout);
    return failed == 0 ? 0 : 1;
}

#endif /* CSP_TEST_H */
