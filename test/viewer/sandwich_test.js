// SPDX-License-Identifier: BSD-3-Clause
//
// sandwich_test.js -- which views the viewer has and how they open (issue 22,
// item 11), in headless Chromium, against csprof-report on the same
// databases:
//   - the sandwich view of a procedure (opened by the selected row's button,
//     a row's context menu and the view's search box; URL v=sandwich&p=NAME):
//     its totals equal csprof-report --focus '^NAME$' (inclusive: the roots
//     merged; recursion counted once) and the flat view's procedure row
//     (exclusive, calls); its callees tree equals the --focus tree merged by
//     name path; its callers tree equals the callers of the procedure's
//     outermost contexts in csprof-report's top-down tree.  On Figure 1 (c
//     called from a and b) and on test/report/mutual_recursion.xml (ping and
//     pong call each other: golden inclusive 95, exclusive 69 of ping);
//   - the flat view opens at procedures (the rows of csprof-report --view
//     flat), not at modules;
//   - loops are hidden by default in the tree views, as csprof-report's
//     default --loops hide, and the loops button shows them (the rows of
//     --loops keep) and hides them again, kept in the URL (lp=1).
//
// usage: node sandwich_test.js BIN_DIR FIG1_BINARY SOURCE_ROOT OUT_DIR
'use strict';
const assert = require('assert');
const child_process = require('child_process');
const fs = require('fs');
const path = require('path');
const cdp = require('./cdp.js');
const V = require('./viewer_lib.js');

const [bin, fig1, srcRoot, out] = process.argv.slice(2);
const reportBin = path.join(bin, 'csprof-report');

function run(cmd, args, cwd) {
  const r = child_process.spawnSync(cmd, args, { cwd: cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

// The rows of the table(s) inside @scope (CSS; default the page), each
// {name, depth, cols: {id: number}}: a cell's data-value (the raw value in
// the metric's unit) where the page gives one, else the number of its text.
async function table(page, scope) {
  return page.evaluate(`(() => {
    const root = ${scope ? `document.querySelector(${JSON.stringify(scope)})` : 'document'};
    if (!root) return [];
    return [...root.querySelectorAll('[data-name]')].map((r) => {
      const cols = {}, text = {};
      for (const c of r.querySelectorAll('[data-col]')) { text[c.dataset.col] = c.textContent; cols[c.dataset.col] = c.dataset.value; }
      return {name: r.dataset.name, depth: Number(r.dataset.depth || 0), cols, text};
    });
  })()`).then((rs) => rs.map((r) => {
    for (const k in r.text) r.cols[k] = r.cols[k] !== undefined ? Number(r.cols[k]) : V.num(r.text[k]);
    return r;
  }));
}
// values printed with 4 significant digits at worst (no data-value)
function near(a, b, what) {
  assert.ok(Math.abs(a - b) <= 1e-6 + 0.002 * Math.max(Math.abs(a), Math.abs(b)), `${what}: page ${a}, csprof-report ${b}`);
}
const rafs = 'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())))';
const isFrame = (n) => n.kind === 'frame' || n.kind === 'inline';

// Map(name path "a/b/c" -> summed inclusive) of csprof-report JSON @rep's
// nodes (a tree: parent ids), the path from the top node down.
function reportPaths(rep) {
  const byId = new Map(rep.nodes.map((n) => [n.id, n]));
  const out = new Map();
  for (const n of rep.nodes) {
    const p = [];
    for (let x = n; x; x = byId.get(x.parent)) p.unshift(x.name);
    const k = p.join('/');
    out.set(k, (out.get(k) || 0) + n.inclusive);
  }
  return out;
}
// the same of the page's rows (preorder, depth)
function pagePaths(rows) {
  const out = new Map(), stack = [];
  for (const r of rows) {
    stack.length = r.depth;
    stack.push(r.name);
    const k = stack.join('/');
    out.set(k, (out.get(k) || 0) + r.cols.incl);
  }
  return out;
}
// The callers of @name's outermost contexts in top-down report @rep (every
// row, --threshold 0): Map(path "name/caller/caller's caller..." -> summed
// inclusive), loops and statements on the way skipped.
function reportCallers(rep, name) {
  const byId = new Map(rep.nodes.map((n) => [n.id, n]));
  const out = new Map();
  for (const n of rep.nodes) {
    if (!isFrame(n) || n.name !== name) continue;
    let outer = true;
    for (let x = byId.get(n.parent); x; x = byId.get(x.parent)) if (isFrame(x) && x.name === name) outer = false;
    if (!outer) continue;
    const p = [name];
    out.set(name, (out.get(name) || 0) + n.inclusive);
    for (let x = byId.get(n.parent); x; x = byId.get(x.parent)) {
      if (!isFrame(x)) continue;
      p.push(x.name);
      const k = p.join('/');
      out.set(k, (out.get(k) || 0) + n.inclusive);
    }
  }
  return out;
}
function samePaths(page, rep, what) {
  for (const [k, v] of rep) {
    assert.ok(page.has(k), `${what}: ${k} (${v}) missing on the page; page has ${[...page.keys()].join(' | ')}`);
    near(page.get(k), v, `${what}: ${k}`);
  }
  for (const k of page.keys()) assert.ok(rep.has(k), `${what}: ${k} on the page, not in csprof-report`);
}

// The sandwich of @name now shown on @page against csprof-report on @db.
async function checkSandwich(page, db, name, what) {
  const st = await V.state(page);
  assert.strictEqual(st.view, 'sandwich', `${what}: the sandwich view`);
  assert.strictEqual(st.p, name, `${what}: the sandwich of ${name}`);
  const hash = await page.evaluate('location.hash');
  assert.ok(/(^#|&)v=sandwich(&|$)/.test(hash) && new URLSearchParams(hash.slice(1)).get('p') === name, `${what}: URL ${hash}`);
  await page.evaluate('window.csprofViewer.expandAll()');
  await page.evaluate(rafs);
  const common = ['--inlines', 'keep', '--keep-roots', '--threshold', '0', '--limit', '0'];
  const focus = V.report(reportBin, db, ['--view', 'top-down', '--focus', `^${name}$`, ...common]);
  const roots = focus.nodes.filter((n) => n.parent === 0);
  assert.ok(roots.length > 0 && roots.every((n) => n.name === name), `${what}: --focus ^${name}$ roots`);
  const incl = roots.reduce((s, n) => s + n.inclusive, 0);
  const flat = V.report(reportBin, db, ['--view', 'flat', ...common]).nodes.filter((n) => n.name === name);
  const excl = flat.reduce((s, n) => s + n.exclusive, 0), calls = flat.reduce((s, n) => s + n.calls, 0);
  const tot = await page.evaluate('Object.assign({}, document.getElementById("sandwich-totals").dataset)');
  near(Number(tot.incl), incl, `${what}: ${name}'s inclusive (outermost contexts, --focus merged)`);
  near(Number(tot.excl), excl, `${what}: ${name}'s exclusive (flat view)`);
  assert.strictEqual(Number(tot.calls), calls, `${what}: ${name}'s calls (flat view)`);
  // callees: the --focus tree merged by name path
  const callees = await table(page, '#sandwich-callees');
  assert.deepStrictEqual([...new Set(callees.filter((r) => r.depth === 0).map((r) => r.name))], [name], `${what}: callees start at ${name}`);
  samePaths(pagePaths(callees), reportPaths(focus), `${what}: callees of ${name}`);
  // callers: the callers of its outermost contexts in the whole tree
  const callers = await table(page, '#sandwich-callers');
  assert.strictEqual(callers[0].name, name, `${what}: callers start at ${name}`);
  near(callers[0].cols.incl, incl, `${what}: callers' top row = ${name}'s inclusive`);
  const td = V.report(reportBin, db, ['--view', 'top-down', ...common]);
  samePaths(pagePaths(callers), reportCallers(td, name), `${what}: callers of ${name}`);
  const first = callers.filter((r) => r.depth === 1).reduce((s, r) => s + r.cols.incl, 0);
  near(first, incl, `${what}: ${name}'s callers add up to its inclusive`);
  return { incl, excl, callers, callees };
}

cdp.main(async () => {
  if (!cdp.findChromium()) throw new cdp.Skip('SKIP: chromium not found (scripts/setup.sh installs it)');
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  run(path.join(bin, 'csrun'), ['-e', 'CPUTIME@1000', '-o', 'meas', fig1], out);
  fs.writeFileSync(path.join(out, 'fig1.struct'), run(path.join(bin, 'csprof-struct'), [fig1], out));
  run(path.join(bin, 'csprof-prof'), ['-q', '-S', 'fig1.struct', '-I', path.join(srcRoot, 'examples'), 'meas', '-o', 'db'], out);
  const db = path.join(out, 'db');
  // the golden database with mutual recursion, with a viewer
  const rec = path.join(out, 'rec');
  fs.mkdirSync(rec);
  fs.copyFileSync(path.join(srcRoot, 'test', 'report', 'mutual_recursion.xml'), path.join(rec, 'experiment.xml'));
  run(path.join(bin, 'csprof-prof'), ['--refresh-viewer', rec], out);

  await cdp.withBrowser({}, async (browser) => {
    // ---- loops hidden by default, as csprof-report's default
    let page = await V.openDb(browser, db, { width: 1400, height: 900 });
    V.assertClean(page, 'load');
    const loopsOf = (rows) => rows.filter((r) => /^loop at /.test(r.name));
    const keep = V.report(reportBin, db, ['--view', 'top-down', '--inlines', 'keep', '--loops', 'keep', '--threshold', '0']);
    const hide = V.report(reportBin, db, ['--view', 'top-down', '--inlines', 'keep', '--threshold', '0']);
    assert.ok(keep.nodes.some((n) => n.kind === 'loop'), 'Figure 1 has loops (csprof-report --loops keep)');
    assert.ok(!hide.nodes.some((n) => n.kind === 'loop'), 'csprof-report hides loops by default');
    // (every row of each view: expandAll opens the flat view's procedures too)
    const allRows = async (view) => {
      await V.switchView(page, view);
      await page.evaluate('window.csprofViewer.expandAll()');
      await page.evaluate(rafs);
      return table(page);
    };
    for (const view of ['top-down', 'bottom-up', 'flat']) {
      const rows = await allRows(view);
      assert.ok(rows.length > 3, `${view}: rows shown`);
      assert.deepStrictEqual(loopsOf(rows).map((r) => r.name), [], `${view}: no loop rows by default`);
    }
    assert.strictEqual((await V.state(page)).loops, false, 'loops hidden when the page opens');
    await V.switchView(page, 'top-down');
    await page.clickSelector('#t-loops');
    await page.evaluate(rafs);
    const want = [...new Set(keep.nodes.filter((n) => n.kind === 'loop').map((n) => n.name))].sort();
    let rows = await allRows('top-down');
    assert.deepStrictEqual([...new Set(loopsOf(rows).map((r) => r.name))].sort(), want, 'the loops button shows the loops of csprof-report --loops keep');
    rows = await allRows('flat');
    assert.deepStrictEqual([...new Set(loopsOf(rows).map((r) => r.name))].sort(), want, 'flat: the loops under their procedures');
    assert.strictEqual((await V.state(page)).loops, true, 'state: loops shown');
    assert.ok(/(^#|&)lp=1(&|$)/.test(await page.evaluate('location.hash')), 'lp=1 in the URL');
    await page.reload();
    await V.waitReady(page);
    rows = await allRows('top-down');
    assert.ok(loopsOf(rows).length > 0, 'lp=1 restored by a reload');
    await page.clickSelector('#t-loops');
    rows = await allRows('top-down');
    assert.deepStrictEqual(loopsOf(rows).map((r) => r.name), [], 'the loops button hides them again');
    assert.strictEqual((await V.state(page)).loops, false, 'state: loops hidden again');
    V.assertClean(page, 'loops');
    await page.close();

    // ---- the flat view opens at procedures
    page = await V.openDb(browser, db, { width: 1400, height: 900 });
    await V.switchView(page, 'flat');
    rows = (await table(page)).filter((r) => r.depth === 0 && r.name !== '[outside any shown frame]');
    const flatRep = V.report(reportBin, db, ['--view', 'flat', '--inlines', 'keep', '--keep-roots', '--threshold', '0', '--limit', '0']);
    assert.deepStrictEqual(rows.map((r) => r.name).sort(), flatRep.nodes.map((n) => n.name).sort(),
      'the flat view opens at the procedures of csprof-report --view flat');
    for (const n of flatRep.nodes) near(rows.find((r) => r.name === n.name).cols.excl, n.exclusive, `flat: ${n.name}'s exclusive`);
    assert.strictEqual((await V.state(page)).flatten, 2, 'flatten depth 2 (procedures) by default');
    assert.ok(!/(^#|&)fl=/.test(await page.evaluate('location.hash')), 'the default depth is not written in the URL');
    // Unflatten goes back to files, then modules (kept in the URL)
    await page.clickSelector('#unflatten');
    await page.clickSelector('#unflatten');
    rows = (await table(page)).filter((r) => r.depth === 0 && r.name !== '[outside any shown frame]');
    assert.ok(rows.length > 0 && rows.every((r) => !flatRep.nodes.some((n) => n.name === r.name)), `unflattened twice: modules (${rows.map((r) => r.name).join(', ')})`);
    assert.ok(/(^#|&)fl=0(&|$)/.test(await page.evaluate('location.hash')), 'fl=0 in the URL');

    // ---- the sandwich view, opened by the selected row's button
    await V.switchView(page, 'top-down');
    const sel = await page.evaluate('window.csprofViewer.find("c")');
    assert.ok(sel > 0, 'c found');
    await page.clickSelector('.row.sel .sw-btn');
    await page.evaluate(rafs);
    const c = await checkSandwich(page, db, 'c', 'Figure 1 (row button)');
    assert.deepStrictEqual(c.callers.filter((r) => r.depth === 1).map((r) => r.name).sort(), ['a', 'b'], 'c\'s callers: a and b');
    await page.screenshot(path.join(out, 'sandwich-c.png'));
    // the context menu of a flat row: the sandwich of a
    await V.switchView(page, 'flat');
    await V.setState(page, { flatten: 2 });
    const at = await page.centerOf('[data-name="a"]');
    await page.send('Input.dispatchMouseEvent', { type: 'mousePressed', x: at.x, y: at.y, button: 'right', clickCount: 1 });
    await page.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: at.x, y: at.y, button: 'right', clickCount: 1 });
    await page.waitFor('!!document.querySelector("#ctxmenu [data-action=sandwich]")', 5000);
    await page.clickSelector('#ctxmenu [data-action=sandwich]');
    await page.evaluate(rafs);
    await checkSandwich(page, db, 'a', 'Figure 1 (context menu)');
    // the view's search box: a part of a name lists the matches, Enter opens the first
    await page.evaluate('document.getElementById("sandwich-q").focus(); document.getElementById("sandwich-q").select()');
    await page.type('ma');
    await page.waitFor('document.getElementById("sandwich-matches").dataset.matches !== undefined', 5000);
    const picks = await page.evaluate('[...document.querySelectorAll("#sandwich-matches [data-proc]")].map((b) => b.dataset.proc)');
    assert.ok(picks.includes('main') && picks.every((x) => x.toLowerCase().includes('ma')), `matches of "ma": ${picks}`);
    await page.evaluate('document.getElementById("sandwich-q").value = "b"');
    await page.press('Enter');
    await page.evaluate(rafs);
    await checkSandwich(page, db, 'b', 'Figure 1 (search box)');
    V.assertClean(page, 'sandwich');
    await page.close();

    // ---- the URL opens a sandwich; recursion counted once
    page = await V.openDb(browser, rec, { hash: 'v=sandwich&p=ping', width: 1400, height: 900 });
    const ping = await checkSandwich(page, rec, 'ping', 'mutual recursion');
    assert.strictEqual(ping.incl, 95, 'ping\'s inclusive: 95 samples (golden: the outermost contexts)');
    assert.strictEqual(ping.excl, 69, 'ping\'s exclusive: 69 samples (golden)');
    await page.screenshot(path.join(out, 'sandwich-ping.png'));
    await V.setState(page, { p: 'pong' });
    const pong = await checkSandwich(page, rec, 'pong', 'mutual recursion');
    assert.strictEqual(pong.incl, 126, 'pong\'s inclusive: 126 samples (golden)');
    assert.strictEqual(pong.excl, 42, 'pong\'s exclusive: 42 samples (golden)');
    V.assertClean(page, 'recursion');
    await page.close();
  });
  console.log('sandwich_test: passed');
}, { timeoutMs: 200000 });
