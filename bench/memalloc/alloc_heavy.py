# SPDX-License-Identifier: BSD-3-Clause
# An allocation-heavy Python workload for bench/memalloc/run.sh: build a list
# of dicts with long strings, then serialise and parse it as JSON a few times
# (strings over 512 bytes and the JSON text go through malloc, not pymalloc).
import json
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 30000
data = [{"id": i, "name": ("item%d" % i) * 40, "vals": list(range(i % 60))} for i in range(n)]
text = json.dumps(data)
for _ in range(4):
    back = json.loads(text)
    text = json.dumps(back)
print(len(text))
