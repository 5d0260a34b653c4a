#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# placeholder_data.py N -- print a viewer data file (window.CSPROF_DB, the
# format of share/schemas/viewer-data.md) of N synthetic calling-context
# nodes in preorder (depth up to 60, skewed fan-out), for timing
# placeholder.html while csprof-prof writes no viewer.  Deterministic.
import json
import random
import sys

n = int(sys.argv[1])
rng = random.Random(7)
names = ['proc_%d_%s' % (i, 'x' * (20 + i % 30)) for i in range(20000)]
parent_delta, kind, name, self_ = [0], [0], [0], [0]
stack = [0]  # path of node indices from the root
for i in range(1, n):
    # go up a skewed number of levels, then add a child (depth <= 60)
    up = int(len(stack) * rng.random() ** 6) if len(stack) > 1 else 0
    if len(stack) >= 60:
        up = max(up, 1)
    del stack[len(stack) - up:]
    if not stack:
        stack = [0]
    parent_delta.append(i - stack[-1])
    kind.append(1 + (i % 7 == 0) * 2)
    name.append(int(len(names) * rng.random() ** 2))
    self_.append(rng.randrange(0, 5) * 1000000)
    stack.append(i)
data = {'format': 1, 'program': 'placeholder', 'metrics': [{'name': 'CPUTIME', 'unit': 's', 'rawUnit': 'ns',
        'rawPerUnit': 1e9}], 'strings': names, 'n': n, 'parentDelta': parent_delta, 'kind': kind,
        'name': name, 'self': [self_]}
sys.stdout.write('window.CSPROF_DB = ')
json.dump(data, sys.stdout, separators=(',', ':'))
sys.stdout.write(';\n')
