#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The bottom-up view's one definition (docs/views.md), report and viewer alike:
# bottom_up_conformance.js on two hand-built databases (test/report/bottom_up.xml with its
# expected rows, inlined and out-of-line recursion and a loop; mutual_recursion.xml), Figure 1
# profiled with its structure (loops, statements) and gzip, an optimized stripped Debian program.
# Environment: CSPROF_BIN, FIG1, SRC (the source tree), OUT (a scratch directory).
set -u
here=$(cd "$(dirname "$0")" && pwd)
node=$(command -v node || command -v nodejs)
if [ -z "$node" ]; then
    skip "node not found (install Debian package nodejs: scripts/setup.sh)"
fi
gz=$(command -v gzip) || skip "gzip not found"
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 1
. "$SRC/test/harness.sh"
fail() { die "$@"; }
golden() { # golden NAME XML [EXPECT]
    mkdir "$1" && cp "$2" "$1/experiment.xml" || fail "$1: copy"
    [ $# -lt 3 ] || cp "$3" "$1/expect.json" || fail "$1: expect"
    "$CSPROF_BIN/csprof-prof" --refresh-viewer "$1" > /dev/null || fail "$1: csprof-prof --refresh-viewer"
}
golden golden-bottom-up "$SRC/test/report/bottom_up.xml" "$SRC/test/report/bottom_up.expect.json"
golden golden-mutual "$SRC/test/report/mutual_recursion.xml"
"$CSPROF_BIN/csrun" -q -e CPUTIME@1000 -o m-fig1 "$FIG1" > /dev/null || fail "csrun fig1"
"$CSPROF_BIN/csprof-struct" "$FIG1" > fig1.struct || fail "csprof-struct fig1"
"$CSPROF_BIN/csprof-prof" -q -S fig1.struct m-fig1 -o fig1 || fail "csprof-prof fig1"
head -c 6000000 /dev/urandom | od -An -tx1 > gz.in
"$CSPROF_BIN/csrun" -q -e CPUTIME@1000 -o m-gzip "$gz" -9 -c gz.in > /dev/null || fail "csrun gzip"
"$CSPROF_BIN/csprof-prof" -q m-gzip -o gzip 2> /dev/null || fail "csprof-prof gzip"
exec "$node" "$here/bottom_up_conformance.js" "$CSPROF_BIN/csprof-report" \
    golden-bottom-up golden-mutual fig1 gzip
