#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The conformance corpus's one database that only csprof-prof writes (per-thread values,
# thread-values.bin and viewer/threads.js): test/prof/prog.c compiled, three threads of two
# processes made from fixed call paths by prof_gen (synthetic measurement files, 10 ms a
# sample), merged by csprof-prof into $OUT/threads.  Deterministic: no program is run.
#   thread 0 (pid 300 tid 300): main > a > c        1 sample   (c: 0.01 s)
#   thread 1 (pid 300 tid 301): main > a > c        3 samples  (c: 0.03 s)
#   thread 2 (pid 400 tid 400): main > b 2 samples (b: 0.02 s), main > a > c 2 samples (c: 0.02 s)
# Environment: PROF (csprof-prof), GEN (prof_gen), CC, SRC (test/prof/prog.c), OUT.
set -u
. "$(dirname "$0")/../harness.sh"
command -v nm > /dev/null 2>&1 || skip "nm not installed (binutils)"
rm -rf "$OUT" && mkdir -p "$OUT/m" || die "cannot create $OUT"
"$CC" -g -O0 -o "$OUT/prog" "$SRC" || die "cannot compile $SRC"
nm -S --defined-only "$OUT/prog" > "$OUT/prog.syms" || die "nm failed"
spec() { # spec N PID TID PATH...
    local n=$1 pid=$2 tid=$3
    shift 3
    {
        echo "header pid=$pid tid=$tid index=0 cpu_ns=1000000000 start_ns=1 end_ns=2 program=$OUT/prog command=prog host=testhost"
        echo "event CPUTIME ns posix-timer 10000000 1e-9 s"
        echo "module 1 $OUT/prog"
        echo "syms $OUT/prog.syms"
        printf '%s\n' "$@"
    } > "$OUT/s$n"
    "$GEN" "$OUT/s$n" "$OUT/m/$n.cspm" || die "prof_gen $OUT/s$n failed"
}
spec 0 300 300 "path main a c = 1 10000000"
spec 1 300 301 "path main a c = 3 30000000"
spec 2 400 400 "path main b = 2 20000000" "path main a c = 2 20000000"
"$PROF" -q "$OUT/m" -o "$OUT/threads" > /dev/null || die "csprof-prof failed"
[ -f "$OUT/threads/thread-values.bin" ] || die "csprof-prof wrote no thread-values.bin"
