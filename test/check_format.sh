#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The tracked C and C++ sources follow .clang-format (STYLE.md, "Build").
# Not checked: test/programs/loops_*, whose line layout is test data (loop
# annotations must stay on the lines the compiler attributes the loop to).
cd "$(dirname "$0")/.." || exit 1
command -v clang-format > /dev/null || { echo "SKIP: clang-format is not installed"; exit 77; }
if git rev-parse --git-dir > /dev/null 2>&1; then
    files=$(git ls-files '*.c' '*.h' '*.cc')
else
    files=$(find lib tools test examples bench -name '*.c' -o -name '*.h' -o -name '*.cc')
fi
files=$(echo "$files" | grep -v '^test/programs/loops_')
bad=$(echo "$files" | xargs clang-format --dry-run 2>&1 | grep -c 'warning:')
echo "$bad places differ from .clang-format"
echo "$([ "$bad" -eq 0 ] && echo 1 || echo 0) passed, $([ "$bad" -eq 0 ] && echo 0 || echo 1) failed"
[ "$bad" -eq 0 ]
