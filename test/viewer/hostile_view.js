// SPDX-License-Identifier: BSD-3-Clause
//
// hostile_view.js -- the viewer part of the hostile-names test (run by
// hostile.sh when DB/index.html exists):
//   node test/viewer/hostile_view.js DB...
// For each database: opens DB/index.html over file://, visits every view,
// and checks that no script from the data ran (window.__csprofPwned stays
// undefined, no alert/confirm dialog opened, no <img> or <script> element
// carries a data payload), that no console error occurred and that no
// request left file:.  Screenshots go to DB/../view-<db>-<view>.png.
// h/viewer extends it with literal-rendering checks of each name.
'use strict';

const assert = require('assert');
const path = require('path');
const cdp = require('./cdp.js');
const vl = require('./viewer_lib.js');

const dbs = process.argv.slice(2);

cdp.main(async () => {
  if (dbs.length === 0) throw new Error('usage: hostile_view.js DB...');
  await cdp.withBrowser({}, async (browser) => {
    for (const db of dbs) {
      const page = await vl.openDb(browser, db);
      const views = await page.evaluate(`[...document.querySelectorAll('[data-view]')].map((e) => e.dataset.view)`);
      for (const v of [...new Set(views)]) {
        await vl.switchView(page, v);
        await page.screenshot(path.join(path.dirname(db), `view-${path.basename(db)}-${v}.png`));
      }
      await new Promise((r) => setTimeout(r, 300)); // let an onerror fire
      const pwned = await page.evaluate(`({flag: window.__csprofPwned === undefined ? null : window.__csprofPwned,
        payload: [...document.querySelectorAll('img, script')].filter((e) =>
          /__csprofPwned/.test(e.outerHTML)).length})`);
      assert.deepStrictEqual(pwned, { flag: null, payload: 0 }, `${db}: script from the data ran`);
      assert.deepStrictEqual(page.dialogs, [], `${db}: dialogs opened`);
      // every procedure the report names is shown literally (as text, not markup)
      if (process.env.CSPROF_BIN) {
        const rep = vl.report(path.join(process.env.CSPROF_BIN, 'csprof-report'), db,
          ['--view', 'bottom-up', '--depth', '1']);
        const want = rep.nodes.filter((n) => n.depth === 1 && n.kind === 'frame').map((n) => n.name);
        await vl.setState(page, { view: 'bottom-up', transforms: '', search: '' });
        const shown = await vl.rows(page);
        for (const name of want) {
          const row = shown.find((r) => r.name === name);
          assert.ok(row, `${db}: procedure ${JSON.stringify(name)} listed in bottom-up`);
          assert.ok(row.cols.name.endsWith(name), `${db}: ${JSON.stringify(name)} shown as text`);
        }
        assert.ok(want.length > 0, `${db}: the report names procedures`);
      }
      vl.assertClean(page, db);
      console.log(`ok: ${db}: ${views.length} views, no script from the data ran`);
      await page.close();
    }
  });
}, { timeoutMs: 110000 });
