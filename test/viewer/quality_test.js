// SPDX-License-Identifier: BSD-3-Clause
//
// quality_test.js -- end-to-end test in headless Chromium of the viewer's
// Quality pane, the trust report (issue 21), against csprof-report --view
// quality (its JSON and its text) of the same database:
//  - Figure 1 (db1), Figure 1 with CSPROF_DEBUG_DROP_EVERY=10 (db2: doubtful,
//    samples.dropped.debug), both measurements in one database (db3: two
//    processes) and a program whose second thread blocks every signal with a
//    raw rt_sigprocmask (db4: doubtful, a notable thread);
//  - every ledger row the page shows, event by event and part by part, holds
//    the report's value (data-value exact, data-samples, the shown value in
//    seconds, in samples' worth and as a share of measured); the report's
//    text ledger line lists the same parts, words and samples' worth;
//  - the verdict, reason, advice, note and the overhead, threads and call
//    paths lines are the report's text lines, word for word;
//  - drops by reason and notable threads as the report's JSON; with two
//    processes, each one's verdict and ledger as its own database's report,
//    the doubtful one first;
//  - the raw Summary dump is kept, collapsed; a database without a Trust
//    element says so and opens the raw dump.
//
// usage: node quality_test.js BIN_DIR FIG1_BINARY BLOCKED_BINARY OUT_DIR
'use strict';
const assert = require('assert');
const child_process = require('child_process');
const fs = require('fs');
const path = require('path');
const cdp = require('./cdp.js');
const V = require('./viewer_lib.js');

const [bin, fig1, blockedProg, out] = process.argv.slice(2);

// The ledger's parts: csprof-report's JSON key, the page's label, the label
// in the report's text ledger line (lib/trust/trust.c print_ledger).
const PARTS = [
  ['measured', 'measured', null],
  ['recorded', 'recorded', 'recorded'],
  ['kernel', 'of it in the kernel', 'of them in the kernel'],
  ['dropped', 'dropped', 'dropped'],
  ['unplaced', 'in the kernel without a calling context', 'in the kernel without a calling context'],
  ['tail', 'after the last period', 'after the last period'],
  ['uncounted', 'not counted by the task clock', 'not counted by the task clock'],
  ['undelivered', 'not delivered', 'not delivered'],
  ['blocked', 'in blocked threads', 'in blocked threads'],
  ['unexplained', 'not explained', 'not explained']];

function run(cmd, args, cwd, env) {
  const r = child_process.spawnSync(cmd, args, { cwd: cwd, encoding: 'utf8', env: Object.assign({}, process.env, env || {}) });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

// csprof-report --view quality (text), its wrapped lines joined: one string
// per line of trust_print (continuation lines start with 4 spaces or more)
function textReport(db) {
  const lines = [];
  for (const l of run(path.join(bin, 'csprof-report'), ['--view', 'quality', db]).split('\n')) {
    if (l === '') continue;
    if (/^ {4,}/.test(l) && lines.length) lines[lines.length - 1] += ' ' + l.trim();
    else lines.push(l.trim());
  }
  return lines;
}

// Everything the Quality pane shows, read off the page through its data attributes.
async function readPane(page) {
  return page.evaluate(`(() => {
    const cells = (r) => { const o = {}; for (const c of r.querySelectorAll('[data-col]')) o[c.dataset.col] = c.textContent; return o; };
    const trust = document.getElementById('trust');
    const raw = document.getElementById('quality-raw');
    const ledgers = (scope) => [...document.querySelectorAll(scope + ' table[data-event]')].map((t) => ({
      event: t.dataset.event, period: t.dataset.period, process: t.dataset.process,
      rows: [...t.querySelectorAll('tr[data-ledger-part]')].map((r) => ({
        part: r.dataset.ledgerPart, event: r.dataset.event, period: r.dataset.period,
        value: r.dataset.value, samples: r.dataset.samples, cells: cells(r) })) }));
    return {
      verdict: trust ? trust.dataset.trustVerdict : null,
      lines: [...document.querySelectorAll('[data-trust-line]')].map((e) => ({ what: e.dataset.trustLine, event: e.dataset.event, text: e.textContent,
        inProcess: !!e.closest('#trust-process-ledgers') })),
      ledgers: ledgers('#trust-ledgers'),
      processLedgers: ledgers('#trust-process-ledgers'),
      drops: [...document.querySelectorAll('#trust-drops tr[data-drop-reason]')].map((r) => ({ reason: r.dataset.dropReason, samples: r.dataset.samples, cells: cells(r) })),
      threads: [...document.querySelectorAll('#trust-threads tr[data-trust-thread]')].map((r) => ({ index: r.dataset.trustThread, pid: r.dataset.pid, tid: r.dataset.tid,
        cpuNs: r.dataset.cpuNs, samples: r.dataset.samples, cells: cells(r) })),
      processes: [...document.querySelectorAll('#trust-processes tr[data-trust-process]')].map((r) => ({ process: r.dataset.trustProcess, pid: r.dataset.pid,
        verdict: r.dataset.verdict, cells: cells(r) })),
      raw: raw ? { tag: raw.tagName, open: raw.open, names: [...raw.querySelectorAll('[data-name]')].map((r) => r.dataset.name.trim()) } : null,
    };
  })()`);
}

function near(a, b, tol, what) {
  assert.ok(Math.abs(a - b) <= tol, `${what}: page ${a}, csprof-report ${b} (tolerance ${tol})`);
}

// One ledger table of the page against one event of the report's JSON.
function checkLedger(t, ev, what) {
  const l = ev.ledger, p = ev.period;
  assert.deepStrictEqual(t.rows.map((r) => r.part), PARTS.map((x) => x[0]), `${what}: the ledger's parts, in order`);
  for (const [key, label] of PARTS) {
    const r = t.rows.find((x) => x.part === key);
    const w = `${what} ${key}`;
    assert.strictEqual(r.event, ev.event, `${w}: data-event`);
    assert.strictEqual(Number(r.period), p, `${w}: data-period`);
    assert.strictEqual(Number(r.value), l[key].value, `${w}: data-value ${r.value}, csprof-report ${l[key].value}`);
    assert.strictEqual(r.cells.part, label, `${w}: label`);
    // shown in the display unit: seconds (6 decimals) for ns, else the raw count
    if (ev.unit === 'ns') near(V.num(r.cells.value) * 1e9, l[key].value, 500.5, `${w}: shown value (s)`);
    else assert.strictEqual(V.num(r.cells.value), l[key].value, `${w}: shown value`);
    if (p > 0) {
      near(Number(r.samples), l[key].samples, 0.0005 + 1e-9, `${w}: data-samples`);
      near(V.num(r.cells.samples), l[key].value / p, 0.05 + 1e-9, `${w}: samples' worth shown`);
    } else {
      assert.strictEqual(r.samples, undefined, `${w}: no samples' worth by frequency`);
    }
    near(V.num(r.cells.share), l.measured.value > 0 ? 100 * l[key].value / l.measured.value : 0, 0.05 + 1e-9, `${w}: share of measured`);
  }
}

// The page against csprof-report --view quality of @db (JSON @rep, text lines @txt).
function checkPane(pane, rep, txt, what) {
  assert.strictEqual(pane.verdict, rep.verdict, `${what}: data-trust-verdict`);
  // the text lines, word for word
  const own = pane.lines.filter((x) => !x.inProcess && x.what !== 'ledger');
  const page = own.map((x) => x.text);
  const kinds = /^(trust:|what to do:|note:|overhead:|threads:|call paths:|trampoline:|\d+ samples)/;
  assert.deepStrictEqual(page, txt.filter((l) => kinds.test(l)), `${what}: the page's lines are the report's`);
  assert.deepStrictEqual(own.map((x) => x.what).slice(0, 1), ['verdict'], `${what}: the verdict comes first`);
  if (rep.verdict === 'doubtful') {
    assert.strictEqual(own[0].text, 'trust: DOUBTFUL: ' + rep.reason, `${what}: reason`);
    assert.strictEqual(own[1].text, 'what to do: ' + rep.advice, `${what}: advice`);
  } else {
    assert.strictEqual(own[0].text, 'trust: trustworthy', `${what}: verdict line`);
    assert.strictEqual(own.some((x) => x.what === 'note'), rep.caveat !== '', `${what}: a note exactly when there is a caveat`);
  }
  // every event's ledger, path by path: same event, same part, same value
  const withLedger = rep.events.filter((e) => e.ledger);
  assert.strictEqual(pane.ledgers.length, withLedger.length, `${what}: one ledger table per event with a ledger`);
  withLedger.forEach((ev, k) => {
    const t = pane.ledgers[k];
    assert.strictEqual(t.event, ev.event, `${what}: ledger ${k}'s event`);
    assert.strictEqual(Number(t.period), ev.period, `${what}: ledger ${k}'s period`);
    checkLedger(t, ev, `${what} ${ev.event}@${ev.period}`);
    // the text report's ledger line: the page's heading, then the same parts
    // in the same words with the same samples' worth
    const head = pane.lines.filter((x) => !x.inProcess && x.what === 'ledger' && x.event === ev.event)[0];
    assert.ok(head, `${what}: a heading for ${ev.event}`);
    const line = txt.find((l) => l.startsWith(head.text + ':'));
    assert.ok(line, `${what}: the report has the line "${head.text}: ..." (${txt.join(' | ')})`);
    if (ev.period > 0) {
      const tail = line.slice(head.text.length + 2);
      const got = [...tail.matchAll(/(-?\d+\.\d) ([a-z ]+?)(?= \(|[,)]|$)/g)].map((m) => [m[2], m[1]]);
      assert.deepStrictEqual(got, PARTS.slice(1).map(([key, , tl]) => [tl, t.rows.find((r) => r.part === key).cells.samples]),
        `${what}: the report's ledger line lists the page's parts and samples' worth`);
    }
  });
  // drops by reason
  assert.deepStrictEqual(pane.drops.map((d) => [d.reason, Number(d.samples), d.cells.reason, V.num(d.cells.samples)]),
    Object.entries(rep.dropped).map(([k, v]) => [k, v, 'samples.dropped.' + k, v]), `${what}: drops by reason`);
  // notable threads
  assert.deepStrictEqual(pane.threads.map((x) => [Number(x.pid), Number(x.tid), Number(x.index), x.cells.command, Number(x.cpuNs), Number(x.samples),
    V.num(x.cells.samples), /ended with the sampling signal blocked/.test(x.cells.state)]),
  rep.notable_threads.map((x) => [x.pid, x.tid, x.thread_index, x.command, x.cpu_ns, x.samples, x.samples, x.blocked]), `${what}: notable threads`);
  // the raw dump, collapsed
  assert.ok(pane.raw && pane.raw.tag === 'DETAILS', `${what}: the raw Summary dump in a <details>`);
  assert.strictEqual(pane.raw.open, false, `${what}: the raw dump is collapsed`);
  for (const n of ['Summary', 'Trust', 'Ledger', 'Overhead', 'Threads', 'CallPaths'])
    assert.ok(pane.raw.names.includes(n), `${what}: the raw dump shows ${n}`);
}

cdp.main(async () => {
  if (!cdp.findChromium()) throw new cdp.Skip('SKIP: chromium not found (scripts/setup.sh installs it)');
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const prof = path.join(bin, 'csprof-prof'), csrun = path.join(bin, 'csrun'), report = path.join(bin, 'csprof-report');
  run(csrun, ['-e', 'CPUTIME@1000', '-o', 'm1', fig1], out);
  run(csrun, ['-e', 'CPUTIME@1000', '-o', 'm2', fig1], out, { CSPROF_DEBUG_DROP_EVERY: '10' });
  run(csrun, ['-e', 'CPUTIME@1000', '-o', 'm4', blockedProg], out);
  run(prof, ['-q', 'm1', '-o', 'db1'], out);
  run(prof, ['-q', 'm2', '-o', 'db2'], out);
  run(prof, ['-q', '--runs', 'sum', 'm1', 'm2', '-o', 'db3'], out); // two csrun runs, merged on purpose
  run(prof, ['-q', 'm4', '-o', 'db4'], out);
  // a database of an older csprof-prof: no Trust element
  fs.mkdirSync(path.join(out, 'old'));
  const xml = fs.readFileSync(path.join(out, 'db1', 'experiment.xml'), 'utf8');
  const noTrust = xml.replace(/[ \t]*<Trust[\s\S]*?<\/Trust>\n?/, '');
  assert.ok(noTrust.length < xml.length && !/<Trust/.test(noTrust), 'db1 has a Trust element to remove');
  fs.writeFileSync(path.join(out, 'old', 'experiment.xml'), noTrust);
  run(prof, ['--refresh-viewer', path.join(out, 'old')], out);
  const oldRep = child_process.spawnSync(report, ['--view', 'quality', path.join(out, 'old')], { encoding: 'utf8' });
  assert.strictEqual(oldRep.status, 1, 'csprof-report finds no trust report in the old database either');

  const pidOf = (db) => Number(/<Input [^>]*\bpid="(\d+)"/.exec(fs.readFileSync(path.join(out, db, 'experiment.xml'), 'utf8'))[1]);
  const reps = {}, txts = {};
  for (const db of ['db1', 'db2', 'db3', 'db4']) {
    reps[db] = V.report(report, path.join(out, db), ['--view', 'quality']);
    txts[db] = textReport(path.join(out, db));
  }
  // the runs this test is about
  assert.strictEqual(reps.db2.verdict, 'doubtful', `db2 (every 10th sample dropped) is doubtful: ${reps.db2.reason}`);
  assert.ok(reps.db2.reason.includes('samples.dropped.debug'), `db2's reason names samples.dropped.debug: ${reps.db2.reason}`);
  assert.ok(reps.db2.dropped.debug > 0, 'db2 dropped samples for reason debug');
  assert.strictEqual(reps.db4.verdict, 'doubtful', `db4 (a blocked thread) is doubtful: ${reps.db4.reason}`);
  assert.ok(reps.db4.notable_threads.some((t) => t.blocked), 'db4 names its blocked thread');
  assert.ok(reps.db4.events[0].ledger.blocked.value > 0, 'db4 has time in blocked threads');

  await cdp.withBrowser({}, async (browser) => {
    const panes = {};
    for (const db of ['db1', 'db2', 'db3', 'db4', 'old']) {
      const page = await V.openDb(browser, path.join(out, db), { width: 1300, height: 1000 });
      await V.switchView(page, 'quality');
      panes[db] = await readPane(page);
      await page.screenshot(path.join(out, db + '-quality.png'));
      V.assertClean(page, db);
      await page.close();
    }
    for (const db of ['db1', 'db2', 'db3', 'db4']) checkPane(panes[db], reps[db], txts[db], db);

    // the dropped run: DOUBTFUL because of samples.dropped.debug, its dropped row
    const p2 = panes.db2;
    assert.ok(p2.lines[0].text.startsWith('trust: DOUBTFUL: ') && p2.lines[0].text.includes('samples.dropped.debug'), `db2 verdict line: ${p2.lines[0].text}`);
    const drop = p2.ledgers[0].rows.find((r) => r.part === 'dropped'), meas = p2.ledgers[0].rows.find((r) => r.part === 'measured');
    assert.ok(Number(drop.value) > 0.05 * Number(meas.value), `db2 shows more than 5% dropped (${drop.value} of ${meas.value})`);
    const most = p2.drops.reduce((a, d) => (Number(d.samples) > Number(a.samples) ? d : a));
    assert.strictEqual(most.reason, 'debug', `db2: most drops are for reason debug: ${JSON.stringify(p2.drops)}`);

    // two processes: the doubtful one first; each one's verdict and ledger
    // are those of its own database
    const p3 = panes.db3;
    const pid1 = pidOf('db1'), pid2 = pidOf('db2');
    assert.deepStrictEqual(p3.processes.map((x) => Number(x.pid)).sort(), [pid1, pid2].sort(), 'db3: a row per process');
    const rank = (v) => (v === 'doubtful' ? 0 : 1);
    for (let k = 1; k < p3.processes.length; k++)
      assert.ok(rank(p3.processes[k - 1].verdict) <= rank(p3.processes[k].verdict), `db3: doubtful processes first: ${p3.processes.map((x) => x.verdict).join(', ')}`);
    for (const [pid, db] of [[pid1, 'db1'], [pid2, 'db2']]) {
      const row = p3.processes.find((x) => Number(x.pid) === pid);
      const rep = reps[db];
      assert.strictEqual(row.verdict, rep.verdict, `db3 process ${pid}: verdict of ${db}`);
      assert.strictEqual(row.cells.verdict, rep.verdict === 'doubtful' ? 'DOUBTFUL' : 'trustworthy', `db3 process ${pid}: verdict shown`);
      if (rep.verdict === 'doubtful') assert.ok(row.cells.why.startsWith(rep.reason + '; what to do: ' + rep.advice), `db3 process ${pid}: ${row.cells.why}`);
      assert.strictEqual(Number(row.cells.samples), rep.call_paths.samples, `db3 process ${pid}: samples`);
      const tabs = p3.processLedgers.filter((t) => t.process === row.process);
      const evs = rep.events.filter((e) => e.ledger);
      assert.strictEqual(tabs.length, evs.length, `db3 process ${pid}: its ledgers`);
      evs.forEach((ev, k) => checkLedger(tabs[k], ev, `db3 process ${pid} (${db}) ${ev.event}`));
    }
    assert.strictEqual(p3.processes[0].verdict, 'doubtful', 'db3: the dropped run\'s process is doubtful and first');
    assert.strictEqual(panes.db1.processes.length, 0, 'db1: one process, no process table');

    // the blocked thread: named, with its time in blocked threads
    const p4 = panes.db4;
    assert.ok(p4.threads.length >= 1 && p4.threads.some((x) => /ended with the sampling signal blocked/.test(x.cells.state)), 'db4: the blocked thread is listed');
    assert.ok(Number(p4.ledgers[0].rows.find((r) => r.part === 'blocked').value) > 0, 'db4: time in blocked threads');

    // an older database: the sentence, and the raw dump open
    const po = panes.old;
    assert.strictEqual(po.verdict, 'none', 'old: no verdict');
    assert.deepStrictEqual(po.lines.map((x) => x.text), ['no trust report in this database (written by an older csprof-prof)'], 'old: says why');
    assert.strictEqual(po.ledgers.length, 0, 'old: no ledger');
    assert.ok(po.raw && po.raw.open === true && po.raw.names.includes('Summary') && !po.raw.names.includes('Trust'), 'old: the raw dump, open');
  });
  console.log('quality_test: passed');
}, { timeoutMs: 180000 });
