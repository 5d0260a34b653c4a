#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 20: dlopen/dlclose churn with address reuse.  4 threads, each in a
# loop over its own copies of two libraries: open libchurn_a.T.so, run
# churn_work_a (UNITS_A), close it; open libchurn_b.T.so -- same size, so it
# is mapped at the base A had unless another thread's mapping took the
# place (the program reports how often on stderr) -- run churn_work_b
# (UNITS_B), close it.  The work
# functions lie at different offsets (each library pads the other's place),
# so a sample given to the wrong library lands in its padding.  Each run:
# output and exit status identical, no hang or crash; samples at an unknown
# module < 1 %; the share of A among A's and B's samples within 15 points
# of the work share UNITS_A / (UNITS_A + UNITS_B); at most 1 % of those
# samples in the padding functions, which never run: there lands a sample
# of B's work attributed to A, or one of A's attributed to B.  (A few
# samples land on the first instruction of _init and _fini: the loader
# runs them, and their page faults take the time.)
# Knobs: REL_ITERS (iterations per thread), REL_THREADS.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 2)
threads=${REL_THREADS:-4}
iters=${REL_ITERS:-200}
units_a=20 units_b=10

rel_build churn gcc "-pthread" churn.c
rel_build libchurn_a.so gcc "-shared -fPIC -DCHURN_A" churn_lib.c
rel_build libchurn_b.so gcc "-shared -fPIC" churn_lib.c
for ((t = 0; t < threads; t++)); do
    cp libchurn_a.so libchurn_a.$t.so && cp libchurn_b.so libchurn_b.$t.so
done
args=("$PWD/libchurn_a." "$PWD/libchurn_b." "$threads" "$iters" "$units_a" "$units_b")
rel_plain base ./churn "${args[@]}"
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]
cat base.err

# excl_in_lms DB PATH: exclusive CPUTIME (s) of every procedure of the modules named *PATH*.
excl_in_lms() {
    local lms ids m
    lms=$(xp "$1" "//LoadModule[contains(@n,'$2')]/@i" | sed 's/ i="\([0-9]*\)"/\1 /g')
    ids=$(xp "$1" "//Procedure[$(or_ids lm $lms)]/@i" | sed 's/ i="\([0-9]*\)"/\1 /g')
    m=$(metric_id "$1" CPUTIME exclusive)
    xp "$1" "sum(//PF[$(or_ids n $ids)]/M[@n='$m']/@v)"
}
# excl_of_in DB PROC PATH: exclusive CPUTIME (s) of procedure PROC in the modules named *PATH*
# (PATH empty: any module).
excl_of_in() {
    local lms sel ids m
    sel="@n='$2'"
    if [ -n "$3" ]; then
        lms=$(xp "$1" "//LoadModule[contains(@n,'$3')]/@i" | sed 's/ i="\([0-9]*\)"/\1 /g')
        sel="$sel and ($(or_ids lm $lms))"
    fi
    ids=$(xp "$1" "//Procedure[$sel]/@i" | sed 's/ i="\([0-9]*\)"/\1 /g')
    m=$(metric_id "$1" CPUTIME exclusive)
    xp "$1" "sum(//PF[$(or_ids n $ids)]/M[@n='$m']/@v)"
}

for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./churn "${args[@]}"
    check "run $r: output and exit status identical" rel_same p$r base
    reuse=$(sed -n 's/^churn: B mapped at A.s base in \([0-9]*\) of.*/\1/p' p$r.err)
    check "run $r: B was mapped at A's base ($(grep -h '^churn: B mapped' p$r.err))" \
        [ "${reuse:-0}" -gt 0 ]
    check "run $r: database" rel_db m$r db$r || continue
    n=$(rel_summary db$r samples) unknown=$(rel_summary db$r unknown-samples)
    check "run $r: unknown-module samples < 1 % ($unknown of $n)" \
        awk -v u="${unknown:-0}" -v n="${n:-0}" 'BEGIN { exit !(n > 0 && u < 0.01 * n) }'
    a=$(excl_in_lms db$r libchurn_a.) b=$(excl_in_lms db$r libchurn_b.)
    check "run $r: A's share of A+B ($a s, $b s) within 15 points of $units_a/($units_a+$units_b)" \
        awk -v a="$a" -v b="$b" -v x="$units_a" -v y="$units_b" \
        'BEGIN { e = x / (x + y); exit !(a + b > 0 && a / (a + b) >= e - 0.15 && a / (a + b) <= e + 0.15) }'
    pad=$(awk -v p="$(excl_of_in db$r churn_pad_a '')" -v q="$(excl_of_in db$r churn_pad_b '')" \
        'BEGIN { print p + q }')
    check "run $r: samples in the padding (wrong library) <= 1 % of A+B ($pad s)" \
        awk -v p="$pad" -v a="$a" -v b="$b" 'BEGIN { exit !(a + b > 0 && p <= 0.01 * (a + b)) }'
done
finish
