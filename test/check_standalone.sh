#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The repository stands alone: no tracked file refers to files outside it
# (the design, style and papers are docs/design.md, docs/style.md and
# docs/references.md), papers are cited by their key in docs/references.md,
# and every relative link in README.md, docs/*.md and bench/README.md names a file that
# exists (and a heading of it, for an #anchor).
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
# relative links in the user's guide, the manuals and the benchmarks' page: the file exists and,
# for a link to a Markdown file with #anchor, a heading of that file has that anchor (GitHub's
# rule: lower case, punctuation but - and _ dropped, spaces to -)
bad=$(python3 - README.md docs/*.md bench/README.md <<'PY'
import os, re, sys
def anchors(path):
    out, seen = set(), {}
    infence = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            infence = not infence
        m = None if infence else re.match(r"^#{1,6} (.*?)\s*$", line)
        if m:
            a = re.sub(r"[^\w\- ]", "", m.group(1).lower().replace("`", "")).replace(" ", "-")
            n = seen.get(a, 0)
            seen[a] = n + 1
            out.add(a if n == 0 else "%s-%d" % (a, n))
    return out
for md in sys.argv[1:]:
    text = open(md, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in re.findall(r"\]\(([^)\s]*)\)", text):
        if re.match(r"^(https?:|mailto:)", target):
            continue
        path, _, anchor = target.partition("#")
        f = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
        if not os.path.exists(f):
            print("%s links to %s, which does not exist" % (md, target))
        elif anchor and f.endswith(".md") and anchor not in anchors(f):
            print("%s links to %s: %s has no heading with that anchor" % (md, target, f))
PY
)
if [ -n "$bad" ]; then
    echo "$bad" | sed 's/^/FAILED: /'
    fail=1
fi
echo "$([ $fail -eq 0 ] && echo 1 || echo 0) passed, $fail failed"
exit $fail
