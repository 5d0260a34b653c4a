#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Rebuilt binary (issue 7 item 12; reliability.md B "changed binaries"): the
# row 1 program is profiled, its structure file saved, then the binary is
# rebuilt from different code (other addresses, other build-id).  csprof-prof
# must not attribute the measured addresses through the new file: the module
# is reported as changed (stderr warning and summary line with both
# build-ids), no procedure of the new file is named, and the samples stay as
# serial+0xOFFSET.  The same holds with -S of the new binary's structure; with
# -S of the structure saved before the rebuild (same build-id as measured),
# the names are right again.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 1)
units=${REL_UNITS:-80}

rel_build serial gcc "" serial.c
csprof-struct ./serial > old.struct 2> /dev/null
check "structure of the measured binary" [ -s old.struct ]
rel_plain base ./serial "$units"
for ((r = 1; r <= runs; r++)); do
    rel_build serial gcc "" serial.c # the measured build
    rel_prof p$r m$r ./serial "$units"
    check "run $r: output and exit status identical" rel_same p$r base
    # rebuild: a different program at the same path
    rel_build serial gcc "-O0" serial.c
    csprof-struct ./serial > new.struct 2> /dev/null
    for how in file S-new S-old; do
        opts=()
        [ $how = S-new ] && opts=(-S new.struct)
        [ $how = S-old ] && opts=(-S old.struct)
        rm -rf db$r$how
        csprof-prof --summary full "${opts[@]}" -o db$r$how m$r > db$r$how.out 2> db$r$how.err
        check "run $r $how: csprof-prof exits 0" [ $? -eq 0 ]
        check "run $r $how: database validates" validate db$r$how
        lm=$(xp db$r$how "string(//LoadModule[substring(@n, string-length(@n) - 6) = '/serial']/@structure)")
        named=$(xp db$r$how "count(//Procedure[@n='work_a' or @n='work_b' or @n='burn'])")
        if [ $how = S-old ]; then
            check "run $r $how: module structure from the saved file ($lm)" [ "$lm" = file ]
            check "run $r $how: work_a, work_b, burn named ($named)" [ "$named" -ge 2 ]
            continue
        fi
        check "run $r $how: module reported as changed ($lm)" [ "$lm" = changed ]
        check "run $r $how: no procedure named from the new file ($named)" [ "$named" -eq 0 ]
        check "run $r $how: warning names the change" grep -q "serial: changed since the measurement" db$r$how.err
        check "run $r $how: summary names the changed module" \
            grep -q "^modules changed since the measurement: 1 " db$r$how.out
        n=$(xp db$r$how "string(//Summary/@samples)") c=$(xp db$r$how "string(//Summary/@changed-samples)")
        check "run $r $how: samples kept as serial+0xOFFSET ($c of $n)" \
            awk -v c="${c:-0}" -v n="${n:-0}" 'BEGIN { exit !(n > 0 && c >= 0.9 * n) }'
        check "run $r $how: hottest procedure is serial+0x..." \
            grep -qE '^ +1 +[0-9.]+%  .*  serial\+0x[0-9a-f]+$' db$r$how.out
    done
done
finish
