#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up, build and run the whole test suite with ctest:  scripts/test.sh [BUILD_DIR]
# Then the whole tree built once more by clang with -Werror (preset clang, build-clang/), and
# once more with AddressSanitizer and UBSan (preset asan-ubsan, build-asan/) to run the unit,
# structure, profile and report tests under them; CSPROF_TEST_EXTRA=0 skips both.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
scripts/setup.sh "$build"
status=0
ctest --test-dir "$build" --output-on-failure -j2 --timeout 600 || status=1
if [ "${CSPROF_TEST_EXTRA:-1}" != 0 ]; then
    echo "== clang build (build-clang/, warnings as errors)"
    if cmake --preset clang > /dev/null && cmake --build --preset clang -j2 > build-clang/build.log 2>&1; then
        echo "clang build: ok"
    else
        tail -40 build-clang/build.log 2> /dev/null
        echo "clang build: FAILED"
        status=1
    fi
    echo "== ASan+UBSan build and tests (build-asan/: unit_, struct_, prof_, report_)"
    if cmake --preset asan-ubsan > /dev/null && cmake --build --preset asan-ubsan -j2 > build-asan/build.log 2>&1; then
        ctest --preset asan-ubsan || status=1
    else
        tail -40 build-asan/build.log 2> /dev/null
        echo "asan-ubsan build: FAILED"
        status=1
    fi
fi
exit $status
