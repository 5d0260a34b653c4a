// SPDX-License-Identifier: BSD-3-Clause
//
// measure.js -- times csprof's viewer (DB/index.html) in headless Chromium
// (bench/viewer/run.sh calls it; not a test).
//
//   node bench/viewer/measure.js DB [REPS] [--placeholder] [--cold]
//
// Per repetition, a fresh tab opens file://DB/index.html and the driver
// times, through the page's contract (share/schemas/viewer-data.md):
//   ready            navigation start -> data-csprof-ready="1" (in-page clock)
//   idle work done   navigation start -> data-csprof-idle-ms: the page's
//                    idle-time preparation after ready (first view's
//                    bottom-up and flat rows, memory and compiled code for
//                    transforms), which the driver waits for before the
//                    actions, as a user reading the first view would; with
//                    --cold it does not wait (actions start at ready)
//   hot path         csprofViewer.hotPath() (the 'h' key)
//   sort by excl     setState({sort: 'excl'})
//   view X           a click on [data-view=X] (first visit: lazy builds count)
//   switch metric    setState({metric: 1}); then back to 0
//   search           setState({search: the hot path's last name}); cleared
//   transform T      setState({transforms: T}) for hide-loops, collapse-recursion,
//                    hide-inlines, focus-function and hide (the hot path's last
//                    procedure), focus-subtree (its node), hide-lib (the module
//                    of most nodes but the first); then back to none
//   view bottom-up after a transform   collapse-recursion in top-down, the page
//                    left idle (its idle-time jobs done), then bottom-up
//   transform in bottom-up / flat   hide-loops in the bottom-up view,
//                    hide-inlines in the flat view (their rows rebuilt)
//   bottom-up: open  the heaviest bottom-up row's twisty (its callers), then
//                    its first caller's; flat: flatten by one level and back
//   scroll           the bottom-up table scrolled by 200 rows until another
//                    row is first
// Each action is timed in the page with performance.now(), from before the
// action until the condition holds and two animation frames have passed
// (layout and paint included).  The table prints the median and the range
// over repetitions, the DOM element count after the action (only visible rows
// may exist) and the JS heap.  With --placeholder (no viewer built yet) only
// "ready" is timed, on bench/viewer/placeholder.html.
'use strict';

const path = require('path');
const cdp = require('../../test/viewer/cdp.js');
const vl = require('../../test/viewer/viewer_lib.js');

const args = process.argv.slice(2);
const placeholder = args.includes('--placeholder');
const cold = args.includes('--cold');
const pos = args.filter((a) => !a.startsWith('--'));
const db = pos[0];
const reps = Number(pos[1] || 3);

function median(a) {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

const frames = 'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())))';

// [label, action expression, condition expression, untimed setup expression]
function actions(hotName, hotSel, lib) {
  const acts = [
    ['hot path (h)', 'csprofViewer.hotPath()', 'true'],
    ['sort by exclusive', 'csprofViewer.setState({sort: "excl"})', 'csprofViewer.state().sort === "excl"'],
    ['sort by inclusive', 'csprofViewer.setState({sort: "incl"})', 'csprofViewer.state().sort === "incl"'],
    ['switch metric', 'csprofViewer.setState({metric: 1})', 'csprofViewer.state().metric === 1'],
    ['  (back)', 'csprofViewer.setState({metric: 0})', 'csprofViewer.state().metric === 0'],
  ];
  if (hotName) {
    acts.push(['search (top-down)', `csprofViewer.setState({search: ${JSON.stringify(hotName)}})`, 'true']);
    acts.push(['  (clear)', 'csprofViewer.setState({search: ""})', 'true']);
  }
  for (const v of ['bottom-up', 'flat', 'flame', 'icicle', 'threads', 'quality', 'source', 'top-down']) {
    acts.push([`view ${v}`, `document.querySelector('[data-view="${v}"]').click()`,
      `csprofViewer.state().view === "${v}"`]);
  }
  const ts = ['hide-loops', 'collapse-recursion', 'hide-inlines'];
  if (hotName) ts.push(`focus-function:${encodeURIComponent(hotName)}`, `hide:${encodeURIComponent(hotName)}`);
  if (hotSel > 0) ts.push(`focus-subtree:${hotSel}`);
  if (lib) ts.push(`hide-lib:${encodeURIComponent(lib)}`);
  for (const t of ts) {
    acts.push([`transform ${t.split(':')[0]}`, `csprofViewer.setState({transforms: ${JSON.stringify(t)}})`, 'true']);
    acts.push(['  (remove it)', 'csprofViewer.setState({transforms: ""})', 'true']);
  }
  // a transform in the bottom-up and flat views: their rows of the new view too
  acts.push(['transform hide-loops (bottom-up view)', 'csprofViewer.setState({transforms: "hide-loops"})', 'true',
    `document.querySelector('[data-view="bottom-up"]').click()`]);
  acts.push(['  (remove it)', 'csprofViewer.setState({transforms: ""})', 'true']);
  acts.push(['transform hide-inlines (flat view)', 'csprofViewer.setState({transforms: "hide-inlines"})', 'true',
    `document.querySelector('[data-view="flat"]').click()`]);
  acts.push(['  (remove it)', 'csprofViewer.setState({transforms: ""})', 'true']);
  // after a transform in the top-down view and a pause (the page idle: its
  // rows built then), the bottom-up view
  acts.push(['view bottom-up after a transform', `document.querySelector('[data-view="bottom-up"]').click()`,
    'csprofViewer.state().view === "bottom-up"',
    `(async () => { document.querySelector('[data-view="top-down"]').click(); csprofViewer.setState({transforms: "collapse-recursion"});
      await new Promise((r) => setTimeout(r, 1000)); // the page queues its idle work a moment after a transform
      for (let k = 0; k < 600 && csprofViewer.idleJobs(); k++) await new Promise((r) => setTimeout(r, 50)); })()`]);
  acts.push(['  (remove it)', 'csprofViewer.setState({transforms: ""})', 'true']);
  // opening rows: the heaviest bottom-up row's callers, then its first
  // caller's callers; flattening the flat view (which opens at procedures,
  // level 2) by one level and back
  const twisty = (k) => `document.querySelectorAll('[data-twisty]')[${k}]`;
  acts.push(['bottom-up: open the first row (callers)', `${twisty(0)}.click()`, `${twisty(0)}.textContent === '▾'`,
    `document.querySelector('[data-view="bottom-up"]').click()`]);
  acts.push(['bottom-up: open its first caller', `${twisty(1)}.click()`, `${twisty(1)}.textContent === '▾'`]);
  acts.push(['flat: flatten one level', `document.getElementById('flatten').click()`, 'csprofViewer.state().flatten === 3',
    `document.querySelector('[data-view="flat"]').click()`]);
  acts.push(['  (unflatten)', `document.getElementById('unflatten').click()`, 'csprofViewer.state().flatten === 2']);
  // scrolling needs a long table: the bottom-up view lists every procedure
  acts.push(['scroll 200 rows (bottom-up)', `(() => {
      const row = document.querySelector('[data-name]');
      let el = row && row.parentElement;
      while (el && !(el.scrollHeight > el.clientHeight + 10 && getComputedStyle(el).overflowY !== 'visible')) el = el.parentElement;
      if (!el) throw new Error('no scrolling table');
      window.__benchFirst = row.dataset.name + '|' + row.getBoundingClientRect().top;
      el.scrollTop += 200 * (row.getBoundingClientRect().height || 20);
    })()`, `(() => { const r = document.querySelector('[data-name]');
      return r && (r.dataset.name + '|' + r.getBoundingClientRect().top) !== window.__benchFirst; })()`,
  `document.querySelector('[data-view="bottom-up"]').click()`]);
  return acts;
}

cdp.main(async () => {
  if (!db) throw new Error('usage: measure.js DB [REPS] [--placeholder]');
  const results = new Map(); // label -> {ms: [], dom: [], heap: []}
  const add = (label, ms, dom, heap) => {
    if (!results.has(label)) results.set(label, { ms: [], dom: [], heap: [] });
    const r = results.get(label);
    r.ms.push(ms);
    r.dom.push(dom);
    r.heap.push(heap);
  };
  const probe = `({dom: document.getElementsByTagName('*').length,
    heap: performance.memory ? performance.memory.usedJSHeapSize : 0})`;
  let version = '';
  let nodes = null;
  await cdp.withBrowser({ timeoutMs: 120000 }, async (browser) => {
    version = browser.version;
    for (let rep = 0; rep < reps; rep++) {
      const page = await vl.openDb(browser, placeholder ? path.join(db, 'placeholder.html') : db,
        { width: 1400, height: 900, timeoutMs: 120000 });
      let p = await page.evaluate(probe);
      add('ready (load + first paint)', page.readyMs, p.dom, p.heap);
      if (placeholder) {
        nodes = await page.evaluate('window.CSPROF_DB.n');
        await page.close();
        continue;
      }
      nodes = await page.evaluate('csprofViewer.model().src.data.n');
      if (!cold) {
        await page.waitFor('document.documentElement.dataset.csprofIdleMs', 120000);
        add('idle work done (since navigation start)', Number(await page.evaluate('document.documentElement.dataset.csprofIdleMs')), p.dom, p.heap);
      }
      await page.evaluate('csprofViewer.hotPath()');
      const hotName = await page.evaluate('csprofViewer.state().selName');
      const hotSel = await page.evaluate('csprofViewer.state().sel');
      // a library to hide: the load module of most nodes after the first
      const lib = await page.evaluate(`(() => { const s = csprofViewer.model().src, c = new Map();
        for (let i = 0; i < s.n; i += 97) if (s.lm[i] > 0) c.set(s.lm[i], (c.get(s.lm[i]) || 0) + 1);
        let b = -1; for (const [k, v] of c) if (b < 0 || v > c.get(b)) b = k;
        return b < 0 ? '' : s.modules[b].split('/').pop(); })()`);
      for (const [label, act, cond, setup] of actions(hotName, hotSel, lib)) {
        if (setup) {
          await page.evaluate(setup);
          await page.evaluate(frames);
        }
        const ms = await page.timeInPage(act, cond, { timeoutMs: 120000 });
        p = await page.evaluate(probe);
        add(label, ms, p.dom, p.heap);
      }
      vl.assertClean(page, 'viewer');
      await page.close();
      process.stderr.write(`measure.js: repetition ${rep + 1}/${reps} done\n`);
    }
  });
  const fmt = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
  console.log(`viewer: ${placeholder ? 'placeholder.html (loads the data file only)' : db}; ${nodes} CCT nodes; ` +
    `${version}, headless, --disable-gpu; ${reps} repetition(s), fresh tab each` +
    (placeholder ? '' : cold ? '; cold: actions from ready on' : '; actions after the idle work'));
  console.log('');
  console.log('| action | median ms | min–max ms | DOM elements | JS heap MB |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [label, r] of results) {
    console.log(`| ${label} | ${fmt(median(r.ms))} | ${fmt(Math.min(...r.ms))}–${fmt(Math.max(...r.ms))} | ` +
      `${Math.max(...r.dom)} | ${(Math.max(...r.heap) / 1048576).toFixed(0)} |`);
  }
}, { timeoutMs: 3600000 });
