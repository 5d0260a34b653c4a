// SPDX-License-Identifier: BSD-3-Clause
// The conformance corpus (test/conformance/cases.json), the viewer's side:
// each case's database turned into a viewer database (csprof-prof
// --refresh-viewer), its viewer/data.js loaded into the viewer's model
// (share/viewer/model.js, in node), the case's transforms applied as the
// viewer applies them (M.buildView) and the view's rows put in the
// corpus's normal form (cases.json, "rows"), compared with the case's
// hand-derived "expect".  The report's side is conformance_report.py.
//
//   node conformance_viewer.js CSPROF_PROF SRC GENERATED OUT
//
// (SRC the source tree, GENERATED the databases made at test time by
// threads_db.sh, OUT a scratch directory)
'use strict';
const child_process = require('child_process');
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const [prof, srcDir, gen, out] = process.argv.slice(2);
const M = require(path.join(srcDir, 'share', 'viewer', 'model.js'));
const corpus = JSON.parse(fs.readFileSync(path.join(srcDir, 'test', 'conformance', 'cases.json'), 'utf8'));

async function viewerDb(name, xml) {
  const d = path.join(out, name);
  if (xml.startsWith('generated:')) { // made by csprof-prof at test time (threads_db.sh)
    fs.cpSync(path.join(gen, xml.slice('generated:'.length)), d, { recursive: true });
  } else {
    fs.mkdirSync(d, { recursive: true });
    fs.copyFileSync(path.join(srcDir, xml), path.join(d, 'experiment.xml'));
  }
  const r = child_process.spawnSync(prof, ['--refresh-viewer', d], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${prof} --refresh-viewer ${d}: exit ${r.status}: ${r.stderr}`);
  const sandbox = { window: {} };
  vm.runInNewContext(fs.readFileSync(path.join(d, 'viewer', 'data.js'), 'utf8'), sandbox);
  const src = M.load(await M.unpack(sandbox.window.CSPROF_DB));
  if (src.data.threadsScript) { // per-thread values, as the viewer loads them when first needed
    const sb = { window: {} };
    vm.runInNewContext(fs.readFileSync(path.join(d, 'viewer', src.data.threadsScript), 'utf8'), sb);
    src.threadsIdx = M.threadIndex(await M.unpack(sb.window.CSPROF_THREADS));
  }
  return src;
}

// per procedure: its value in each thread and the statistics (M.stats)
// (viewer/threads.js holds the values in the metric's display unit)
function threads(src, mm, procs) {
  const rows = {};
  for (const p of procs) {
    const x = M.threadValuesOf(src.threadsIdx, p, mm.m);
    if (!x) continue;
    const s = M.stats(x);
    rows[p] = x;
    rows[p + ' statistics'] = [s.n, s.sum, s.mean, s.min, s.max, s.sd, s.cv];
  }
  return rows;
}

// a node's name in the normal form: frames and inlined frames with the line
// of their call site (@LINE) when known
// (not on the top level: a focused frame's call site is outside the view)
function label(t, i) {
  const k = M.KIND_NAMES[t.kind[i]], n = M.nameOf(t, i), at = t.csLine[i] > 0 && t.parent[i] > 0 ? '@' + t.csLine[i] : '';
  return k === 'inline' ? '[inline] ' + n + at : k === 'frame' ? n + at : n;
}

// the metric's index in the viewer's data and its scale to the report's unit
function metricOf(src, name) {
  const m = name ? src.metrics.findIndex((x) => x.name === name) : 0;
  if (m < 0) throw new Error(`no metric ${name}`);
  return { m: m, scale: src.metrics[m].rawPerUnit || 1 };
}

function topDown(t, mm) {
  const { m, scale } = mm;
  const rows = { '(root)': [t.incl[m][0] / scale, t.self[m][0] / scale, 0] };
  const pathOf = new Array(t.n);
  pathOf[0] = '';
  for (let i = 1; i < t.n; i++) {
    const p = t.parent[i];
    pathOf[i] = (p > 0 ? pathOf[p] + ' > ' : '') + label(t, i);
  }
  for (let i = 1; i < t.n; i++) rows[pathOf[i]] = [t.incl[m][i] / scale, t.self[m][i] / scale, t.calls[i]];
  return { rows: rows, pathOf: pathOf };
}

// a derived metric (the database's, csprof-prof -M) on each top-down row's own
// inclusive and exclusive values, as the viewer shows its columns
function derived(t, name) {
  const src = t.src, def = src.data.derived.find((x) => x.name === name);
  const dm = M.derivedMetric(src, name, def.formula), { pathOf } = topDown(t, { m: 0, scale: 1 }), rows = {};
  const nm = src.metrics.length;
  for (let i = 1; i < t.n; i++) {
    const incl = [], self = [];
    for (let m = 0; m < nm; m++) { incl.push(t.incl[m][i]); self.push(t.self[m][i]); }
    rows[pathOf[i]] = [M.derivedValue(src, dm, incl, self, t.calls[i], true), M.derivedValue(src, dm, incl, self, t.calls[i], false)];
  }
  return rows;
}

function bottomUp(t, mm) {
  const { m, scale } = mm, rows = {};
  for (const g of M.bottomUpRoots(t)) {
    const k = (M.KIND_NAMES[g.kind] === 'inline' ? '[inline] ' : '') + g.name;
    rows[k] = [g.incl[m] / scale, g.self[m] / scale, g.calls];
    for (const c of M.bottomUpCallers(t, g)) {
      const ck = k + ' < ' + (M.KIND_NAMES[c.kind] === 'inline' ? '[inline] ' : '') + c.name;
      const r = rows[ck] || (rows[ck] = [0, 0]);
      r[0] += c.incl[m] / scale;
      r[1] += c.self[m] / scale;
    }
  }
  return rows;
}

// flat rows of one kind: the model's flat tree is module > file > procedure > loop > statement
const FLAT_DEPTH = { module: 1, file: 2, procedure: 3 };
function flat(t, mm, by) {
  const { m, scale } = mm, rows = {};
  (function walk(r, d) {
    const k = M.KIND_NAMES[r.kind];
    const take = FLAT_DEPTH[by] !== undefined ? d === FLAT_DEPTH[by] : by === 'loop' ? k === 'loop' : k === 'statement';
    if (take) {
      const key = k === 'inline' ? '[inline] ' + r.name : r.name;
      const x = rows[key] || (rows[key] = [0, 0]);
      x[0] += r.incl[m] / scale;
      x[1] += r.self[m] / scale;
    }
    for (const c of r.children) walk(c, d + 1);
  })(M.flat(t), 0);
  return rows;
}

// differential: the current's contexts with their matched base values (the
// base's contexts missing from the current added by M.baseOnly), and, as
// the viewer gives it (viewer.js shareChange) when the metric is samples,
// the interval of the change of share in percent points at the Bonferroni
// quantile of the contexts with samples in either run
function diff(cur, base, mm) {
  const match0 = M.matchTrees(cur, base);
  const ext = M.baseOnly(cur, base, match0);
  const t = ext.t, bv = M.baseValues(t, base, ext.match);
  const { m, scale } = mm;
  const { pathOf } = topDown(t, mm);
  const sig = t.src.metrics[m].name === 'samples';
  let tests = 0;
  for (let i = 1; i < t.n; i++) if (t.incl[m][i] > 0 || bv.incl[m][i] > 0) tests++;
  const n1 = bv.incl[m][0], n2 = t.incl[m][0], z = M.diffZ(tests), rows = {};
  for (let i = 1; i < t.n; i++) {
    const x1 = bv.incl[m][i], x2 = t.incl[m][i];
    const row = [x1 / scale, x2 / scale];
    const iv = sig ? M.diffInterval(x1, n1, x2, n2, z) : null;
    if (iv) row.push(100 * iv[0], 100 * iv[1]);
    rows[pathOf[i].replace(/\[inline\] /g, '')] = row;
  }
  return rows;
}

function same(a, b) { return Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b)); }

function compare(name, got, want) {
  const bad = [];
  for (const k of [...new Set([...Object.keys(got), ...Object.keys(want)])].sort()) {
    const g = got[k], w = want[k];
    if (!g || !w || g.length !== w.length || !g.every((x, i) => same(x, w[i])))
      bad.push(`${name}: row ${JSON.stringify(k)}: viewer ${g ? JSON.stringify(g) : '(none)'}, expected ${w ? JSON.stringify(w) : '(none)'}`);
  }
  return bad;
}

(async function main() {
  fs.rmSync(out, { recursive: true, force: true });
  const srcs = {};
  for (const [name, xml] of Object.entries(corpus.databases)) srcs[name] = await viewerDb(name, xml);
  let ran = 0;
  const skipped = {}, failed = [], known = [], seenT = new Set(), seenV = new Set();
  for (const c of corpus.cases) {
    if (c.only === 'report') { skipped[c.reason] = (skipped[c.reason] || 0) + 1; continue; }
    const src = srcs[c.db], mm = metricOf(src, c.metric), tr = c.transforms || [];
    for (const x of tr) seenT.add(x.t);
    seenV.add(c.derived ? 'derived' : c.view + (c.by ? ' by ' + c.by : ''));
    const t = M.buildView(src, tr);
    let got;
    if (c.derived) got = derived(t, c.derived);
    else if (c.view === 'top-down') got = topDown(t, mm).rows;
    else if (c.view === 'bottom-up') got = bottomUp(t, mm);
    else if (c.view === 'flat') got = flat(t, mm, c.by);
    else if (c.view === 'threads') got = threads(src, mm, c.procedures);
    else if (c.view === 'diff') got = diff(t, M.buildView(srcs[c.base], tr), mm);
    else throw new Error(`${c.name}: view ${c.view}`);
    const bad = compare(c.name, got, c.expect);
    ran++;
    if (c.known_diff && c.known_diff.side === 'viewer') {
      console.log(`known difference ${c.name}: ${c.known_diff.reason}`);
      if (!bad.length) failed.push(`${c.name}: marked known_diff on the viewer's side but the viewer now agrees: remove the mark`);
      known.push(c.name);
      continue;
    }
    failed.push(...bad);
  }
  // every transform of the model's list in some case
  for (const x of M.TRANSFORMS) if (!seenT.has(x)) failed.push(`no case uses transform ${x}`);
  // and every view
  for (const v of ['top-down', 'bottom-up', 'flat by procedure', 'flat by file', 'flat by module', 'flat by loop', 'flat by line', 'threads', 'diff', 'derived'])
    if (!seenV.has(v)) failed.push(`no case shows view ${v}`);
  for (const f of failed) console.log('MISMATCH ' + f);
  console.log(`conformance_viewer: ${ran} case(s) run, ${known.length} known difference(s) (${known.join(', ') || 'none'}); views: ${[...seenV].join(', ')}`);
  for (const [why, n] of Object.entries(skipped)) console.log(`  skipped ${n}: ${why}`);
  process.exit(failed.length ? 1 : 0);
})().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
