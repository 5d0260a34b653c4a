// SPDX-License-Identifier: BSD-3-Clause
//
// driver_test.js -- self-test of cdp.js (ctest viewer_driver).
//
//   node test/viewer/driver_test.js [OUTDIR]
//
// Opens test/viewer/fixtures/driver/index.html over file:// in headless
// Chromium and checks that the driver reads what the page's <script> data
// file holds, that clicks, keys, scrolling and reload work, that a
// screenshot is a valid PNG of the viewport's size, and that the collectors
// can fail: a deliberate console.error, an uncaught exception and a fetch()
// of a remote URL are all recorded, and a fetch() of a local file is refused
// (proof that the browser runs without --allow-file-access-from-files).
// Exit 0 pass, 1 fail, 77 skip (no chromium).
'use strict';

const assert = require('assert');
const path = require('path');
const fs = require('fs');
const { pathToFileURL } = require('url');
const cdp = require('./cdp.js');
const vl = require('./viewer_lib.js');

const outDir = process.argv[2] || path.join(process.cwd(), 'viewer_driver_out');
const page0 = path.join(__dirname, 'fixtures', 'driver', 'index.html');

cdp.main(async () => {
  fs.mkdirSync(outDir, { recursive: true });
  await cdp.withBrowser({}, async (browser) => {
    console.log(`browser: ${browser.version}`);
    const url = pathToFileURL(page0).href;
    const page = await browser.newPage(url, { width: 800, height: 600 });
    await page.waitFor('document.documentElement.dataset.csprofReady === "1"', 10000);

    // Values read: from the data file, through the DOM contract.
    assert.strictEqual(await page.evaluate('window.fixture.total'), 42);
    const rows = await page.evaluate(`[...document.querySelectorAll('tr[data-name]')].map((tr) =>
      ({name: tr.dataset.name, incl: Number(tr.querySelector('[data-col="incl"]').textContent)}))`);
    assert.deepStrictEqual(rows.map((r) => r.incl), [42, 30, 20]);
    assert.strictEqual(rows[2].name, '</script><img src=x onerror="window.pwned=1">');
    assert.strictEqual(await page.evaluate('window.pwned === undefined && document.images.length'), 0);

    // A clean page: nothing collected yet except file: loads.
    assert.deepStrictEqual(page.errors(), []);
    assert.deepStrictEqual(page.nonFileRequests(), []);
    const loaded = page.requests.map((r) => path.basename(r.url));
    assert.ok(loaded.includes('data.js'), `requests seen: ${loaded.join(' ')}`);

    // Input: click, key, wheel.
    await page.clickSelector('#btn');
    await page.clickSelector('#btn');
    await page.waitFor('document.getElementById("count").textContent === "2"', 5000);
    await page.press('x');
    await page.waitFor('document.body.dataset.lastKey === "x"', 5000);
    await page.press('ArrowDown');
    await page.waitFor('document.body.dataset.lastKey === "ArrowDown"', 5000);
    const ms = await page.measure(() => page.scroll('#scroller', 300),
      'document.getElementById("scroller").scrollTop > 0', { timeoutMs: 5000 });
    assert.ok(ms >= 0);
    const inPage = await page.timeInPage('document.getElementById("btn").click()',
      'document.getElementById("count").textContent === "3"');
    assert.ok(inPage >= 0 && inPage < 30000);

    // Screenshot: a PNG of the viewport.
    const shot = path.join(outDir, 'driver.png');
    const size = await page.screenshot(shot);
    assert.deepStrictEqual(size, { width: 800, height: 600 });
    assert.deepStrictEqual(cdp.pngSize(fs.readFileSync(shot)), size);

    // The collectors can fail.
    const res = await page.evaluate('window.fixture.misbehave()');
    await page.waitFor('true', 1000);
    await new Promise((r) => setTimeout(r, 200)); // let the events arrive
    const errs = page.errors();
    assert.ok(errs.some((e) => e.includes('deliberate console error')), `errors: ${errs.join(' | ')}`);
    assert.ok(errs.some((e) => e.includes('deliberate uncaught exception')), `errors: ${errs.join(' | ')}`);
    assert.deepStrictEqual(page.dialogs, [{ type: 'alert', message: 'deliberate alert' }]);
    const remote = page.nonFileRequests().map((r) => r.url);
    assert.ok(remote.some((u) => u.startsWith('http://csprof.invalid/leak')), `non-file requests: ${remote}`);
    assert.ok(res.remote.startsWith('rejected'), `remote fetch: ${res.remote}`);
    assert.ok(res.local.startsWith('rejected'),
      `fetch() of a local file succeeded (${res.local}): is --allow-file-access-from-files set?`);

    // Reload: collectors keep counting, the page comes back.
    const nreq = page.requests.length;
    await page.reload();
    await page.waitFor('document.documentElement.dataset.csprofReady === "1"', 10000);
    assert.strictEqual(await page.evaluate('document.getElementById("count").textContent'), '0');
    assert.ok(page.requests.length > nreq);

    // Errors thrown by evaluate and waitFor carry the page's message.
    await assert.rejects(page.evaluate('nosuchvariable'), /nosuchvariable/);
    await assert.rejects(page.waitFor('false', 100), /condition not met/);
    await page.close();

    // viewer_lib on the same page: the DOM contract, ready time, view screenshots.
    const p2 = await vl.openDb(browser, page0, { width: 640, height: 480 });
    assert.ok(typeof p2.readyMs === 'number' && p2.readyMs > 0, `readyMs ${p2.readyMs}`);
    const r2 = await vl.rows(p2, '#t');
    assert.deepStrictEqual(r2.map((r) => vl.num(r.cols.excl)), [2, 10, 20]);
    assert.strictEqual(r2[0].name, 'main');
    assert.deepStrictEqual([vl.num('1,234.5 %'), vl.num('1.5e3'), vl.num('-3 s')], [1234.5, 1500, -3]);
    assert.ok(Number.isNaN(vl.num('-')));
    const shots = await vl.screenshotViews(p2, outDir, { views: ['flat'], prefix: 'lib-' });
    assert.deepStrictEqual(cdp.pngSize(fs.readFileSync(shots[0])), { width: 640, height: 480 });
    await assert.rejects(vl.screenshotViews(p2, outDir, { views: ['flame'] }), /no view switch/);
    vl.assertClean(p2, 'fixture');
    await p2.evaluate('window.fixture.misbehave()');
    await new Promise((r) => setTimeout(r, 200));
    assert.throws(() => vl.assertClean(p2, 'fixture'), /console error/);
    p2.console.length = 0;
    p2.exceptions.length = 0;
    p2.dialogs.length = 0;
    assert.throws(() => vl.assertClean(p2, 'fixture'), /leave file/);
  });
  console.log(`PASS: driver self-test (screenshot in ${outDir}/driver.png)`);
}, { timeoutMs: 90000 });
