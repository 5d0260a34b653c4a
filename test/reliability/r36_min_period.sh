#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 7 item 11: a period shorter than one sample's own cost makes the
# next signal due before the handler returns (the perf task-clock and the
# real-time timer count the handler's time), and the program never
# finishes -- a 0.5 s program ran 12 minutes at CPUTIME@1.  csrun refuses
# such periods before the program runs (exit 2, the smallest allowed period
# in the message), and at the smallest allowed period, for each event, a
# short program finishes within the hang limit (3 x baseline + 10 s) with
# the baseline's output and a profile holding the program's work: its tree
# holds every sample it counted, at least half the samples its CPU time is
# worth at that period, and >= 90 % of them in unit below main.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 1)

rel_build spin gcc "" limits_spin.c
for spec in CPUTIME@1 CPUTIME@10 REALTIME@1 REALTIME@10; do
    rm -f ran
    csrun -e "$spec" -o m_refused ./spin 1 ran > /dev/null 2> err.txt
    rc=$?
    check "$spec: refused with exit 2 (got $rc)" [ "$rc" -eq 2 ]
    check "$spec: the program did not run" [ ! -e ran ]
    min=$(sed -n 's/.*smallest period csprof can sustain is \([0-9]*\) microseconds.*/\1/p' err.txt)
    check "$spec: message names the smallest period ($(head -n 1 err.txt))" [ -n "$min" ]
done
[ -n "$min" ] || finish
rel_plain base ./spin 50
for ev in CPUTIME REALTIME; do
    for ((r = 1; r <= runs; r++)); do
        REL_EVENT=$ev@$min rel_prof p_${ev}_$r m_${ev}_$r ./spin 50
        check "$ev@$min run $r: finishes with the baseline's output ($(cat p_${ev}_$r.wall) s, baseline $(cat base.wall) s)" \
            rel_same p_${ev}_$r base
        rel_records m_${ev}_$r > m_${ev}_$r.rec
        check "$ev@$min run $r: one thread profile ($(wc -l < m_${ev}_$r.rec))" [ "$(wc -l < m_${ev}_$r.rec)" -eq 1 ]
        while read -r line; do
            # shellcheck disable=SC2086 # the record's words
            rel_content "$ev@$min run $r" 0.5 ./spin unit main 0.90 $line
        done < m_${ev}_$r.rec
    done
done
finish
