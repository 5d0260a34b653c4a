// SPDX-License-Identifier: BSD-3-Clause
//
// reading_test.js -- how the viewer's tables read (issue 22, items 5, 7 and
// 11), measured on the page in headless Chromium at 1400 x 900 on a run of
// programs/reading.c (CPUTIME and MEMALLOC):
//  - the header and toolbar take two rows at most (the derived-column field
//    is in a menu, not alone on a third row); a legend explains italics,
//    colours and marks;
//  - every percentage has a bar behind it, as wide as the percentage of its
//    cell; the decimal points of each numeric column line up (the x of each
//    '.' measured, a derived column's too) and every cell of a column has the
//    same decimals;
//  - times and bytes read as people write them (58.7 ms, 2.0 GiB), the exact
//    value in data-value (equal to csprof-report's) and in the tooltip;
//  - 60 frames deep, a name keeps at least 40 % of the name column, which
//    takes the width the numeric columns leave;
//  - a search says how many contexts it matched and their share of the
//    total, the numbers csprof-report's tree gives;
//  - the source pane opens at the procedure's hottest line (the line marked
//    HOT in reading.c), lines shaded by their share of the procedure;
//  - the Threads view's CPU times and values read the same way;
//  - the calls column is "calls (sampled)", a lower bound (header tooltip);
//    incl/call is blank, with the reason in its tooltip, with fewer than 10
//    samples or fewer than 2 samples per counted call; the three callees of
//    reading.c's one indirect call site show the site's count as `N†` and no
//    cost per call.
//
// usage: node reading_test.js BIN_DIR READING_BINARY SOURCE_DIR OUT_DIR
'use strict';
const assert = require('assert');
const child_process = require('child_process');
const fs = require('fs');
const path = require('path');
const cdp = require('./cdp.js');
const V = require('./viewer_lib.js');

const [bin, prog, srcDir, out] = process.argv.slice(2);

function run(cmd, args, cwd) {
  const r = child_process.spawnSync(cmd, args, { cwd: cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}
const frames = () => 'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())))';

// Numeric cells of the visible table rows: per row, per column id,
// {text, v (the number's text), u (the unit), value (data-value), title,
// dotX (x of the '.' in the number, null without one), right (x of the
// number's right edge), bar ({w, cellW} of a percentage's bar)}.
const CELLS = `(() => [...document.querySelectorAll('.rows .row[data-name]')].map((row) => {
  const o = { name: row.dataset.name, index: Number(row.dataset.index), depth: Number(row.dataset.depth), cells: {} };
  for (const c of row.querySelectorAll('[data-col]')) {
    const v = c.querySelector('.v'), u = c.querySelector('.u'), bar = c.querySelector('.pbar');
    const x = { text: c.textContent, title: c.title, value: c.dataset.value, v: v ? v.textContent : null, u: u ? u.textContent : null,
      cellLeft: c.getBoundingClientRect().left, cellRight: c.getBoundingClientRect().right, cellW: c.getBoundingClientRect().width };
    const tn = (v || c).firstChild;
    if (tn && tn.nodeType === 3) {
      const rg = document.createRange();
      const k = tn.data.indexOf('.');
      if (k >= 0) { rg.setStart(tn, k); rg.setEnd(tn, k + 1); x.dotX = rg.getBoundingClientRect().left; }
      rg.selectNodeContents(tn); x.right = rg.getBoundingClientRect().right;
    }
    if (bar) x.bar = { w: bar.getBoundingClientRect().width, cellW: c.clientWidth };
    if (c.dataset.col === 'name') {
      const s = c.querySelector('span:not(.tw)');
      x.nameLeft = s ? s.getBoundingClientRect().left : NaN;
    }
    o.cells[c.dataset.col] = x;
  }
  return o;
}))()`;

// CELLS of every row of the table, scrolled through (only the rows in view
// exist: virtual scrolling); the table is left scrolled to its top.
async function allRows(page) {
  const h = await page.evaluate('document.querySelector(".table .rows").offsetHeight');
  const seen = new Map();
  for (let top = 0; ; top += 400) {
    await page.evaluate(`(() => { const s = document.querySelector('.table .scroll'); s.scrollTop = ${top}; s.dispatchEvent(new Event('scroll')); })()`);
    for (const r of await page.evaluate(CELLS)) seen.set(r.index, r);
    if (top + 400 >= h) break;
  }
  await page.evaluate(`(() => { const s = document.querySelector('.table .scroll'); s.scrollTop = 0; s.dispatchEvent(new Event('scroll')); })()`);
  return [...seen.values()].sort((a, b) => a.index - b.index);
}

cdp.main(async () => {
  if (!cdp.findChromium()) throw new cdp.Skip('SKIP: chromium not found (scripts/setup.sh installs it)');
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  run(path.join(bin, 'csrun'), ['-e', 'CPUTIME@1000', '-e', 'MEMALLOC', '-o', 'meas', prog], out);
  fs.writeFileSync(path.join(out, 'reading.struct'), run(path.join(bin, 'csprof-struct'), [prog], out));
  run(path.join(bin, 'csprof-prof'), ['-q', '-S', 'reading.struct', '-I', srcDir, 'meas', '-o', 'db'], out);
  const db = path.join(out, 'db');
  const reportBin = path.join(bin, 'csprof-report');
  const rep = V.report(reportBin, db, ['--view', 'top-down', '--inlines', 'keep', '--loops', 'keep', '--threshold', '0', '--limit', '0', '--depth', '0']);
  const hotLine = fs.readFileSync(path.join(srcDir, 'reading.c'), 'utf8').split('\n').findIndex((l) => l.includes('/* HOT')) + 1;
  assert.ok(hotLine > 100, 'reading.c marks its hot line');

  await cdp.withBrowser({}, async (browser) => {
    const page = await V.openDb(browser, db, { width: 1400, height: 900, hash: 'v=top-down' });
    V.assertClean(page, 'load');
    const metrics = await page.evaluate('window.csprofViewer.model().src.metrics.map((m) => m.name)');
    const memCol = 'incl-' + metrics.indexOf('MEMALLOC'), smpCol = 'incl-' + metrics.indexOf('samples');
    assert.ok(metrics.indexOf('MEMALLOC') > 0 && metrics.indexOf('samples') > 0, `metrics ${metrics}`);

    // ---- the header and toolbar: two rows at 1400 px; the legend
    const bars = await page.evaluate(`(() => {
      const b = (s) => document.querySelector(s).getBoundingClientRect();
      const btn = document.querySelector('#views button').getBoundingClientRect().height;
      return { header: b('header').height, toolbar: b('#toolbar').height, mainTop: b('#main').top, button: btn,
        derive: !!document.querySelector('#toolbar #derive'), legend: (document.getElementById('legend') || {}).textContent || '' };
    })()`);
    const oneRow = bars.button + 14; // a row of buttons, its padding and border
    assert.ok(bars.header <= oneRow && bars.toolbar <= oneRow,
      `header (${bars.header} px) and toolbar (${bars.toolbar} px) each one row of at most ${oneRow} px at 1400 px`);
    assert.ok(bars.mainTop <= 2 * oneRow, `the table starts ${bars.mainTop} px down: two rows of controls at most`);
    assert.ok(bars.derive, 'the derived-column field is still in the toolbar (in its menu)');
    for (const w of [/italic/, /inlined/, /loop/, /calls \(sampled\)/, /lower bound/, /†/, /fewer than 10 samples/, /2 samples per counted call/, /search/])
      assert.ok(w.test(bars.legend), `the legend explains ${w}: ${bars.legend}`);

    // ---- top-down rows: bars, decimals, units, calls
    await V.setState(page, { view: 'top-down', derived: 'x10=CPUTIME*10' }); // a derived column, its decimals lined up too (values under 1000, so that its 4 digits keep decimals: CPUTIME*1000 had none once the run passed 1 s)
    await page.evaluate('window.csprofViewer.expandAll()');
    await page.evaluate(frames());
    let rows = await allRows(page);
    assert.ok(rows.length >= 70, `${rows.length} rows shown`);
    const heads = await page.evaluate('Object.fromEntries([...document.querySelectorAll(".thead [data-col]")].map((h) => [h.dataset.col, {text: h.textContent, title: h.title}]))');
    assert.ok(/^calls \(sampled\)/.test(heads.calls.text), `calls column titled ${heads.calls.text}`);
    assert.ok(/lower bound/.test(heads.calls.title) && /trampoline/.test(heads.calls.title), `calls header tooltip: ${heads.calls.title}`);
    assert.ok(/blank/.test(heads['per-call'].title), `incl/call header tooltip: ${heads['per-call'].title}`);

    const checkTable = (rows, what) => {
      // a bar behind each percentage, as wide as the percentage of its cell
      for (const r of rows) for (const col of ['incl-pct', 'excl-pct']) {
        const c = r.cells[col];
        const p = Number(c.value);
        assert.ok(c.bar, `${what} ${r.name} ${col}: a bar behind ${c.text}`);
        assert.ok(Math.abs(c.bar.w - c.bar.cellW * p / 100) <= 1, `${what} ${r.name} ${col}: bar ${c.bar.w} px of ${c.bar.cellW} for ${p} %`);
        assert.ok(Math.abs(p - V.num(c.v)) <= 0.05 + 1e-9, `${what} ${r.name} ${col}: ${c.v} shows ${p}`);
      }
      // decimals line up: one '.' x per column, the same decimals in every cell
      for (const col of ['incl', 'excl', 'incl-pct', 'excl-pct', 'per-call', memCol, 'd-0']) {
        const cs = rows.map((r) => r.cells[col]).filter((c) => c && c.v);
        const xs = cs.filter((c) => c.dotX !== undefined).map((c) => c.dotX);
        assert.ok(xs.length >= 2 || col === 'per-call', `${what} ${col}: numbers with decimals (${xs.length})`);
        assert.ok(Math.max(...xs) - Math.min(...xs) <= 0.5, `${what} ${col}: decimal points at x ${Math.min(...xs)}..${Math.max(...xs)}`);
        const decs = new Set(cs.map((c) => (c.v.split('.')[1] || '').length));
        assert.strictEqual(decs.size, 1, `${what} ${col}: one count of decimals (${[...decs]}: ${cs.map((c) => c.v).join(' ')})`);
      }
      // counts: integers whose right edges line up
      const rs = rows.map((r) => r.cells[smpCol]).filter((c) => c && c.v).map((c) => c.right);
      assert.ok(Math.max(...rs) - Math.min(...rs) <= 0.5, `${what} samples: right edges ${Math.min(...rs)}..${Math.max(...rs)}`);
      // times and bytes for people, exact values kept
      for (const r of rows) {
        for (const col of ['incl', 'excl', 'per-call']) {
          const t = r.cells[col];
          if (col === 'per-call' && !t.v) continue;
          assert.ok(/^-?\d+\.\d$/.test(t.v) && /^(ns|µs|ms|s)$/.test(t.u), `${what} ${r.name} ${col}: time ${t.v} ${t.u}`);
          const scale = { ns: 1e-9, 'µs': 1e-6, ms: 1e-3, s: 1 }[t.u];
          const x = Number(t.value);
          assert.ok(Math.abs(V.num(t.v) * scale - x) <= 0.05 * scale + 1e-12, `${what} ${r.name} ${col}: ${t.v} ${t.u} shows ${x} s`);
          assert.ok(x === 0 || (x >= 0.9995 * scale && x < 1000 * scale) || t.u === 's', `${what} ${r.name} ${col}: ${x} s in ${t.u}`);
          assert.ok(t.title.includes(t.value) && /ns\)/.test(t.title), `${what} ${r.name} ${col}: the tooltip has the exact value: ${t.title}`);
        }
        const b = r.cells[memCol];
        assert.ok(/^\d+\.\d$/.test(b.v) && /^(B|KiB|MiB|GiB|TiB)$/.test(b.u), `${what} ${r.name}: bytes ${b.v} ${b.u}`);
        const bs = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4 }[b.u];
        assert.ok(Math.abs(V.num(b.v) * bs - Number(b.value)) <= 0.05 * bs, `${what} ${r.name}: ${b.v} ${b.u} shows ${b.value} bytes`);
      }
    };
    checkTable(rows, 'top-down');
    // the page's values are csprof-report's
    const repMain = rep.nodes.find((n) => n.name === 'main');
    const pageMain = rows.find((r) => r.name === 'main');
    assert.ok(Math.abs(Number(pageMain.cells.incl.value) - repMain.inclusive) <= 1e-6 * Math.max(1, repMain.inclusive),
      `main: page ${pageMain.cells.incl.value}, csprof-report ${repMain.inclusive}`);

    // ---- calls (sampled), incl/call and the indirect call site
    const site = rows.filter((r) => /^f[012]$/.test(r.name));
    assert.ok(site.length >= 2, `the indirect call site's callees shown: ${site.map((r) => r.name)}`);
    for (const r of site) {
      assert.ok(/^[\d,]+$/.test(r.cells.calls.v) && r.cells.calls.u === '†', `${r.name}: calls per call site marked: ${r.cells.calls.text}`);
      assert.ok(/call site/.test(r.cells.calls.title) && /indirect/.test(r.cells.calls.title), `${r.name}: calls tooltip ${r.cells.calls.title}`);
      assert.strictEqual(r.cells['per-call'].v, '', `${r.name}: no cost per call`);
      assert.ok(/call site/.test(r.cells['per-call'].title), `${r.name}: why not: ${r.cells['per-call'].title}`);
    }
    let shown = 0;
    for (const r of rows) {
      const c = r.cells.calls, pc = r.cells['per-call'];
      if (!c.v) { assert.strictEqual(pc.v, '', `${r.name}: no calls, no cost per call`); continue; }
      const n = Number(c.value), s = Number(r.cells[smpCol].value);
      const blank = c.u === '†' || s < 10 || s < 2 * n;
      assert.strictEqual(pc.v === '', blank, `${r.name}: ${n} calls, ${s} samples: incl/call ${pc.v === '' ? 'blank' : pc.v}`);
      if (blank && c.u !== '†') assert.ok(/samples/.test(pc.title), `${r.name}: the blank's reason: ${pc.title}`);
      if (!blank) {
        shown++;
        assert.ok(Math.abs(Number(pc.value) - Number(r.cells.incl.value) / n) <= 1e-9 * Math.max(1, Number(pc.value)), `${r.name}: incl/call = incl / calls`);
      }
    }
    assert.ok(shown >= 2, `incl/call shown where meaningful (${shown} rows)`);
    // small(): about one sample per counted call (calls shorter than the period)
    const small = rows.find((r) => r.name === 'small');
    assert.ok(small && Number(small.cells.calls.value) >= 5, `small's calls counted: ${small && small.cells.calls.text}`);
    assert.ok(small.cells['per-call'].v === '' && /per call/.test(small.cells['per-call'].title),
      `small: ${small.cells.calls.text} calls, ${small.cells[smpCol].text} samples: no cost per call (${small.cells['per-call'].title})`);

    // ---- deep rows: a name keeps room; the name column takes the rest
    const text = await page.evaluate('window.csprofViewer.tableText()');
    const lines = text.split('\n').slice(1);
    const deepest = lines.reduce((b, l, k) => { const d = /^ */.exec(l)[0].length / 2; return d > b.d ? { d: d, k: k } : b; }, { d: -1, k: 0 });
    assert.ok(deepest.d >= 55, `the recursion is ${deepest.d} rows deep`);
    await page.evaluate(`(() => { const s = document.querySelector('.table .scroll'); s.scrollTop = ${Math.max(0, deepest.k - 10)} * 20; s.dispatchEvent(new Event('scroll')); })()`);
    await page.evaluate(frames());
    rows = await page.evaluate(CELLS);
    assert.ok(rows.some((r) => r.depth >= 55), 'the deepest rows are on screen');
    for (const r of rows) {
      const c = r.cells.name;
      assert.ok(c.nameLeft <= c.cellRight - 0.4 * c.cellW, `${r.name} at depth ${r.depth}: its name starts ${Math.round(c.nameLeft - c.cellLeft)} px into a ${Math.round(c.cellW)} px column`);
    }
    const widths = await page.evaluate(`(() => { const row = document.querySelector('.rows .row[data-name]');
      const cs = [...row.querySelectorAll('[data-col]')];
      return { row: row.clientWidth, name: cs[0].getBoundingClientRect().width, rest: cs.slice(1).reduce((a, c) => a + c.getBoundingClientRect().width, 0) }; })()`);
    assert.ok(Math.abs(widths.name - (widths.row - widths.rest)) <= 2, `the name column takes the rest of the row: ${JSON.stringify(widths)}`);

    // ---- bottom-up and flat read alike
    for (const view of ['bottom-up', 'flat']) {
      await V.setState(page, { view: view, flatten: view === 'flat' ? 2 : 0 });
      await page.evaluate(frames());
      const rs = (await allRows(page)).filter((r) => r.name !== '[outside any shown frame]');
      assert.ok(rs.length >= 3, `${view}: ${rs.length} rows`);
      checkTable(rs, view);
    }

    // ---- Threads: CPU time and values for people too, exact in data-value
    await V.setState(page, { view: 'threads' });
    const th = await page.evaluate(`[...document.querySelectorAll('#thread-table tr[data-name] td[data-col="cpu"], #thread-table tr[data-name] td[data-col="value"]')].map((c) => [c.textContent, c.dataset.value])`);
    assert.ok(th.length >= 2, 'the thread table has CPU times and values');
    for (const [t, v] of th) {
      const mm = /^(\d+\.\d) (ns|µs|ms|s)$/.exec(t);
      assert.ok(mm, `threads: ${t} reads as a time`);
      const sc = { ns: 1e-9, 'µs': 1e-6, ms: 1e-3, s: 1 }[mm[2]];
      assert.ok(Math.abs(Number(mm[1]) * sc - Number(v)) <= 0.05 * sc + 1e-12, `threads: ${t} shows ${v} s`);
    }

    // ---- search: how much it matched, as csprof-report's tree says
    await V.setState(page, { view: 'top-down', flatten: 0, transforms: '', search: 'deep' });
    const sc = await page.evaluate('(() => { const e = document.getElementById("search-count"); return e ? e.textContent : ""; })()');
    const m = /^(\d+) match(?:es)?, ([\d.]+) % of CPUTIME$/.exec(sc);
    assert.ok(m, `the search says how much it matched: "${sc}"`);
    const byId = new Map(rep.nodes.map((n) => [n.id, n]));
    const hit = (n) => n.name.toLowerCase().includes('deep') && !/^loop /.test(n.name);
    const hits = rep.nodes.filter((n) => n.id !== rep.root.id && hit(n));
    const outer = hits.filter((n) => { for (let p = byId.get(n.parent); p && p.id !== rep.root.id; p = byId.get(p.parent)) if (hit(p)) return false; return true; });
    const want = 100 * outer.reduce((a, n) => a + n.inclusive, 0) / rep.root.inclusive;
    assert.strictEqual(Number(m[1]), hits.length, `matches: page ${m[1]}, csprof-report's tree ${hits.length}`);
    assert.ok(Math.abs(Number(m[2]) - want) <= 0.05 + 1e-9, `share matched: page ${m[2]} %, csprof-report ${want.toFixed(3)} %`);
    await V.setState(page, { search: '' });
    assert.strictEqual(await page.evaluate('document.getElementById("search-count").textContent'), '', 'no search, no count');

    // ---- source: opens at the hottest line, lines shaded by their share
    await page.evaluate('window.csprofViewer.find("hot_lines")');
    await V.switchView(page, 'source');
    await page.waitFor('document.querySelector(".src .rows .row")', 10000);
    await page.evaluate(frames());
    const SRC = `(() => {
      const sc = document.querySelector('.src .scroll');
      const rs = [...sc.querySelectorAll('.row[data-name]')].map((r) => ({ line: Number(r.dataset.name), top: r.getBoundingClientRect().top,
        heat: r.dataset.heat === undefined ? 0 : Number(r.dataset.heat), bg: getComputedStyle(r).backgroundColor, hot: r.classList.contains('hot'), mark: r.classList.contains('mark') }));
      const b = sc.getBoundingClientRect();
      return { top: b.top, bottom: b.bottom, scrollTop: sc.scrollTop, rows: rs };
    })()`;
    const src = await page.evaluate(SRC);
    const hr = src.rows.find((r) => r.line === hotLine);
    assert.ok(hr && hr.top >= src.top && hr.top + 20 <= src.bottom, `line ${hotLine} (HOT) is on screen when the pane opens (scrollTop ${src.scrollTop})`);
    assert.ok(hr.hot, `line ${hotLine} is marked the hottest`);
    assert.ok(hr.heat > 0.5, `line ${hotLine} holds ${hr.heat} of hot_lines`);
    const alpha = (c) => { const a = /rgba?\(([^)]*)\)/.exec(c); const p = a ? a[1].split(',').map(Number) : []; return p.length === 4 ? p[3] : p.length === 3 ? 1 : 0; };
    assert.ok(alpha(hr.bg) > 0, `the hot line is shaded: ${hr.bg}`);
    // hot_lines' first loop, 60 lines up: a tenth of the work, a lighter shade
    await page.evaluate(`(() => { const s = document.querySelector('.src .scroll'); s.scrollTop = ${Math.max(0, hotLine - 75)} * 20; s.dispatchEvent(new Event('scroll')); })()`);
    const up = await page.evaluate(SRC);
    const cool = up.rows.filter((r) => r.line < hotLine && r.heat > 0 && r.heat < hr.heat / 2);
    assert.ok(cool.length >= 1, `hot_lines' first loop (a tenth of the work) has a cost: ${JSON.stringify(up.rows.filter((r) => r.heat > 0))}`);
    for (const r of cool) assert.ok(alpha(r.bg) < alpha(hr.bg), `line ${r.line} (${r.heat}) shaded lighter than line ${hotLine}`);
    for (const r of src.rows.concat(up.rows).filter((x) => x.heat === 0 && !x.mark)) assert.strictEqual(alpha(r.bg), 0, `line ${r.line} without cost is not shaded`);
    await page.screenshot(path.join(out, 'source.png'));
    V.assertClean(page, 'reading');
  });
});
