#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The repository stands alone: no tracked file refers to files outside it
# (the design, style and papers are docs/design.md, docs/style.md and
# docs/references.md), papers are cited by their key in docs/references.md,
# and every relative link in README.md and docs/*.md names a file that exists.
cd "$(dirname "$0")/.." || exit 1
fail=0
if git rev-parse --git-dir > /dev/null 2>&1; then
    files=$(git ls-files | grep -v '^test/check_standalone\.sh$')
else
    files=$(find . -type f -not -path './build*' -not -path './.git/*' | sed 's|^\./||' |
        grep -v '^test/check_standalone\.sh$')
fi
# (the pattern is split so that this script does not match itself)
outside=$(echo "$files" | xargs grep -n -I -E '\.\./'"shared|/work/"'shared|seed 00[0-9]' 2> /dev/null)
if [ -n "$outside" ]; then
    echo "FAILED: references outside the repository or to a paper by file:"
    echo "$outside"
    fail=1
fi
# [key] citations: each key used must be one docs/references.md defines
keys=$(sed -n 's/^| \(\[[^]]*\]\) |.*/\1/p' docs/references.md)
for k in '[csprof 2004]' '[csprof 2005]' '[HPCView]' '[Catch]' '[TAU callstacks]'; do
    echo "$keys" | grep -qxF "$k" || { echo "FAILED: docs/references.md does not define $k"; fail=1; }
done
# relative links in the user's guide and the manuals
for md in README.md docs/*.md; do
    dir=$(dirname "$md")
    while IFS= read -r target; do
        path=${target%%#*}
        [ -z "$path" ] && continue
        case "$path" in http:* | https:* | mailto:*) continue ;; esac
        [ -e "$dir/$path" ] || { echo "FAILED: $md links to $target, which does not exist"; fail=1; }
    done < <(grep -o '](\([^)]*\))' "$md" | sed 's/^](\(.*\))$/\1/')
done
echo "$([ $fail -eq 0 ] && echo 1 || echo 0) passed, $fail failed"
exit $fail
