#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 1: a CPU-bound serial C program at -O2 -g (main -> work_a, 2 units, and
# work_b, 1 unit).  Each profiled run prints what the baseline prints and
# exits alike, >= 95 % of its samples are rooted at main, and
# work_a / work_b lies in [1.5, 2.7] (2.0 expected).
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 3)
units=${REL_UNITS:-200} # about 1.2 s of CPU: >= 1000 samples at 1 kHz

rel_build serial gcc "" serial.c
rel_plain base ./serial "$units"
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./serial "$units"
    check "run $r: output and exit status identical" rel_same p$r base
    check "run $r: one profile (got $(rel_profiles m$r))" [ "$(rel_profiles m$r)" -eq 1 ]
    check "run $r: database" rel_db m$r db$r || continue
    n=$(rel_summary db$r samples) inmain=$(rel_summary db$r samples-in-main)
    check "run $r: samples recorded ($n)" [ "${n:-0}" -gt 0 ]
    check "run $r: rooted at main >= 0.95 ($inmain of $n)" \
        awk -v a="${inmain:-0}" -v n="${n:-0}" 'BEGIN { exit !(n > 0 && a >= 0.95 * n) }'
    a=$(incl_of db$r CPUTIME work_a) b=$(incl_of db$r CPUTIME work_b)
    check "run $r: work_a / work_b in [1.5, 2.7] ($a s / $b s)" \
        awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > 0 && a / b >= 1.5 && a / b <= 2.7) }'
done
finish
