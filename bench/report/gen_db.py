#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""gen_db.py OUT_DIR [TARGET_MB] -- a synthetic experiment database of about
TARGET_MB megabytes (default 10), shaped like csprof-prof's output (see
share/schemas/experiment.dtd): 2000 procedures, a calling-context tree of
PF/C/L/S nodes with call paths up to 40 frames deep, CPUTIME and samples
metrics.  Deterministic (fixed seed), for bench/report/run.sh."""
import os
import random
import sys

out, target = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
random.seed(1)
NPROC = 2000
os.makedirs(out, exist_ok=True)
parts = []
w = parts.append
nid = [0]


def node_id():
    nid[0] += 1
    return nid[0]


def frame(depth, budget):
    """A PF subtree; returns (xml, samples)."""
    p = random.randrange(NPROC)
    i = node_id()
    body, total = [], 0
    # statements of its own (sometimes inside a loop)
    for _ in range(random.randint(1, 3)):
        s = random.randint(1, 20)
        total += s
        line = random.randint(1, 500)
        st = '<S i="%d" f="0" l="%d"><M n="0" v="%.9f"/><M n="1" v="%.9f"/><M n="2" v="%d"/><M n="3" v="%d"/></S>' % (
            node_id(), line, s * 0.005, s * 0.005, s, s)
        if random.random() < 0.3:
            st = '<L i="%d" f="0" l="%d"><M n="0" v="%.9f"/><M n="1" v="%.9f"/><M n="2" v="%d"/><M n="3" v="%d"/>%s</L>' % (
                node_id(), line, s * 0.005, s * 0.005, s, s, st)
        body.append(st)
    excl = total
    if depth < 40 and budget > 1:
        for _ in range(random.choice([0, 1, 1, 2, 3])):
            sub, st = frame(depth + 1, budget // 2)
            total += st
            body.append('<C i="%d" f="0" l="%d"><M n="0" v="%.9f"/><M n="2" v="%d"/><M n="4" v="%d"/>%s</C>' % (
                node_id(), random.randint(1, 500), st * 0.005, st, random.randint(1, 9), sub))
    return ('<PF i="%d" n="%d" lm="0" f="0" l="1"><M n="0" v="%.9f"/><M n="1" v="%.9f"/><M n="2" v="%d"/><M n="3" v="%d"/>%s</PF>\n'
            % (i, p, total * 0.005, excl * 0.005, total, excl, "".join(body)), total)


roots, total, size = [], 0, 0
while size < target * 1e6:
    x, s = frame(0, 64)
    roots.append(x)
    total += s
    size += len(x)
w('<?xml version="1.0"?>\n<csprof-experiment version="1.0">\n<Header n="synthetic"><Info/></Header>\n')
w('<Summary files="1" files-read="1" files-skipped="0" threads="1" processes="1" samples="%d" samples-in-main="0" '
  'main-percent="0" rooted-samples="%d" rooted-percent="100" unknown-samples="0" cpu-seconds="%.3f" calls="0">'
  '<Inputs/><Stats/><TopProcedures by="samples" unit="samples"/><TopPaths by="samples" unit="samples"/></Summary>\n'
  % (total, total, total * 0.005))
w('<SecCallPathProfile i="0" n="synthetic"><SecHeader><MetricTable>\n')
w('<Metric i="0" n="CPUTIME (I)" t="inclusive" event="CPUTIME" unit="s" partner="1" raw-unit="ns" period="5000000"/>\n')
w('<Metric i="1" n="CPUTIME (E)" t="exclusive" event="CPUTIME" unit="s" partner="0" raw-unit="ns" period="5000000"/>\n')
w('<Metric i="2" n="samples (I)" t="inclusive" event="samples" unit="samples" partner="3"/>\n')
w('<Metric i="3" n="samples (E)" t="exclusive" event="samples" unit="samples" partner="2"/>\n')
w('<Metric i="4" n="calls (sampled)" t="exclusive" event="calls" unit="calls"/>\n')
w('</MetricTable><LoadModuleTable><LoadModule i="0" n="/synthetic" structure="analyzed"/></LoadModuleTable>\n')
w('<FileTable><File i="0" n="synthetic.c"/></FileTable><ProcedureTable>\n')
for p in range(NPROC):
    w('<Procedure i="%d" n="proc_%d" lm="0" f="0" l="%d"/>\n' % (p, p, p + 1))
w('</ProcedureTable></SecHeader>\n<SecCallPathProfileData><M n="0" v="%.9f"/><M n="2" v="%d"/>\n' % (total * 0.005, total))
parts.extend(roots)
w('</SecCallPathProfileData></SecCallPathProfile>\n</csprof-experiment>\n')
with open(os.path.join(out, "experiment.xml"), "w") as f:
    f.write("".join(parts))
print("%s: %d nodes, %d samples" % (out, nid[0], total))
