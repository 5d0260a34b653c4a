#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 21: very deep recursion.  On a thread with a 1 GiB stack, recurse()
# goes DEPTH (100 000) calls deep and works at the bottom; then mutual_a <->
# mutual_b go MUTUAL (10 000) calls deep and work at the bottom.  Every
# profiled run must behave like the baseline (no crash, no hang), and:
#  - call paths are recorded whole, root side included: the thread's root
#    frames (deep_thread under start_thread) hold >= 90 % of the cost outside
#    main (the main thread only joins), leaf_work >= 80 % of theirs, no
#    sample is dropped for lack of memory, < 5 % are partial;
#  - the whole depth reaches the database: its call tree nests paths deeper
#    than 2000 levels only up to there, ending in a <T> element whose
#    levels= accounts for the rest -- 2 levels (PF, C) per recursive call, so
#    2000 + levels >= 2 x DEPTH (before: the walk kept the 16 384 leaf-side
#    frames and dropped the root side, unmarked);
#  - memory stays under the documented bound (docs/internals.md "Deep recursion"):
#    arena bytes <= 4 MiB + 512 bytes x CCT nodes, per thread;
#  - csprof-prof builds the database (no stack overflow: it is iterative)
#    and the database validates against the DTD with xmllint --huge.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 2)
depth=${REL_DEPTH:-100000}
mutual=${REL_MUTUAL:-10000}
units=${REL_UNITS:-40} # about 0.5 s of leaf work at each bottom
ev=${REL_EVENT%%@*}    # the event the database's metrics are read for

rel_build deep gcc "-pthread" deep_recursion.c
rel_plain base ./deep "$depth" "$mutual" "$units"
check "baseline exits 0 (got $(cat base.rc))" [ "$(cat base.rc)" -eq 0 ]
for ((r = 1; r <= runs; r++)); do
    rel_prof p$r m$r ./deep "$depth" "$mutual" "$units"
    check "run $r: output and exit status identical" rel_same p$r base
    n=$(rel_stat m$r samples.recorded) part=$(rel_stat m$r samples.partial)
    nomem=$(rel_stat m$r samples.dropped.no_memory)
    check "run $r: samples recorded ($n)" [ "${n:-0}" -gt 100 ]
    check "run $r: none dropped for memory ($nomem)" [ "${nomem:-1}" -eq 0 ]
    check "run $r: partial < 5 % ($part of $n)" \
        awk -v p="${part:-0}" -v n="${n:-0}" 'BEGIN { exit !(n > 0 && p < 0.05 * n) }'
    for f in m$r/*.cspm; do
        [ -e "$f" ] || continue
        a=$(csprof-prof --dump "$f" 2> /dev/null | sed -n 's/^stat name="arena.bytes" value=\([0-9]*\)$/\1/p')
        c=$(csprof-prof --dump "$f" 2> /dev/null | sed -n 's/^stat name="cct.nodes" value=\([0-9]*\)$/\1/p')
        check "run $r: $(basename "$f"): arena ${a:-?} B <= 4 MiB + 512 B x ${c:-?} nodes" \
            awk -v a="${a:-0}" -v c="${c:-0}" 'BEGIN { exit !(a > 0 && a <= 4194304 + 512 * c) }'
    done
    check "run $r: database (csprof-prof iterative)" rel_db m$r db$r || continue
    check "run $r: database validates (xmllint --huge --dtdvalid)" validate db$r
    levels=$(xp db$r "//T/@levels" | sed 's/ *levels="\([0-9]*\)"/\1 /g' | tr '\n' ' ')
    deepest=$(printf '%s\n' $levels | sort -n | tail -n 1)
    check "run $r: recursion reaches the database whole (2000 + ${deepest:-0} levels >= 2 x $depth)" \
        [ $((2000 + ${deepest:-0})) -ge $((2 * depth)) ]
    check "run $r: mutual recursion too (levels of the cut paths: $levels)" \
        awk -v l="$levels" -v m=$((2 * mutual - 2000)) -v d=$((2 * depth - 2000)) \
        'BEGIN { n = split(l, v, " "); for (i = 1; i <= n; i++) if (v[i] >= m && v[i] < d) ok = 1; exit !ok }' 
    rootv=$(incl_under db$r "$ev" deep_thread start_thread)
    total=$(xp db$r "string(//EventTotal[@event='$ev']/@v)")
    inmain=$(incl_of db$r "$ev" main) # the main thread (waiting in pthread_join for REALTIME)
    check "run $r: root side kept: deep_thread under start_thread holds >= 90 % of what is not main's ($rootv of $total - ${inmain:-0} s)" \
        awk -v a="${rootv:-0}" -v t="${total:-0}" -v m="${inmain:-0}" 'BEGIN { exit !(t - m > 0 && a >= 0.9 * (t - m)) }'
    leafv=$(xp db$r "string(//TopProcedure[@n='leaf_work']/@v)")
    check "run $r: leaf_work holds >= 80 % of the deep thread's $ev (${leafv:-?} of $rootv s)" \
        awk -v l="${leafv:-0}" -v a="${rootv:-0}" 'BEGIN { exit !(a > 0 && l >= 0.8 * a) }'
done
finish
