// SPDX-License-Identifier: BSD-3-Clause
//
// features_test.js -- end-to-end test in headless Chromium of the viewer's
// derived-metric columns, per-thread values of every procedure and
// base-only contexts in differential mode:
//  - Figure 1 with two csprof-prof -M metrics: each derived column read off
//    the top-down and bottom-up tables equals csprof-report --metric NAME's
//    value of the same node; a column added from the page's text field is
//    evaluated on the row's own sums and survives a reload (URL state);
//  - a generated program of 2 threads calling 240 procedures: the Threads
//    view of a procedure outside data.js's heaviest 200 shows per-thread
//    values equal to csprof-report --view threads;
//  - load module + offset of a, b and c in the status line, the row's
//    tooltip and the copied text equal their symbol addresses (nm);
//  - the same program with one more procedure (the base) against it
//    (csprof-prof --diff-viewer): that procedure shows in top-down,
//    bottom-up, flat (value 0, negative change) and the flame graph, and the status
//    line shows the base-only total.
//
// usage: node features_test.js BIN_DIR FIG1_BINARY SOURCE_DIR OUT_DIR
'use strict';
const assert = require('assert');
const child_process = require('child_process');
const fs = require('fs');
const path = require('path');
const cdp = require('./cdp.js');
const V = require('./viewer_lib.js');

const [bin, fig1, srcDir, out] = process.argv.slice(2);
const NPROC = 240;

function run(cmd, args, cwd) {
  const r = child_process.spawnSync(cmd, args, { cwd: cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}
async function table(page) {
  await page.evaluate('window.csprofViewer.expandAll()');
  return V.rows(page);
}
function close(a, b, what) {
  assert.ok(Math.abs(a - b) <= 2e-3 * Math.max(1, Math.abs(b)), `${what}: page ${a}, csprof-report ${b}`);
}

// A program whose threads call NPROC procedures of about equal cost; with
// -DBASE_ONLY also only_in_base().  Lines are the same either way.
function program() {
  const L = ['#include <pthread.h>', 'static volatile unsigned long sink;'];
  for (let k = 0; k < NPROC; k++)
    L.push(`__attribute__((noinline)) void f_${k}(void) { for (unsigned long i = 0; i < ${2500000 + 2000 * k}ul; i++) sink += i ^ ${k}u; }`);
  L.push('#ifdef BASE_ONLY', '__attribute__((noinline)) void only_in_base(void) { for (unsigned long i = 0; i < 60000000ul; i++) sink += i; }', '#endif');
  L.push('static void *work(void *arg) {', '  (void)arg;');
  for (let k = 0; k < NPROC; k++) L.push(`  f_${k}();`);
  L.push('#ifdef BASE_ONLY', '  only_in_base();', '#endif', '  return 0;', '}');
  L.push('int main(void) {', '  pthread_t t;', '  pthread_create(&t, 0, work, 0);', '  work(0);', '  pthread_join(t, 0);', '  return 0;', '}');
  return L.join('\n') + '\n';
}

cdp.main(async () => {
  if (!cdp.findChromium()) throw new cdp.Skip('SKIP: chromium not found (scripts/setup.sh installs it)');
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const prof = path.join(bin, 'csprof-prof'), reportBin = path.join(bin, 'csprof-report');

  // Figure 1 with derived metrics
  run(path.join(bin, 'csrun'), ['-e', 'CPUTIME@1000', '-o', 'meas', fig1], out);
  fs.writeFileSync(path.join(out, 'fig1.struct'), run(path.join(bin, 'csprof-struct'), [fig1], out));
  const DERIVED = [['percall', 'CPUTIME*1000/max(calls, 1)'], ['spms', 'samples/(CPUTIME*1000+1)']];
  run(prof, ['-q', '-S', 'fig1.struct', '-I', srcDir].concat(...DERIVED.map((d) => ['-M', d[0] + '=' + d[1]]), ['meas', '-o', 'db']), out);
  const db = path.join(out, 'db');

  // the generated program: base (with only_in_base) and current
  const cc = process.env.CC || 'cc';
  fs.writeFileSync(path.join(out, 'many.c'), program());
  run(cc, ['-O1', '-g', '-pthread', '-DBASE_ONLY', '-o', 'many-base', 'many.c'], out);
  run(cc, ['-O1', '-g', '-pthread', '-o', 'many', 'many.c'], out);
  for (const p of ['many', 'many-base']) {
    run(path.join(bin, 'csrun'), ['-e', 'CPUTIME@1000', '-o', p + '.meas', './' + p], out);
    run(prof, ['-q', p + '.meas', '-o', p + '.db'], out);
  }
  run(prof, ['--diff-viewer', path.join(out, 'many-base.db'), path.join(out, 'many.db'), '-o', path.join(out, 'diff')], out);

  await cdp.withBrowser({}, async (browser) => {
    // ---- derived columns against csprof-report
    const page = await V.openDb(browser, db, { width: 1400, height: 900 });
    V.assertClean(page, 'load');
    const st0 = await V.state(page);
    assert.deepStrictEqual(st0.derivedColumns, DERIVED.map((d) => d[0]), 'the database\'s derived metrics are columns');
    await V.setState(page, { view: 'top-down', transforms: 'hide-loops~hide-statements' });
    let rows = await table(page);
    for (let k = 0; k < DERIVED.length; k++) {
      const rep = V.report(reportBin, db, ['--view', 'top-down', '--inlines', 'keep', '--loops', 'hide', '--keep-roots', '--metric', DERIVED[k][0]]);
      for (const name of ['main', 'a', 'b']) {
        const node = rep.nodes.find((n) => n.name === name), row = rows.find((r) => r.name === name);
        assert.ok(node && row, `${name} in the report and on the page`);
        close(V.val(row, 'd-' + k), node.derived[0], `top-down ${name} ${DERIVED[k][0]} inclusive`);
        close(V.val(row, 'dx-' + k), node.derived[1], `top-down ${name} ${DERIVED[k][0]} exclusive`);
      }
      // bottom-up: c's row is the formula over c's merged values
      const bu = V.report(reportBin, db, ['--view', 'bottom-up', '--inlines', 'keep', '--loops', 'hide', '--metric', DERIVED[k][0], '--limit', '0']);
      const cNode = bu.nodes.find((n) => n.name === 'c' && n.depth === 1);
      await V.setState(page, { view: 'bottom-up' });
      const cRow = (await V.rows(page)).find((r) => r.name === 'c');
      assert.ok(cNode && cRow, 'c in the bottom-up views');
      close(V.val(cRow, 'd-' + k), cNode.derived[0], `bottom-up c ${DERIVED[k][0]}`);
      await V.setState(page, { view: 'top-down' });
    }
    // a column added from the page: NAME=FORMULA in the text field
    await page.evaluate('document.getElementById("derive-menu").open = true'); // the toolbar's Derived… menu
    await page.evaluate('document.getElementById("derive").focus()');
    await page.type('pc=CPUTIME/calls');
    await page.clickSelector('#derive-add');
    await page.waitFor('window.csprofViewer.state().derived !== ""');
    rows = await table(page);
    const cRows = rows.filter((r) => r.name === 'c');
    assert.ok(cRows.length >= 2);
    for (const r of cRows) close(V.val(r, 'd-2'), V.val(r, 'incl') / V.val(r, 'calls'), 'pc = incl / calls');
    await page.reload();
    await V.waitReady(page);
    assert.deepStrictEqual((await V.state(page)).derivedColumns, ['percall', 'spms', 'pc'], 'the added column is in the URL');
    // a bad formula is refused with its position, nothing added
    await page.evaluate('document.getElementById("derive-menu").open = true');
    await page.evaluate('document.getElementById("derive").value = "bad=CPUTIME +"');
    await page.clickSelector('#derive-add');
    const errText = await page.evaluate('document.getElementById("derive-err").textContent');
    assert.ok(/position 10: unexpected end/.test(errText), `error names the position: ${errText}`);
    assert.strictEqual((await V.state(page)).derivedColumns.length, 3);
    const text = await page.evaluate('window.csprofViewer.tableText()');
    assert.ok(text.split('\n')[0].includes('percall'), 'copied text has the derived columns');
    // load module + offset of each procedure: the symbol's address in fig1 (nm)
    const nm = child_process.spawnSync('nm', [fig1], { encoding: 'utf8' });
    if (nm.status === 0) {
      await page.waitFor('window.csprofViewer.state().addrLoaded', 10000); // viewer/addr.js, after the first paint
      for (const name of ['a', 'b', 'c']) {
        const m = new RegExp('^0*([0-9a-f]+) [Tt] ' + name + '$', 'm').exec(nm.stdout);
        assert.ok(m, `nm lists ${name}`);
        const want = path.basename(fig1) + '+0x' + m[1];
        await V.setState(page, { view: 'top-down' });
        await page.evaluate(`window.csprofViewer.find(${JSON.stringify(name)})`);
        const status = await page.evaluate('document.getElementById("status").textContent');
        assert.ok(status.endsWith(' · ' + want) || status.includes(' · ' + want + ' '), `status of ${name} names ${want}: ${status}`);
        await V.setState(page, { view: 'bottom-up' });
        const where = await page.evaluate(`[...document.querySelectorAll('[data-name]')].filter((r) => r.dataset.name === ${JSON.stringify(name)}).map((r) => r.querySelector('[data-col="name"]').dataset.where)`);
        assert.deepStrictEqual(where, [want], `bottom-up row ${name}: its module+offset`);
        const tt = await page.evaluate('window.csprofViewer.tableText()');
        assert.ok(tt.split('\n').some((l) => l.startsWith(name + '\t') && l.endsWith('\t' + want)), `copied text of ${name} ends with ${want}`);
      }
      await V.setState(page, { view: 'top-down' });
    } else {
      console.log('features_test: nm not found, module+offset not checked');
    }
    await page.screenshot(path.join(out, 'derived.png'));
    V.assertClean(page, 'derived');
    await page.close();

    // ---- per-thread values of a procedure outside the heaviest 200
    const mdb = path.join(out, 'many.db');
    const data = fs.readFileSync(path.join(mdb, 'viewer', 'data.js'), 'utf8');
    // (the list's line: names may hold ']', as "[kernel]" does)
    const inData = JSON.parse(/^"procs":(\[.*\]),?$/m.exec(data)[1]);
    assert.strictEqual(inData.length, 200, 'data.js keeps the heaviest 200');
    assert.ok(fs.existsSync(path.join(mdb, 'viewer', 'threads.js')), 'threads.js written');
    const light = [];
    for (let k = 0; k < NPROC; k++) if (inData.indexOf('f_' + k) < 0) light.push('f_' + k);
    assert.ok(light.length >= 20, `${light.length} procedures outside data.js's list`);
    const mp = await V.openDb(browser, mdb);
    let checked = 0;
    for (const name of light) { // the lightest may have no sample at all
      if (checked >= 3) break;
      const tr = V.report(reportBin, mdb, ['--view', 'threads', '--focus', '^' + name + '$', '--limit', '0']);
      const per = new Map();
      for (const c of tr.contexts) if (c.node !== 0) for (const v of c.threads.values) per.set(v.index, (per.get(v.index) || 0) + v.inclusive);
      if (!per.size) continue; // no sample in it
      assert.ok((await mp.evaluate(`window.csprofViewer.find(${JSON.stringify(name)})`)) > 0, `${name} found`);
      await V.switchView(mp, 'threads');
      await mp.waitFor('!/loading/.test(document.getElementById("thread-label").textContent)', 10000);
      const label = await mp.evaluate('document.getElementById("thread-label").textContent');
      assert.ok(label.includes(name + ', inclusive, per thread'), `threads view shows ${name}: ${label}`);
      const ts = JSON.parse(await mp.evaluate('document.getElementById("thread-stats").dataset.stats'));
      const vals = [...per.values()], n = tr.threads.length;
      while (vals.length < n) vals.push(0);
      close(ts.max, Math.max(...vals), `${name} max over threads`);
      close(ts.min, Math.min(...vals), `${name} min over threads`);
      assert.strictEqual(ts.n, n);
      checked++;
      await V.switchView(mp, 'top-down');
    }
    assert.ok(checked >= 1, 'at least one light procedure had samples');
    await V.switchView(mp, 'threads');
    await mp.screenshot(path.join(out, 'threads-light.png'));
    V.assertClean(mp, 'threads');
    await mp.close();

    // ---- base-only contexts in the differential viewer
    const dp = await V.openDb(browser, path.join(out, 'diff'));
    const ds = await V.state(dp);
    assert.ok(ds.diff && ds.baseOnly && ds.baseOnly.nodes >= 1, `base-only contexts counted: ${JSON.stringify(ds.baseOnly)}`);
    const baseRep = V.report(reportBin, path.join(out, 'many-base.db'), ['--view', 'flat', '--recompute', '--limit', '0']);
    const bval = baseRep.nodes.filter((n) => n.name === 'only_in_base').reduce((s, n) => s + n.inclusive, 0);
    assert.ok(bval > 0, 'the base has only_in_base');
    for (const view of ['top-down', 'bottom-up', 'flat']) {
      await V.setState(dp, { view: view, flatten: view === 'flat' ? 2 : 0 }); // flat: procedures at the top
      await dp.evaluate('window.csprofViewer.expandAll()');
      // every row, not only the visible ones: the copied text
      const lines = (await dp.evaluate('window.csprofViewer.tableText()')).trimEnd().split('\n').map((l) => l.split('\t'));
      const head = lines[0], col = (t) => head.findIndex((h) => h === t || h.endsWith(t));
      const ci = col(' incl'), cb = col('base incl'), cd = col('Δ incl');
      const hits = lines.slice(1).filter((l) => l[0].trim() === 'only_in_base');
      assert.ok(hits.length >= 1, `${view}: only_in_base shown`);
      assert.ok(hits.every((l) => V.num(l[ci]) === 0), `${view}: current value 0`);
      close(hits.reduce((x, l) => x + V.num(l[cb]), 0), bval, `${view}: base value`);
      close(hits.reduce((x, l) => x + V.num(l[cd]), 0), -bval, `${view}: negative change`);
    }
    const status = await dp.evaluate('document.getElementById("status").textContent');
    assert.ok(/base only: \d+ contexts/.test(status), `status shows the base-only total: ${status}`);
    // flame graph: base-only boxes drawn (sized by their base value)
    await V.setState(dp, { view: 'flame', flatten: 0, search: 'only_in_base' });
    const hits = Number(await dp.evaluate('document.querySelector("canvas[data-chart]").dataset.hits'));
    assert.ok(hits >= 1, `flame graph draws only_in_base (${hits} boxes)`);
    await dp.screenshot(path.join(out, 'diff-flame.png'));
    await V.setState(dp, { view: 'top-down', flatten: 0, sort: 'delta', search: '' });
    await dp.screenshot(path.join(out, 'diff-base-only.png'));
    V.assertClean(dp, 'diff');
  });
  console.log('features_test: passed');
}, { timeoutMs: 240000 });
