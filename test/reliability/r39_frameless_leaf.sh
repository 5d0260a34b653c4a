#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Honest counts (issue 7 item 13): samples in a frameless assembly leaf
# without unwind information (programs/frameless_leaf.c) get one-frame call
# paths that the monitor counts as complete.  csprof-prof must report them
# as not rooted (partial), say that the monitor did not flag them, and
# still count the ordinary C function's samples as rooted at the process
# entry.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 1)
units=${REL_UNITS:-300}

rel_build leaf gcc "" frameless_leaf.c
rel_plain base ./leaf "$units"
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./leaf "$units"
    check "run $r: output and exit status identical" rel_same p$r base
    check "run $r: database" rel_db m$r db$r || continue
    n=$(rel_summary db$r samples) rooted=$(rel_summary db$r rooted-samples)
    kid=$(xp db$r "string(//Procedure[@n='kernel']/@i)") si=$(metric_id db$r samples inclusive)
    kernel=$(xp db$r "sum(//PF[@n='$kid']/M[@n='$si']/@v)")
    echo "samples $n, rooted $rooted, in kernel $kernel"
    unrooted=$(sed -n 's/^samples not rooted (partial call paths): \([0-9]*\) .*/\1/p' db$r.log)
    check "run $r: kernel sampled (${kernel:-0} samples)" [ "${kernel%.*}" -gt 50 ]
    check "run $r: kernel's samples reported as not rooted (${unrooted:-?} >= 0.9 x $kernel)" \
        awk -v u="${unrooted:-0}" -v k="${kernel:-0}" 'BEGIN { exit !(k > 0 && u >= 0.9 * k) }'
    check "run $r: the monitor's miss is named" grep -q "more whose walk stopped early unnoticed" db$r.log
    check "run $r: the other samples are rooted ($rooted + ${unrooted:-?} of $n)" \
        awk -v a="${rooted:-0}" -v u="${unrooted:-0}" -v n="${n:-0}" 'BEGIN { exit !(n > 0 && a + u >= 0.98 * n && a > 0) }'
done
finish
