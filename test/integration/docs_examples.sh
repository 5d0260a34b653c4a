#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The guide's examples run (docs_examples.py): README's quick start (its four commands, in
# demo order, on examples/fig1), then every "$ ..." example of README's tools section and
# docs/csprof-report.md's examples on the Figure 1 database, each checked for its exit status
# and for the lines the example shows (numbers aside).  A sampled run can differ (a trust
# verdict under heavy load), so a failing sequence is run once more in a fresh directory.
# Then docs/trust.md's report of a Figure 1 run and docs/csrun.md's runs kept apart (two runs
# of one program: the refusals, --append, --runs separate), on Figure 1 as ./app.
# The manuals' other examples need programs the test does not build (MPI rings, another
# build of a program, hardware events); they are counted and named as not run here.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
src=$CSPROF_SOURCE
ex=$here/docs_examples.py
export src ex

quick() { # quick DIR: the quick start's workflow block
    rm -rf "$1" && mkdir "$1" && cp "$CSPROF_EXAMPLES/fig1" "$1/" &&
        python3 "$ex" "$1" "$src/README.md" -csrun
}
tools() { # tools DIR: README's tool examples, then csprof-report.md's on the same database
    rm -rf "$1" && mkdir "$1" && cp "$CSPROF_EXAMPLES/fig1" "$1/" &&
        csprof-struct "$1/fig1" > "$1/fig1.struct" &&
        python3 "$ex" "$1" "$src/README.md" &&
        python3 "$ex" "$1" "$src/docs/csprof-report.md" "csprof-report db" &&
        python3 "$ex" "$1" "$src/docs/csprof-report.md" "csprof-report --view bottom-up"
}
trust() { # trust DIR: docs/trust.md's run, database and quality view
    rm -rf "$1" && mkdir "$1" && cp "$CSPROF_EXAMPLES/fig1" "$1/" &&
        python3 "$ex" "$1" "$src/docs/trust.md"
}
runs() { # runs DIR: docs/csrun.md's two runs of one program, refused, appended, separated
    rm -rf "$1" && mkdir "$1" && cp "$CSPROF_EXAMPLES/fig1" "$1/app" &&
        python3 "$ex" "$1" "$src/docs/csrun.md" "csrun ./app; csrun ./app" &&
        python3 "$ex" "$1" "$src/docs/csrun.md" "csrun -q --append ./app" &&
        python3 "$ex" "$1" "$src/docs/csrun.md" "csprof-prof measurements -o db" &&
        python3 "$ex" "$1" "$src/docs/csrun.md" "csprof-prof --runs separate"
}
check "README's quick start block runs (each command exits 0)" bash -c "$(declare -f quick); quick q1 || quick q2"
check "README's and docs/csprof-report.md's examples print what they show" \
    bash -c "$(declare -f tools); tools t1 || { echo '(once more)'; tools t2; }"
check "docs/trust.md's examples print what they show" \
    bash -c "$(declare -f trust); trust r1 || { echo '(once more)'; trust r2; }"
check "docs/csrun.md's runs-kept-apart examples print what they show" \
    bash -c "$(declare -f runs); runs s1 || { echo '(once more)'; runs s2; }"
n=0
for md in "$src"/docs/*.md; do
    c=$(grep -cE '^\s*\$ ' "$md")
    n=$((n + c))
done
echo "note: $n example commands in docs/*.md, of which 9 are run here (the others need an MPI program, a second build of a program or a PMU, which this test does not build)"
finish
