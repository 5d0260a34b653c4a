// SPDX-License-Identifier: BSD-3-Clause
//
// views_test.js -- end-to-end test of the viewer on the Figure 1 database in
// headless Chromium: every view opens without a console error or a request
// leaving file:, the numbers read off the page agree with `csprof-report
// --format json` (c's time under a ~ under b, call counts 2:4), each transform
// does what the report's option of the same name does and is removable as a
// chip, a reload restores the URL state, a differential viewer of a database
// with itself shows no change, and each view is saved as a screenshot.
//
// usage: node views_test.js BIN_DIR FIG1_BINARY SOURCE_DIR OUT_DIR
'use strict';
const assert = require('assert');
const child_process = require('child_process');
const fs = require('fs');
const path = require('path');
const cdp = require('./cdp.js');
const V = require('./viewer_lib.js');

const [bin, fig1, srcDir, out] = process.argv.slice(2);

function run(cmd, args, cwd) {
  const r = child_process.spawnSync(cmd, args, { cwd: cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

// Sum of `field` over report nodes named `name` whose parent is named `parent`.
function under(rep, name, parent, field) {
  const byId = new Map(rep.nodes.map((n) => [n.id, n]));
  return rep.nodes.filter((n) => n.name === name && byId.has(n.parent) && byId.get(n.parent).name === parent)
    .reduce((s, n) => s + n[field], 0);
}

// Rows of the current table, each {name, depth, cols} (all rows fit the viewport here).
async function table(page) {
  const rows = await V.rows(page);
  const depths = await page.evaluate('[...document.querySelectorAll("[data-name]")].map((r) => Number(r.dataset.depth || 0))');
  return rows.map((r, k) => Object.assign(r, { depth: depths[k] }));
}
function sumRows(rows, name, col) {
  return rows.filter((r) => r.name === name).reduce((s, r) => s + V.val(r, col), 0);
}

cdp.main(async () => {
  if (!cdp.findChromium()) throw new cdp.Skip('SKIP: chromium not found (scripts/setup.sh installs it)');
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  run(path.join(bin, 'csrun'), ['-e', 'CPUTIME@1000', '-o', 'meas', fig1], out);
  fs.writeFileSync(path.join(out, 'fig1.struct'), run(path.join(bin, 'csprof-struct'), [fig1], out));
  run(path.join(bin, 'csprof-prof'), ['-q', '-S', 'fig1.struct', '-I', srcDir, 'meas', '-o', 'db'], out);
  const db = path.join(out, 'db');
  // bad input: one line naming the database, exit 1; a symlinked DB/viewer is refused
  let r = child_process.spawnSync(path.join(bin, 'csprof-prof'), ['--refresh-viewer', path.join(out, 'none')], { encoding: 'utf8' });
  assert.strictEqual(r.status, 1);
  assert.ok(r.stderr.includes(path.join(out, 'none')), r.stderr);
  fs.mkdirSync(path.join(out, 'evil', 'db'), { recursive: true });
  fs.mkdirSync(path.join(out, 'evil', 'elsewhere'));
  fs.copyFileSync(path.join(db, 'experiment.xml'), path.join(out, 'evil', 'db', 'experiment.xml'));
  fs.symlinkSync(path.join(out, 'evil', 'elsewhere'), path.join(out, 'evil', 'db', 'viewer'));
  r = child_process.spawnSync(path.join(bin, 'csprof-prof'), ['--refresh-viewer', path.join(out, 'evil', 'db')], { encoding: 'utf8' });
  assert.strictEqual(r.status, 1, 'symlinked DB/viewer refused');
  assert.deepStrictEqual(fs.readdirSync(path.join(out, 'evil', 'elsewhere')), [], 'nothing written through the symlink');
  for (const f of ['index.html', 'viewer/data.js', 'viewer/viewer.js', 'viewer/model.js', 'viewer/viewer.css'])
    assert.ok(fs.existsSync(path.join(db, f)), `csprof-prof wrote ${f}`);
  // every script the page loads (the model's parts included) is written
  const scripts = Array.from(fs.readFileSync(path.join(db, 'index.html'), 'utf8').matchAll(/<script src="([^"]+)"/g), (m) => m[1]);
  assert.ok(scripts.includes('viewer/model-view.js') && scripts.includes('viewer/model.js'), scripts.join(' '));
  for (const f of scripts) assert.ok(fs.existsSync(path.join(db, f)), `csprof-prof wrote ${f}, which index.html loads`);
  const rep = V.report(path.join(bin, 'csprof-report'), db, ['--view', 'top-down', '--inlines', 'keep', '--loops', 'hide']);

  await cdp.withBrowser({}, async (browser) => {
    const page = await V.openDb(browser, db, { width: 1280, height: 800 });
    V.assertClean(page, 'load');
    await V.setState(page, { view: 'top-down', transforms: 'hide-loops~hide-statements' });
    await page.evaluate('window.csprofViewer.expandAll()');
    let rows = await table(page);
    // c under a vs under b, from the page and from csprof-report
    const aRow = rows.findIndex((r) => r.name === 'a'), bRow = rows.findIndex((r) => r.name === 'b');
    assert.ok(aRow >= 0 && bRow >= 0, 'rows a and b shown');
    const kidsOf = (k) => {
      const out2 = [];
      for (let i = k + 1; i < rows.length && rows[i].depth > rows[k].depth; i++)
        if (rows[i].depth === rows[k].depth + 1 && rows[i].name === 'c') out2.push(rows[i]);
      return out2;
    };
    const ca = kidsOf(aRow), cb = kidsOf(bRow);
    const pageA = ca.reduce((s, r) => s + V.val(r, 'incl'), 0), pageB = cb.reduce((s, r) => s + V.val(r, 'incl'), 0);
    const repA = under(rep, 'c', 'a', 'inclusive'), repB = under(rep, 'c', 'b', 'inclusive');
    assert.ok(Math.abs(pageA - repA) <= 0.002 * Math.max(1, ca.length), `c under a: page ${pageA} report ${repA}`);
    assert.ok(Math.abs(pageB - repB) <= 0.002 * Math.max(1, cb.length), `c under b: page ${pageB} report ${repB}`);
    assert.ok(pageA > 0.6 * pageB && pageA < 1.6 * pageB, `c's time under a (${pageA}) ~ under b (${pageB})`);
    const callsA = ca.reduce((s, r) => s + V.val(r, 'calls'), 0), callsB = cb.reduce((s, r) => s + V.val(r, 'calls'), 0);
    assert.strictEqual(callsA, under(rep, 'c', 'a', 'calls'));
    assert.strictEqual(callsB, under(rep, 'c', 'b', 'calls'));
    assert.deepStrictEqual([callsA, callsB], [2, 4], 'call counts 2:4');
    // (not the total: a sample or two may fall outside main, in the exit path)
    const mainPage = V.val(rows.find((r) => r.name === 'main'), 'incl');
    const mainRep = rep.nodes.filter((n) => n.name === 'main').reduce((s, n) => s + n.inclusive, 0);
    assert.ok(mainRep > 0.95 * rep.total, `main holds nearly all the time (${mainRep} of ${rep.total})`);
    assert.ok(Math.abs(mainPage - mainRep) < 0.002, `main ${mainPage} = report's main ${mainRep}`);

    // transforms, applied with the toolbar on the selected node, shown as chips
    async function select(name) {
      const sel = await page.evaluate(`window.csprofViewer.find(${JSON.stringify(name)})`);
      assert.ok(sel > 0, `node ${name} found`);
    }
    async function apply(button, name) {
      if (name) await select(name);
      await page.clickSelector('#' + button);
      await page.waitFor('true');
      await page.evaluate('window.csprofViewer.expandAll()');
      return table(page);
    }
    async function chips() {
      return page.evaluate('Array.from(document.querySelectorAll("#chips .chip")).map((c) => c.dataset.transform)');
    }
    // (loops are hidden by default, as csprof-report --loops hide: shown here
    // (loops: true), then hidden by the user's own hide-loops, a chip;
    // sandwich_test.js tests the loops button)
    await V.setState(page, { transforms: '', loops: true });
    await page.evaluate('window.csprofViewer.expandAll()');
    assert.ok((await table(page)).some((r) => r.name.startsWith('loop at')), 'loops shown on request');
    await V.setState(page, { transforms: 'hide-loops' });
    await page.evaluate('window.csprofViewer.expandAll()');
    rows = await table(page);
    assert.ok(!rows.some((r) => r.name.startsWith('loop at')), 'hide-loops: no loop rows');
    assert.deepStrictEqual(await chips(), ['hide-loops']);
    rows = await apply('t-focus', 'b');
    assert.ok(!rows.some((r) => r.name === 'a'), 'focus-subtree b: a gone');
    assert.ok(Math.abs(sumRows(rows, 'b', 'incl') - under(rep, 'b', 'main', 'inclusive')) < 0.002, 'focus-subtree: b keeps its value');
    await page.clickSelector('#chips .chip[data-transform="focus-subtree"] button');
    await page.waitFor('true');
    assert.deepStrictEqual(await chips(), ['hide-loops'], 'chip removed');
    rows = await apply('t-focusfn', 'c');
    assert.deepStrictEqual(rows.filter((r) => r.depth === 0).map((r) => r.name), ['c'], 'focus-function c: only c at the top');
    assert.ok(Math.abs(sumRows(rows, 'c', 'incl') - (under(rep, 'c', 'a', 'inclusive') + under(rep, 'c', 'b', 'inclusive'))) < 0.004);
    await V.setState(page, { transforms: 'hide-loops' });
    rows = await apply('t-hide', 'c');
    assert.ok(!rows.some((r) => r.name === 'c'), 'hide c: merged into callers');
    // c's callees (d) stay children of a: compare with csprof-report --hide c
    const repHide = V.report(path.join(bin, 'csprof-report'), db, ['--view', 'top-down', '--inlines', 'keep', '--loops', 'hide', '--hide', '^c$']);
    const aExcl = repHide.nodes.filter((n) => n.name === 'a').reduce((s, n) => s + n.exclusive, 0);
    // a's exclusive is its own plus c's exclusive under a (d's time, about a tenth of c's, stays in d)
    const repLoops = V.report(path.join(bin, 'csprof-report'), db, ['--view', 'top-down', '--inlines', 'keep', '--loops', 'hide']);
    const aOwn = repLoops.nodes.filter((n) => n.name === 'a').reduce((s, n) => s + n.exclusive, 0);
    const cOwn = under(repLoops, 'c', 'a', 'exclusive');
    assert.ok(cOwn > 0.5 * under(rep, 'c', 'a', 'inclusive'), 'c\'s own time under a is most of its time');
    assert.ok(Math.abs(aExcl - (aOwn + cOwn)) < 0.004, `a's exclusive holds c's time: ${aExcl} = ${aOwn} + ${cOwn}`);
    assert.ok(Math.abs(V.val(rows.find((r) => r.name === 'a'), 'excl') - aExcl) < 0.004, `a's exclusive: page ${V.val(rows.find((r) => r.name === 'a'), 'excl')}, csprof-report --hide c ${aExcl}`);
    await V.setState(page, { transforms: 'hide-loops' });
    rows = await apply('t-hidelib', '__libc_start_call_main');
    assert.ok(!rows.some((r) => r.name.startsWith('__libc_start')), 'hide-lib libc: its frames merged');
    assert.ok(rows.some((r) => r.name === 'main'));
    // cost that no shown frame holds (every frame above c's loop hidden) is
    // one row, "[outside any shown frame]", as csprof-report's line of that
    // name: the rows and it add up to the total
    const hideAll = ['--hide', '^(_start|main|a|b|c)$', '--hide-lib', 'libc\\.so', '--keep-roots'];
    const outside = '[outside any shown frame]';
    for (const [view, loops] of [['flat', 'keep'], ['top-down', 'hide']]) {
      const repOut = V.report(path.join(bin, 'csprof-report'), db, ['--view', view, '--loops', loops, '--inlines', 'keep', '--threshold', '0', ...hideAll]);
      await V.setState(page, { view: view, transforms: 'hide-lib:libc.so~hide:_start~hide:main~hide:a~hide:b~hide:c' + (loops === 'hide' ? '~hide-loops' : '') });
      rows = await table(page);
      const o = rows.find((x) => x.name === outside);
      assert.ok(repOut.root.exclusive > 0.5 * repOut.total, `${view}: c's own time and its loop's are outside any shown frame (${repOut.root.exclusive} of ${repOut.total})`);
      assert.ok(o, `${view}: a row ${outside}: ${rows.map((x) => x.name).join(', ')}`);
      assert.ok(Math.abs(V.val(o, 'excl') - repOut.root.exclusive) < 0.002, `${view}: outside ${o.cols.excl}, csprof-report ${repOut.root.exclusive}`);
      const top = rows.filter((x) => x.depth === 0);
      const sum = top.reduce((a, x) => a + V.val(x, view === 'flat' ? 'excl' : 'incl'), 0);
      assert.ok(Math.abs(sum - repOut.total) < 0.001 * top.length + 0.002, `${view}: top-level rows ${sum} = total ${repOut.total}`);
    }
    await V.setState(page, { view: 'top-down', transforms: '' });
    rows = await table(page);
    assert.ok(!rows.some((x) => x.name === outside), `no ${outside} row without transforms`);
    await V.setState(page, { transforms: '' });
    rows = await apply('t-rec');
    assert.deepStrictEqual(await chips(), ['collapse-recursion']);
    assert.ok(Math.abs(V.val(rows.find((r) => r.name === 'main'), 'incl') - mainRep) < 0.002, 'collapse-recursion keeps main\'s inclusive');
    rows = await apply('t-inl');
    assert.deepStrictEqual(await chips(), ['collapse-recursion', 'hide-inlines']);
    V.assertClean(page, 'transforms');

    // URL state survives a reload
    await V.setState(page, { view: 'bottom-up', transforms: 'hide-loops', sort: 'excl', search: 'c' });
    const before = await V.state(page);
    await page.reload();
    await V.waitReady(page);
    const after = await V.state(page);
    for (const k of ['view', 'transforms', 'sort', 'search', 'sel', 'metric'])
      assert.deepStrictEqual(after[k], before[k], `state ${k} restored by reload`);
    // a transform of the URL that does not decode is left out and named (a chip), not dropped silently
    await page.evaluate('location.hash = location.hash.replace(/(^#|&)t=[^&]*/, "$1t=bogus~hide-loops")');
    await page.reload();
    await V.waitReady(page);
    const badState = await V.state(page);
    assert.strictEqual(badState.transforms, 'hide-loops', 'the URL\'s good transform kept');
    assert.match(badState.transformError, /"bogus" is unknown/);
    assert.match(await page.evaluate('document.querySelector("#chips .chip.bad").textContent'), /bogus/);
    // bottom-up: c's callers a and b, with their call counts
    await page.evaluate('window.csprofViewer.setState({search: ""})');
    rows = await table(page);
    assert.ok(rows.some((r) => r.name === 'c'), 'bottom-up lists c');
    const text = await page.evaluate('window.csprofViewer.tableText()');
    assert.ok(/^c\t/m.test(text), 'the table copies as text');
    // the bottom-up view opens sorted by exclusive cost, as csprof-report's (issue 22 item 2):
    // the same first procedure, exclusive values not increasing down the procedure rows
    await V.setState(page, { view: 'bottom-up', transforms: 'hide-loops', sort: '', search: '' });
    assert.strictEqual((await V.state(page)).sort, 'excl', 'bottom-up sorts by exclusive by default');
    const buRep = V.report(path.join(bin, 'csprof-report'), db, ['--view', 'bottom-up', '--inlines', 'keep', '--loops', 'hide', '--keep-roots', '--depth', '1', '--limit', '0', '--threshold', '0']);
    const buTop = (await table(page)).filter((r) => r.depth === 0);
    assert.strictEqual(buTop[0].name, buRep.nodes.filter((n) => n.depth === 1)[0].name, 'bottom-up: the first procedure is the report\'s');
    for (let k = 1; k < buTop.length; k++) assert.ok(V.val(buTop[k], 'excl') <= V.val(buTop[k - 1], 'excl'), `bottom-up row ${buTop[k].name} not above ${buTop[k - 1].name} by exclusive`);
    await V.setState(page, { view: 'top-down', sort: '' });
    assert.strictEqual((await V.state(page)).sort, 'incl', 'top-down sorts by inclusive by default');

    // every view, with a screenshot
    await V.setState(page, { view: 'top-down', transforms: '', sel: 0 });
    await page.evaluate('window.csprofViewer.find("c")');
    const shots = await V.screenshotViews(page, out);
    assert.strictEqual(shots.length, V.VIEWS.length);
    await V.switchView(page, 'flame');
    const boxes = Number(await page.evaluate('document.querySelector("canvas[data-chart]").dataset.boxes'));
    assert.ok(boxes >= 8, `flame graph drew ${boxes} boxes`);
    await V.setState(page, { search: 'c' });
    assert.ok(Number(await page.evaluate('document.querySelector("canvas[data-chart]").dataset.hits')) >= 2, 'search highlights c');
    await V.switchView(page, 'source');
    rows = await table(page);
    assert.ok(rows.some((r) => /for|while/.test(r.cols.source || '')), 'source pane shows fig1.c');
    // threads: per-thread values of the selected procedure (one thread here)
    await page.evaluate('window.csprofViewer.find("a")');
    await V.switchView(page, 'threads');
    const ts = JSON.parse(await page.evaluate('document.getElementById("thread-stats").dataset.stats'));
    assert.ok(Math.abs(ts.mean - under(rep, 'a', 'main', 'inclusive')) < 0.002 && ts.cv === 0 && ts.n === 1,
      `threads: a's per-thread value ${JSON.stringify(ts)}`);
    V.assertClean(page, 'views');
    await page.close();

    // differential viewer of a database with itself: no change anywhere
    run(path.join(bin, 'csprof-prof'), ['--diff-viewer', db, db, '-o', path.join(out, 'diff')], out);
    const dp = await V.openDb(browser, path.join(out, 'diff'));
    assert.strictEqual((await V.state(dp)).diff, true);
    await dp.evaluate('window.csprofViewer.expandAll()');
    const drows = await table(dp);
    assert.ok(drows.length > 5 && drows.every((r) => V.val(r, 'delta') === 0), 'diff of a database with itself is zero');
    await dp.screenshot(path.join(out, 'diff.png'));
    V.assertClean(dp, 'diff');
  });
  console.log('views_test: passed');
}, { timeoutMs: 240000 });
