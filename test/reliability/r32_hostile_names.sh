#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Row 32: hostile names.  programs/hostile.c has functions whose symbols are
# "</script><img src=x onerror=alert(1)>", "q';&<>;x", control bytes with an
# ANSI escape and invalid UTF-8, and a 4 KiB name; built once without DWARF
# (names come from the symbol table) and once with DWARF from a source file
# whose name holds invalid UTF-8, an escape sequence, a double quote and a
# newline.  The structure files and the databases validate against their
# DTDs (xmllint), csprof-prof -S accepts the structure file, no raw "<img"
# reaches the XML, and csprof-prof's terminal output is valid UTF-8 with no
# control bytes and one line per top-procedure entry, each hostile byte
# shown as \xNN.  (csprof writes no JSON, folded or HTML output.)
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 1)
command -v iconv > /dev/null || rel_skip "iconv not installed"
src=$(printf 'hostile\377\033[31m"q\nnl.c')
cp "$rel_dir/programs/hostile.c" "$work/$src"
rel_build syms gcc "-g0" hostile.c
rel_build dwarf gcc "" "$work/$src"
rel_plain base ./syms
check "baseline exits 0" [ "$(cat base.rc)" -eq 0 ]

# clean_text FILE: valid UTF-8 and no control byte other than newline and tab.
clean_text() {
    iconv -f UTF-8 -t UTF-8 "$1" > /dev/null 2>&1 || { echo "  $1: not valid UTF-8"; return 1; }
    [ "$(LC_ALL=C tr -d '\n\t\040-\176\200-\377' < "$1" | wc -c)" -eq 0 ] && return 0
    echo "  $1: raw control bytes:"
    LC_ALL=C grep -n -a '[[:cntrl:]]' "$1" | head -n 3 | cat -A | cut -c1-120
    return 1
}

for v in syms dwarf; do
    csprof-struct "./$v" > "$v.struct" 2> "$v.struct.err"
    check "$v: csprof-struct exits 0" [ $? -eq 0 ]
    check "$v: structure file validates" \
        xmllint --noout --dtdvalid "$CSPROF_SCHEMAS/csprof-structure.dtd" "$v.struct"
    check "$v: no raw <img in the structure file" [ "$(grep -c '<img' "$v.struct")" -eq 0 ]
    check "$v: control name escaped in the structure file" \
        grep -qF 'ctl\x01\x1b[31mred\xff\xfeend' "$v.struct"
done
check "dwarf: source file name escaped (newline and all)" \
    grep -qF 'hostile\xff\x1b[31m&quot;q\x0anl.c' dwarf.struct

for ((r = 1; r <= runs; r++)); do
    for v in syms dwarf; do
        rel_prof $v$r m$v$r ./$v
        check "$v run $r: output and exit status identical" rel_same $v$r base
        rm -rf db$v$r
        csprof-prof --summary full -S "$v.struct" -o db$v$r m$v$r > db$v$r.out 2> db$v$r.err
        check "$v run $r: csprof-prof -S exits 0" [ $? -eq 0 ]
        check "$v run $r: database validates" validate db$v$r
        check "$v run $r: no raw <img or <script in the database" \
            [ "$(grep -c '<img\|<script' db$v$r/experiment.xml)" -eq 0 ]
        check "$v run $r: summary is clean text" clean_text db$v$r.out
        check "$v run $r: messages are clean text" clean_text db$v$r.err
        # every line of the top-procedures list is one entry
        bad=$(sed -n '/^top [0-9]* procedures/,/^top [0-9]* call paths/p' db$v$r.out |
            sed '1d;$d' | grep -cvE '^ +[0-9]+ +[0-9.]+%  ')
        check "$v run $r: one line per top procedure ($bad stray lines)" [ "$bad" -eq 0 ]
        if [ $v = syms ]; then
            for name in '</script><img src=x onerror=alert(1)>' "q';&<>;x" \
                'ctl\x01\x1b[31mred\xff\xfeend' "$(printf 'A%.0s' $(seq 4096))"; do
                check "$v run $r: top procedure ${name:0:40}" \
                    grep -qE "^ +[0-9]+ +[0-9.]+%  .*  $(printf '%s' "$name" | sed 's/[][\\.*^$()+?{}|]/\\&/g')\$" db$v$r.out
            done
        fi
    done
done
finish
