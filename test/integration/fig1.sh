#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Figure 1 of [csprof 2005] at -O2, profiled with the card's three commands verbatim:
# c's time splits 50/50 (+-10 points) between calls from a and from b, and at
# least 95% of samples are rooted at the process entry; output and exit status unchanged.
. "$(dirname "$0")/lib.sh"
cp "$CSPROF_EXAMPLES/fig1" ./app

./app > plain.out; plain_rc=$?
csrun ./app > prof.out; prof_rc=$?
check "exit status unchanged ($plain_rc)" [ "$plain_rc" -eq "$prof_rc" ]
check "output unchanged" cmp -s plain.out prof.out
check "csprof-struct ./app > app.struct" sh -c 'csprof-struct ./app > app.struct'
check "csprof-prof -S app.struct measurements/ -o db" sh -c 'csprof-prof -S app.struct measurements/ -o db > summary.txt'
check "database validates against experiment.dtd" validate db
check "structure validates against csprof-structure.dtd" \
    xmllint --noout --dtdvalid "$CSPROF_SCHEMAS/csprof-structure.dtd" app.struct

from_a=$(incl_under db CPUTIME c a); from_b=$(incl_under db CPUTIME c b)
total=$(awk -v a="$from_a" -v b="$from_b" 'BEGIN { print a + b }')
share_a=$(awk -v a="$from_a" -v t="$total" 'BEGIN { print (t > 0 ? 100 * a / t : 0) }')
echo "c under a: $from_a s, under b: $from_b s, a's share $share_a%"
check "c's time from a is 50% +-10 (got $share_a%)" between "$share_a" 40 60
all=$(incl_of db CPUTIME c)
check "c under a or b covers >= 90% of c ($total of $all s)" \
    awk -v t="$total" -v c="$all" 'BEGIN { exit !(c > 0 && t >= 0.9 * c) }'
mainpct=$(xp db 'string(//Summary/@rooted-percent)')
check "samples rooted at the thread entry >= 95% (got $mainpct%)" between "$mainpct" 95 100
finish
