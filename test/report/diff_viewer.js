// SPDX-License-Identifier: BSD-3-Clause
//
// diff_viewer.js -- the differential viewer of two builds in headless
// Chromium (test/viewer's driver): report_diffbuild keeps the databases of
// test/report/diff_build.c built with hot() inlined (inl.db, the base) and
// out of line (ool.db); csprof-prof --diff-viewer writes the viewer of
// inl.db -> ool.db, then the other way round (the current inlines).  In
// top-down (every row expanded), flat (procedures at the top) and bottom-up,
// hot() is one row, with a base value and a current value, each equal to
// csprof-report --diff's (which matches it the same way), and not a current
// row beside a base-only one; and in top-down it is under work(), as in both
// builds.  Its "Δ share" cell gives csprof-report's change of share and
// the interval of csprof-report's sample counts at the z its header names.
//
// usage: node diff_viewer.js BIN_DIR KEPT_DIR OUT_DIR
'use strict';
const assert = require('assert');
const child_process = require('child_process');
const fs = require('fs');
const path = require('path');
const cdp = require('../viewer/cdp.js');
const V = require('../viewer/viewer_lib.js');

const [bin, kept, out] = process.argv.slice(2);

function run(cmd, args) {
  const r = child_process.spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}
// Newcombe's hybrid score interval of x2/n2 - x1/n1 (as check_report.py diff-stats)
function wilson(x, n, z) {
  const p = x / n, den = 1 + z * z / n, mid = (p + z * z / (2 * n)) / den;
  const half = z * Math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den;
  return [Math.max(0, mid - half), Math.min(1, mid + half)];
}
function newcombe(x1, n1, x2, n2, z) {
  const p1 = x1 / n1, p2 = x2 / n2, [l1, u1] = wilson(x1, n1, z), [l2, u2] = wilson(x2, n2, z), d = p2 - p1;
  return [d - Math.hypot(p2 - l2, u1 - p1), d + Math.hypot(u2 - p2, p1 - l1)];
}
function close(a, b, what) {
  assert.ok(Math.abs(a - b) <= 2e-3 * Math.max(1e-3, Math.abs(b)), `${what}: page ${a}, csprof-report ${b}`);
}

cdp.main(async () => {
  if (!cdp.findChromium()) throw new cdp.Skip('SKIP: chromium not found (scripts/setup.sh installs it)');
  const inl = path.join(kept, 'inl.db'), ool = path.join(kept, 'ool.db');
  for (const db of [inl, ool])
    if (!fs.existsSync(path.join(db, 'experiment.xml'))) throw new Error(`${db}: missing (report_diffbuild keeps it)`);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  // both ways: the base inlines hot (inl -> ool), then the current does (ool -> inl)
  for (const [base, cur, tag, inlinedIn] of [[inl, ool, 'inlined', 'base'], [ool, inl, 'outlined', 'current']]) {
    const diff = path.join(out, 'diff-' + tag);
    run(path.join(bin, 'csprof-prof'), ['--diff-viewer', base, cur, '-o', diff]);
    // csprof-report's numbers of the matched procedure (its row and its context)
    const rep = JSON.parse(run(path.join(bin, 'csprof-report'), ['--diff', '--format', 'json', '--threshold', '0', base, cur]));
    const proc = rep.procedures.filter((r) => r.name === 'hot');
    assert.strictEqual(proc.length, 1, `${tag}: csprof-report: one procedure row hot`);
    const want = { base: proc[0].base.inclusive, current: proc[0].current.inclusive };
    const ctx = rep.contexts.filter((r) => r.name === 'hot');
    assert.strictEqual(ctx.length, 1, `${tag}: csprof-report: one context row hot`);
    assert.ok(want.base > 0 && want.current > 0, `${tag}: hot has samples in both builds: ${JSON.stringify(want)}`);
    assert.deepStrictEqual(proc[0].inlined, [inlinedIn], `${tag}: hot is inlined in the ${inlinedIn} only`);

    await cdp.withBrowser({}, async (browser) => {
      const page = await V.openDb(browser, diff);
      assert.ok((await V.state(page)).diff, 'a differential viewer');
      for (const view of ['top-down', 'flat', 'bottom-up']) {
        await V.setState(page, { view: view, flatten: view === 'flat' ? 2 : 0 });
        await page.evaluate('window.csprofViewer.expandAll()');
        const lines = (await page.evaluate('window.csprofViewer.tableText()')).trimEnd().split('\n').map((l) => l.split('\t'));
        const head = lines[0], col = (t) => head.findIndex((h) => h === t || h.endsWith(t));
        const ci = col(' incl'), cb = col('base incl');
        assert.ok(ci >= 0 && cb >= 0, `${tag} ${view}: columns incl and base incl: ${head.join(' | ')}`);
        const cs = head.findIndex((h) => h.startsWith('Δ share (95%, z='));
        assert.ok(cs >= 0, `${tag} ${view}: a column Δ share: ${head.join(' | ')}`);
        const z = Number(head[cs].match(/z=([0-9.]+)/)[1]);
        const depth = (l) => (l[0].length - l[0].trimStart().length) / 2;
        // bottom-up: the procedure rows (depth 0); elsewhere every row of hot
        const hits = lines.slice(1).filter((l) => l[0].trim() === 'hot' && (view !== 'bottom-up' || depth(l) === 0));
        assert.strictEqual(hits.length, 1, `${tag} ${view}: hot is one row, not a current and a base-only row (${hits.map((l) => l.join(' | ')).join(' ;; ')})`);
        close(V.num(hits[0][cb]), want.base, `${tag} ${view}: hot's base value`);
        close(V.num(hits[0][ci]), want.current, `${tag} ${view}: hot's current value`);
        // the change of hot's share, csprof-report's; its interval from csprof-report's sample
        // counts at the page's z; * when it excludes 0
        const r = view === 'top-down' ? ctx[0] : proc[0];
        const mm = hits[0][cs].match(/^([-+][0-9.]+) \[([-+][0-9.]+), ([-+][0-9.]+)\]( \*)?$/);
        assert.ok(mm, `${tag} ${view}: hot's Δ share: '${hits[0][cs]}'`);
        const iv = newcombe(r.samples.base, rep.base_samples, r.samples.current, rep.current_samples, z).map((x) => 100 * x);
        const near = (a, b, what) => assert.ok(Math.abs(a - b) <= 0.008, `${tag} ${view}: hot's ${what}: page ${a}, want ${b.toFixed(4)} ('${hits[0][cs]}')`);
        near(Number(mm[1]), r.delta_normalized_percent, 'change of share');
        near(Number(mm[2]), iv[0], 'interval low');
        near(Number(mm[3]), iv[1], 'interval high');
        assert.strictEqual(!!mm[4], iv[0] > 0 || iv[1] < 0, `${tag} ${view}: hot's significance mark: '${hits[0][cs]}'`);
        if (view === 'top-down') {
          const k = lines.indexOf(hits[0]);
          let p = k - 1;
          while (p > 0 && depth(lines[p]) >= depth(hits[0])) p--;
          assert.strictEqual(lines[p][0].trim(), 'work', `${tag} top-down: hot is under work`);
        }
      }
      await V.setState(page, { view: 'top-down', flatten: 0 });
      await page.screenshot(path.join(out, 'diff-' + tag + '.png'));
      V.assertClean(page, 'diff viewer');
    });
  }
  console.log('diff_viewer: passed');
}, { timeoutMs: 150000 });
