// SPDX-License-Identifier: BSD-3-Clause
// The bottom-up view's one definition (docs/views.md, "Bottom-up"), checked
// on each database given: the viewer's model (share/viewer/model.js, the
// database's own viewer data) and csprof-report --view bottom-up give the
// same procedure rows (inclusive, exclusive, calls in every metric) and the
// same direct callers, and both keep the invariants: exclusive <= inclusive
// in every row, the procedure rows' exclusive plus the cost in no frame sum
// to the total, no procedure row above the total (recursion counted once),
// a procedure's direct callers sum to its row.  A database whose
// experiment.xml has a sibling file expect.json also gets those exact rows.
//
//   node bottom_up_conformance.js CSPROF_REPORT DB...
//
// Each DB is a directory written by csprof-prof (experiment.xml and
// viewer/data.js).  No browser: the model runs in node.
'use strict';
const assert = require('assert');
const child_process = require('child_process');
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const M = require(path.join(__dirname, '..', '..', 'share', 'viewer', 'model.js'));

const [reportBin, ...dbs] = process.argv.slice(2);
if (!reportBin || dbs.length === 0) {
  console.error('usage: node bottom_up_conformance.js CSPROF_REPORT DB...');
  process.exit(2);
}

// The transforms both sides use: inlined frames kept, roots kept (the
// viewer does not elide them), loops hidden (the report's default) or kept
// (then loops are callers, never procedure rows).
const REPORT_ARGS = ['--view', 'bottom-up', '--format', 'json', '--limit', '0', '--threshold', '0',
  '--depth', '2', '--inlines', 'keep'];
// (the last: the report alone, with its default of eliding _start and the
// like, whose own cost is then the root's; the total and the cost in no
// frame from its top-down view)
const MODES = [{ name: 'loops hidden', args: ['--keep-roots', '--loops', 'hide'], transforms: [{ t: 'hide-loops' }] },
  { name: 'loops kept', args: ['--keep-roots', '--loops', 'keep'], transforms: [] },
  { name: 'roots elided, report only', args: ['--loops', 'hide'], transforms: null }];

function reportJson(db, extra) {
  const r = child_process.spawnSync(reportBin, [...REPORT_ARGS, ...extra, db], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${reportBin} ${REPORT_ARGS.join(' ')} ${db}: exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function viewerData(db) {
  const sandbox = { window: {} };
  vm.runInNewContext(fs.readFileSync(path.join(db, 'viewer', 'data.js'), 'utf8'), sandbox);
  return M.unpack(sandbox.window.CSPROF_DB);
}

function close(a, b, scale, what) {
  const tol = 1e-9 * Math.max(1, Math.abs(scale));
  assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b}`);
}

function key(kind, name) { return kind + ' ' + name; }

// Rows of the report: {key -> {incl[], excl[], calls, callers: {key -> {incl[], excl[], calls}}}},
// callers summed over call-site lines (the report keys them by line too).
function reportRows(j) {
  const byId = new Map(), rows = new Map();
  for (const n of j.nodes) {
    byId.set(n.id, n);
    const r = { incl: n.values.map((v) => v[0]), excl: n.values.map((v) => v[1]), calls: n.calls || 0, callers: new Map() };
    if (n.depth === 1) rows.set(key(n.kind, n.name), Object.assign(r, { id: n.id }));
  }
  const rowOf = new Map([...rows.values()].map((r) => [r.id, r]));
  for (const n of j.nodes) {
    if (n.depth !== 2) continue;
    const row = rowOf.get(n.parent);
    const k = key(n.kind, n.name);
    const c = row.callers.get(k) || { incl: n.values.map(() => 0), excl: n.values.map(() => 0), calls: 0 };
    n.values.forEach((v, m) => { c.incl[m] += v[0]; c.excl[m] += v[1]; });
    c.calls += n.calls || 0;
    row.callers.set(k, c);
  }
  return rows;
}

// The same from the model, in the report's units (value / rawPerUnit).
function viewerRows(t, metricOf) {
  const rows = new Map();
  const vals = (g, f) => metricOf.map((m) => (m < 0 ? NaN : g[f][m]));
  for (const g of M.bottomUpRoots(t)) {
    const r = { incl: vals(g, 'incl'), excl: vals(g, 'self'), calls: g.calls, callers: new Map() };
    for (const c of M.bottomUpCallers(t, g)) {
      const k = key(M.KIND_NAMES[c.kind], c.name);
      const x = r.callers.get(k) || { incl: metricOf.map(() => 0), excl: metricOf.map(() => 0), calls: 0 };
      vals(c, 'incl').forEach((v, m) => { x.incl[m] += v; });
      vals(c, 'self').forEach((v, m) => { x.excl[m] += v; });
      x.calls += c.calls;
      r.callers.set(k, x);
    }
    rows.set(key(M.KIND_NAMES[g.kind], g.name), r);
  }
  return rows;
}

function invariants(rows, total, outside, what) {
  const sum = total.map(() => 0);
  for (const [k, r] of rows) {
    r.incl.forEach((inc, m) => {
      close(Math.min(r.excl[m], inc), r.excl[m], total[m], `${what}: ${k} exclusive <= inclusive (metric ${m})`);
      close(Math.min(inc, total[m]), inc, total[m], `${what}: ${k} inclusive <= total (metric ${m})`);
      sum[m] += r.excl[m];
    });
    if (r.callers.size === 0) continue; // called from the root only
    for (const [ck, c] of r.callers) c.incl.forEach((inc, m) => close(Math.min(c.excl[m], inc), c.excl[m], total[m], `${what}: caller ${ck} of ${k} exclusive <= inclusive`));
  }
  sum.forEach((s, m) => close(s + outside[m], total[m], total[m], `${what}: procedure rows' exclusive + cost in no frame = total (metric ${m})`));
}

function sameRows(a, b, total, what) {
  assert.deepStrictEqual([...a.keys()].sort(), [...b.keys()].sort(), `${what}: the same procedure rows`);
  for (const [k, ra] of a) {
    const rb = b.get(k);
    ra.incl.forEach((v, m) => { close(v, rb.incl[m], total[m], `${what}: ${k} inclusive`); close(ra.excl[m], rb.excl[m], total[m], `${what}: ${k} exclusive`); });
    close(ra.calls, rb.calls, 1, `${what}: ${k} calls`);
    assert.deepStrictEqual([...ra.callers.keys()].sort(), [...rb.callers.keys()].sort(), `${what}: callers of ${k}`);
    for (const [ck, ca] of ra.callers) {
      const cb = rb.callers.get(ck);
      ca.incl.forEach((v, m) => { close(v, cb.incl[m], total[m], `${what}: caller ${ck} of ${k} inclusive`); close(ca.excl[m], cb.excl[m], total[m], `${what}: caller ${ck} of ${k} exclusive`); });
      close(ca.calls, cb.calls, 1, `${what}: caller ${ck} of ${k} calls`);
    }
  }
}

(async function main() {
  let checked = 0;
  for (const db of dbs) for (const mode of MODES) {
    const j = reportJson(db, mode.args);
    const d = await viewerData(db);
    const src = M.load(d);
    const t = M.buildView(src, mode.transforms || []);
    // the report's columns (events, samples) matched with the viewer's metrics by name
    const metricOf = j.columns.map((c) => d.metrics.findIndex((m) => m.name === c.event));
    const scale = metricOf.map((m) => (m < 0 ? 1 : d.metrics[m].rawPerUnit || 1));
    const cols = metricOf.map((m, c) => c).filter((c) => metricOf[c] >= 0);
    assert.ok(cols.length > 0, `${db}: no report column is a viewer metric`);
    const rep = reportRows(j), view = viewerRows(t, metricOf);
    for (const r of view.values()) {
      for (const x of [r, ...r.callers.values()]) for (const f of ['incl', 'excl']) x[f] = x[f].map((v, m) => v / scale[m]);
    }
    // only the columns both sides have
    for (const rows of [rep, view]) for (const r of rows.values()) for (const x of [r, ...r.callers.values()]) for (const f of ['incl', 'excl']) x[f] = cols.map((c) => x[f][c]);
    // the total and the cost in no frame of each column: the root of a report on that metric
    const roots = cols.map((c) => (!mode.transforms ? reportJson(db, [...mode.args, '--view', 'top-down', '--metric', j.columns[c].event]) : c === 0 ? j : reportJson(db, [...mode.args, '--metric', j.columns[c].event])).root);
    const total = roots.map((r) => r.inclusive), outside = roots.map((r) => r.exclusive);
    const what = path.basename(db) + ' (' + mode.name + ')';
    if (!mode.transforms) {
      invariants(rep, total, outside, what + ' (csprof-report)');
      console.log(`ok ${what}: ${rep.size} procedure rows; invariants hold`);
      continue;
    }
    cols.forEach((c, k) => close(t.incl[metricOf[c]][0] / scale[c], total[k], total[k], `${path.basename(db)}: viewer total of ${j.columns[c].event}`));
    invariants(rep, total, outside, what + ' (csprof-report)');
    invariants(view, total, outside, what + ' (viewer)');
    sameRows(rep, view, total, what + ': csprof-report vs viewer');
    const expect = path.join(db, 'expect.json');
    if (fs.existsSync(expect) && mode === MODES[0]) {
      // {"KIND NAME": [incl, excl, {"KIND CALLER": [incl, excl]}]} in the first column
      const want = JSON.parse(fs.readFileSync(expect, 'utf8'));
      const got = {};
      for (const [k, r] of rep) {
        const callers = {};
        for (const [ck, c] of r.callers) callers[ck] = [c.incl[0], c.excl[0]];
        got[k] = [r.incl[0], r.excl[0], callers];
      }
      assert.deepStrictEqual(got, want, `${what}: the rows of the definition (expect.json)`);
    }
    for (const k of rep.keys()) assert.ok(!k.startsWith('loop '), `${what}: ${k} is a procedure row`);
    console.log(`ok ${what}: ${rep.size} procedure rows, ${[...rep.values()].reduce((s, r) => s + r.callers.size, 0)} direct callers agree; invariants hold`);
    checked++;
  }
  console.log(`${checked} database(s) checked`);
})().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
