#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 2: 8 pthreads doing the same CPU work, main joins them.  Each profiled
# run prints what the baseline prints, writes 9 thread profiles, every
# worker has >= 5 % of the samples and >= 95 % of its own samples under
# worker, and the busiest worker has at most twice the samples of the least
# busy (CPU-time sampling: equal work gives equal samples however the two
# cores are shared).
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 3)
units=${REL_UNITS:-80} # about 1.3 s of CPU in all: ~160 samples per worker at 1 kHz

rel_build threads8 gcc "-pthread" threads8.c
rel_plain base ./threads8 "$units"
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./threads8 "$units"
    check "run $r: output and exit status identical" rel_same p$r base
    check "run $r: 9 thread profiles (got $(rel_profiles m$r))" [ "$(rel_profiles m$r)" -eq 9 ]
    total=$(rel_stat m$r samples.recorded)
    counts="" low=0 unrooted=""
    # One file per process, one record per thread: split it into one file per thread.
    mkdir -p s$r
    for f in m$r/*.cspm; do python3 "$CSPROF_SOURCE/test/integration/split_records.py" "$f" s$r; done
    for f in s$r/*.cspm; do
        [ -e "$f" ] || continue
        case "$f" in *-0.cspm) continue ;; esac # thread index 0: the main thread
        n=$(rel_samples_total "$f") w=$(rel_samples_in "$f" threads8 worker)
        counts="$counts $n"
        rel_ratio_ge "$n" "$total" 0.05 || low=$((low + 1))
        rel_ratio_ge "$w" "$n" 0.95 || unrooted="$unrooted $w/$n"
    done
    nw=$(echo $counts | wc -w)
    check "run $r: 8 worker profiles (got $nw)" [ "$nw" -eq 8 ]
    check "run $r: every worker has >= 5 % of $total samples ($counts)" [ "$low" -eq 0 ]
    check "run $r: every worker has >= 95 % of its samples under worker (not:${unrooted:- none})" \
        [ -z "$unrooted" ]
    check "run $r: max / min worker samples <= 2.0 ($counts)" \
        sh -c "echo $counts | tr ' ' '\n' | sort -n | awk 'NR == 1 { lo = \$1 } { hi = \$1 } END { exit !(NR > 0 && lo > 0 && hi <= 2 * lo) }'"
done
finish
