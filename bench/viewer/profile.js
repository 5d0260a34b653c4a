// SPDX-License-Identifier: BSD-3-Clause
//
// profile.js -- where one viewer interaction spends its time: Chromium's
// sampling CPU profiler (DevTools Profiler domain, 100 us interval) around
// one action on DB/index.html in headless Chromium (bench tool, not a test).
//
//   node bench/viewer/profile.js DB ACTION [--before EXPR]... [--idle MS] [--top N] [--lines]
//
// A fresh tab opens DB; each --before expression is evaluated (untimed;
// e.g. 'csprofViewer.hotPath()'), then the page is left idle for --idle
// milliseconds (default 0: the action follows at once, as measure.js's
// first visits do), then ACTION (an expression, e.g.
// 'csprofViewer.setState({view: "bottom-up"})') runs under the profiler
// until two animation frames have passed.  Prints the action's time in the
// page and the functions of most self time (ms), with their script line;
// with --lines, the source lines of most samples instead (the profiler's
// position ticks: counts of samples, not ms).
'use strict';

const fs = require('fs');
const path = require('path');
const cdp = require('../../test/viewer/cdp.js');
const vl = require('../../test/viewer/viewer_lib.js');

const args = process.argv.slice(2);
const before = [];
let idle = 0, top = 25, lines = false;
const pos = [];
for (let k = 0; k < args.length; k++) {
  if (args[k] === '--before') before.push(args[++k]);
  else if (args[k] === '--idle') idle = Number(args[++k]);
  else if (args[k] === '--top') top = Number(args[++k]);
  else if (args[k] === '--lines') lines = true;
  else pos.push(args[k]);
}
const [db, action] = pos;

cdp.main(async () => {
  if (!db || !action) throw new Error('usage: profile.js DB ACTION [--before EXPR]... [--idle MS] [--top N] [--lines]');
  await cdp.withBrowser({ timeoutMs: 120000 }, async (browser) => {
    const page = await vl.openDb(browser, db, { width: 1400, height: 900, timeoutMs: 120000 });
    for (const b of before) await page.evaluate(b);
    if (idle > 0) await new Promise((r) => setTimeout(r, idle));
    await page.send('Profiler.enable');
    await page.send('Profiler.setSamplingInterval', { interval: 100 });
    await page.send('Profiler.start');
    const ms = await page.evaluate(`(async () => { const t0 = performance.now(); ${action};
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
      return performance.now() - t0; })()`);
    const { profile } = await page.send('Profiler.stop');
    const self = new Map();
    const dt = new Map();
    for (let k = 0; k < profile.samples.length; k++) {
      const id = profile.samples[k];
      dt.set(id, (dt.get(id) || 0) + (profile.timeDeltas[k + 1] || 0) / 1000);
    }
    let total = 0;
    for (const n of profile.nodes) {
      const f = n.callFrame;
      const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/.*\//, '')}:${f.lineNumber + 1}`;
      const t = dt.get(n.id) || 0;
      self.set(key, (self.get(key) || 0) + t);
      total += t;
    }
    console.log(`action: ${ms.toFixed(1)} ms in the page; profile: ${total.toFixed(1)} ms sampled`);
    if (lines) {
      // samples per script line, with the line's text (scripts read from DB)
      const ticks = new Map();
      let all = 0;
      for (const n of profile.nodes) {
        all += n.hitCount || 0;
        for (const p of n.positionTicks || []) {
          const key = `${n.callFrame.url.replace(/.*\//, '')}:${p.line}`;
          ticks.set(key, (ticks.get(key) || 0) + p.ticks);
        }
      }
      const text = new Map();
      const lineOf = function (key) {
        const [file, l] = key.split(':');
        if (!text.has(file)) {
          try { text.set(file, fs.readFileSync(path.join(db, 'viewer', file), 'utf8').split('\n')); } catch (e) { text.set(file, []); }
        }
        return (text.get(file)[Number(l) - 1] || '').trim().slice(0, 100);
      };
      for (const [k, c] of [...ticks].sort((a, b) => b[1] - a[1]).slice(0, top)) {
        console.log(`${String(c).padStart(6)} ${(100 * c / all).toFixed(1).padStart(5)}%  ${k.padEnd(16)} ${lineOf(k)}`);
      }
    } else {
      for (const [k, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${t.toFixed(1).padStart(8)} ms  ${k}`);
    }
    vl.assertClean(page, 'viewer');
    await page.close();
  });
}, { timeoutMs: 600000 });
