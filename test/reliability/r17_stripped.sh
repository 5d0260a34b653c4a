#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 17: stripped and split-debug binaries.  The row 1 program built -g is
# copied (a) stripped of everything (strip --strip-all), (b) stripped with
# its DWARF in a separate file named by .gnu_debuglink, (c) stripped with its
# DWARF under DEBUGDIR/.build-id/xx/yyyy.debug (CSPROF_DEBUG_DIR).
# csprof-struct exits 0 for each; (a) names procedures from .dynsym or
# "prog+0x..." and its profile is still rooted at the process entry (the
# procedure holding the ELF entry point is _start even without a name);
# (b) and (c) recover work_a/work_b with their source lines, in the
# structure file and in the profile's database.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 1)
units=${REL_UNITS:-150}
command -v objcopy > /dev/null && command -v strip > /dev/null ||
    rel_skip "binutils (objcopy, strip) not installed"

rel_build full gcc "" serial.c
cp full stripped && strip --strip-all stripped
cp full split && objcopy --only-keep-debug split split.debug &&
    strip --strip-all split && objcopy --add-gnu-debuglink=split.debug split
bid=$(readelf -n full | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p')
check "full has a build-id ($bid)" [ -n "$bid" ]
mkdir -p dbg/.build-id/"${bid:0:2}"
cp full byid && objcopy --only-keep-debug byid dbg/.build-id/"${bid:0:2}"/"${bid:2}".debug &&
    strip --strip-all byid
mkdir -p nodbg
# debugdir VARIANT: the debug root csprof-struct/csprof-prof search for it;
# only byid's has a debug file (stripped has the same build-id: it must not see it).
debugdir() { if [ "$1" = byid ]; then echo "$work/dbg"; else echo "$work/nodbg"; fi; }

rel_plain base ./full "$units"
for v in stripped split byid; do
    CSPROF_DEBUG_DIR=$(debugdir $v) csprof-struct "./$v" > "$v.struct" 2> "$v.struct.err"
    check "$v: csprof-struct exits 0" [ $? -eq 0 ]
    check "$v: structure file is well-formed" xmllint --noout "$v.struct"
done
# (a) no names but .dynsym (none for these static functions) and module+0x...
check "stripped: no work_a without symbols" [ "$(grep -c 'n="work_a"' stripped.struct)" -eq 0 ]
check "stripped: procedures named stripped+0x..." grep -q 'n="stripped+0x[0-9a-f]*"' stripped.struct
# (b)(c): names and lines through the debuglink and the build-id directory
for v in split byid; do
    check "$v: work_a recovered" grep -q "<P [^>]*n=\"work_a\"" "$v.struct"
    check "$v: work_a has source lines" \
        [ "$(xmllint --xpath "count(//P[@n='work_a']//S[@l])" "$v.struct" 2> /dev/null)" -gt 0 ]
done

for ((r = 1; r <= runs; r++)); do
    for v in stripped split byid; do
        rel_prof $v$r m$v$r "./$v" "$units"
        check "$v run $r: output and exit status identical" rel_same $v$r base
        export CSPROF_DEBUG_DIR
        CSPROF_DEBUG_DIR=$(debugdir $v)
        check "$v run $r: database" rel_db m$v$r db$v$r || continue
        n=$(rel_summary db$v$r samples) rooted=$(rel_summary db$v$r rooted-samples)
        check "$v run $r: samples recorded ($n)" [ "${n:-0}" -gt 0 ]
        check "$v run $r: rooted at the process entry >= 0.95 ($rooted of $n)" \
            awk -v a="${rooted:-0}" -v n="${n:-0}" 'BEGIN { exit !(n > 0 && a >= 0.95 * n) }'
        if [ "$v" = stripped ]; then
            check "$v run $r: hottest procedure named stripped+0x..." \
                grep -q '^ *1 .*  stripped+0x[0-9a-f]*$' db$v$r.log
        else
            a=$(incl_of db$v$r CPUTIME work_a) b=$(incl_of db$v$r CPUTIME work_b)
            check "$v run $r: work_a / work_b in [1.5, 2.7] ($a s / $b s)" \
                awk -v a="$a" -v b="$b" 'BEGIN { exit !(b > 0 && a / b >= 1.5 && a / b <= 2.7) }'
        fi
    done
done
finish
