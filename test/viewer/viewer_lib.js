// SPDX-License-Identifier: BSD-3-Clause
//
// viewer_lib.js -- helpers for end-to-end tests of csprof's viewer
// (DB/index.html) in headless Chromium, on top of cdp.js.  Node >= 18,
// CommonJS, no npm packages.
//
// The viewer's DOM contract these helpers rely on:
//   document.documentElement.dataset.csprofReady  "1" once loaded, "error" on a
//       failure, with the message in #csprof-error;
//   table rows: elements with data-name (the scope's name), their cells
//       data-col="<column id>";
//   view switches: [data-view="top-down|bottom-up|flat|flame|icicle|source|
//       threads|quality|sandwich"];
//   window.csprofViewer.state() / setState(obj).
//
// API:
//   VIEWS                          the view names above (array)
//   openDb(browser, db, {hash, width, height, timeoutMs})
//       -> page: opens file://DB/index.html[#hash] in a fresh tab and waits for
//          ready; throws with #csprof-error's text on "error" and with the page's
//          errors on a timeout.  page.readyMs: performance.now() in the page
//          when data-csprof-ready became "1" (ms since navigation start).
//   waitReady(page, timeoutMs)     the same wait after a reload/navigation; -> readyMs
//   assertClean(page, what)        throws if the page logged a console error, threw,
//                                  or requested anything that is not file:/data:/blob:
//   rows(page, scope)              -> [{name, cols: {colId: text}, vals: {colId: number}}]
//                                  of the visible rows (scope: CSS of a container,
//                                  default document); vals: the cells' data-value
//   val(row, colId)                a row's exact number: vals[colId], else num(cols[colId])
//   num(text)                      a cell's number: "1,234.5", "12.3 %", "1.2e3",
//                                  "1.5 s", "-" -> NaN
//   switchView(page, view)         clicks [data-view=view]; waits until the state's
//                                  view is that view (when state() reports one) and
//                                  two animation frames passed
//   state(page) / setState(page, obj)  window.csprofViewer.state() / setState(obj)
//   screenshotViews(page, outDir, {views, prefix})
//                                  switches to each view present and saves
//                                  OUTDIR/PREFIX<view>.png; -> [paths]; throws when a
//                                  view in `views` (default VIEWS) has no switch
//   report(reportBin, db, args)    -> parsed JSON of `csprof-report --format json ARGS DB`
//   fileUrl(p)                     file:// URL of a path (hash kept apart)
'use strict';

const assert = require('assert');
const child_process = require('child_process');
const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');

const VIEWS = ['top-down', 'bottom-up', 'flat', 'flame', 'icicle', 'source', 'threads', 'quality', 'sandwich'];

// Runs in every document before its scripts: records when the viewer
// declares itself ready, so time to ready does not include polling delay.
const READY_HOOK = `(() => {
  const rec = () => {
    const v = document.documentElement && document.documentElement.dataset.csprofReady;
    if (v && window.__csprofReadyAt === undefined) window.__csprofReadyAt = performance.now();
  };
  const start = () => {
    rec();
    new MutationObserver(rec).observe(document.documentElement,
      {attributes: true, attributeFilter: ['data-csprof-ready']});
  };
  if (document.documentElement) start();
  else document.addEventListener('readystatechange', start, {once: true});
})();`;

function fileUrl(p) {
  return pathToFileURL(path.resolve(p)).href;
}

async function waitReady(page, timeoutMs = 30000) {
  await page.waitFor('document.documentElement && document.documentElement.dataset.csprofReady', timeoutMs);
  const v = await page.evaluate('document.documentElement.dataset.csprofReady');
  if (v !== '1') {
    const msg = await page.evaluate('(document.getElementById("csprof-error") || {}).textContent || ""');
    throw new Error(`viewer reported csprofReady=${v}: ${msg}` +
      (page.errors().length ? `; page errors: ${page.errors().join(' | ')}` : ''));
  }
  page.readyMs = await page.evaluate('window.__csprofReadyAt');
  return page.readyMs;
}

async function openDb(browser, db, opts = {}) {
  const index = db.endsWith('.html') ? db : path.join(db, 'index.html');
  if (!fs.existsSync(index)) throw new Error(`${index}: no such file (did csprof-prof write the viewer?)`);
  const url = fileUrl(index) + (opts.hash ? '#' + String(opts.hash).replace(/^#/, '') : '');
  const page = await browser.newPage(url, { width: opts.width || 1400, height: opts.height || 900,
    beforeLoad: READY_HOOK });
  await waitReady(page, opts.timeoutMs || 30000);
  return page;
}

function assertClean(page, what = 'page') {
  const errs = page.errors();
  assert.ok(errs.length === 0, `${what}: ${errs.length} console error(s)/exception(s): ${errs.join(' | ')}`);
  const remote = page.nonFileRequests().map((r) => r.url);
  assert.ok(remote.length === 0, `${what}: requests that leave file:: ${remote.join(' ')}`);
}

async function rows(page, scope = null) {
  return page.evaluate(`(() => {
    const root = ${scope ? `document.querySelector(${JSON.stringify(scope)})` : 'document'};
    if (!root) return [];
    return [...root.querySelectorAll('[data-name]')].map((r) => {
      const cols = {}, vals = {};
      for (const c of r.querySelectorAll('[data-col]')) {
        cols[c.dataset.col] = c.textContent;
        if (c.dataset.value !== undefined) vals[c.dataset.col] = Number(c.dataset.value);
      }
      return {name: r.dataset.name, cols, vals};
    });
  })()`);
}

// A row's (rows()) number in column @col: the cell's exact value (data-value:
// a number shown for people, "58.7 ms", keeps it there), else num(its text).
function val(row, col) {
  return row.vals && row.vals[col] !== undefined ? row.vals[col] : num(row.cols[col]);
}

function num(text) {
  if (text === undefined || text === null) return NaN;
  const t = String(text).replace(/[,\u202f\u00a0 ]/g, '').replace(/%$/, '');
  const m = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?/i.exec(t);
  return m ? Number(m[0]) : NaN;
}

async function state(page) {
  return page.evaluate('window.csprofViewer.state()');
}

async function setState(page, obj) {
  await page.evaluate(`window.csprofViewer.setState(${JSON.stringify(obj)})`);
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())))');
}

async function switchView(page, view) {
  const sel = `[data-view="${view}"]`;
  await page.clickSelector(sel);
  await page.waitFor(`(() => {
    const v = window.csprofViewer && window.csprofViewer.state && window.csprofViewer.state();
    return !v || v.view === undefined || v.view === ${JSON.stringify(view)};
  })()`, 10000);
  await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())))');
}

async function screenshotViews(page, outDir, opts = {}) {
  const views = opts.views || VIEWS;
  const prefix = opts.prefix || '';
  const out = [];
  for (const v of views) {
    const present = await page.evaluate(`!!document.querySelector('[data-view="${v}"]')`);
    if (!present) throw new Error(`no view switch [data-view="${v}"] on the page`);
    await switchView(page, v);
    const file = path.join(outDir, `${prefix}${v}.png`);
    await page.screenshot(file);
    out.push(file);
  }
  return out;
}

function report(reportBin, db, args = []) {
  const r = child_process.spawnSync(reportBin, ['--format', 'json', ...args, db],
    { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${reportBin} ${args.join(' ')} ${db}: exit ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

module.exports = { VIEWS, READY_HOOK, openDb, waitReady, assertClean, rows, val, num, state, setState,
  switchView, screenshotViews, report, fileUrl };
