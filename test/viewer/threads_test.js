// SPDX-License-Identifier: BSD-3-Clause
//
// threads_test.js -- the viewer's Threads view and title on multi-process
// runs, in headless Chromium (issue 22, items 1 and 9):
//
//  - a real run of test/report/multiproc.c (6 processes, 8 threads, known
//    CPU times: one child execs another program, one has no sample, one has
//    two threads): the thread and process counts of the heading, the
//    statistics, the tables, csprof-prof's summary and csprof-report agree;
//    every thread's and process's value is csprof-report's for that thread,
//    within bounds of the CPU time it burned, and for a procedure only one
//    process ran (exec_work) only that process has a value; rows carry
//    their command (the exec'd process: multiproc_exec, via multiproc);
//  - a hand-built database of a run through a wrapper
//    (test/report/wrapper_run.xml, a pyenv shim: env, bash, then
//    python3.11; helpers that end before it): the page is titled as
//    csprof-report titles it, the root (the top-down root and the flame
//    graph's root box) is python3.11, not the first file's program, the
//    three wrapper processes are folded into one row with their summed
//    value and shown again by #show-wrappers (kept in the URL), every value
//    equal to the per-thread values written.
//
// usage: node threads_test.js BIN_DIR SOURCE_DIR OUT_DIR   (CC: the C compiler)
'use strict';
const assert = require('assert');
const child_process = require('child_process');
const fs = require('fs');
const path = require('path');
const cdp = require('./cdp.js');
const V = require('./viewer_lib.js');

const [bin, srcDir, out] = process.argv.slice(2);

function run(cmd, args, cwd) {
  const r = child_process.spawnSync(cmd, args, { cwd: cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}
function close(a, b, what, rel = 1e-6) {
  assert.ok(Math.abs(a - b) <= rel * Math.max(1e-9, Math.abs(a), Math.abs(b)), `${what}: page ${a}, expected ${b}`);
}

// The Threads view as data: heading counts, statistics, and each table's rows
// {attrs (data-*), cells by column (text), values by column (data-value)}.
async function threadsView(page) {
  return page.evaluate(`(() => {
    const table = (id) => {
      const t = document.getElementById(id);
      if (!t) return null;
      return [...t.querySelectorAll('tr[data-name]')].map((r) => {
        const cells = {}, values = {};
        for (const c of r.querySelectorAll('[data-col]')) {
          cells[c.dataset.col] = c.textContent;
          if (c.dataset.value !== undefined) values[c.dataset.col] = Number(c.dataset.value);
        }
        return { name: r.dataset.name, attrs: Object.assign({}, r.dataset), cells, values };
      });
    };
    const h = document.getElementById('thread-heading');
    const ps = document.getElementById('process-stats');
    return {
      heading: h.textContent, threads: Number(h.dataset.threads), processes: Number(h.dataset.processes),
      label: document.getElementById('thread-label').textContent,
      stats: JSON.parse(document.getElementById('thread-stats').dataset.stats),
      pstats: ps ? JSON.parse(ps.dataset.stats) : null,
      threadRows: table('thread-table'), processRows: table('process-table'),
      title: document.getElementById('program').textContent, docTitle: document.title,
    };
  })()`);
}

// thread-values.bin for the hand-built database: @vals {thread index: value at the root and
// at main (node 1)}, for @nthreads threads in @nprocs processes of a 2-node tree.
function threadValues(file, vals, nthreads, nprocs) {
  const parts = [Buffer.from('CSPTHRV1')];
  const u32 = (...xs) => { const b = Buffer.alloc(4 * xs.length); xs.forEach((x, k) => b.writeUInt32LE(x, 4 * k)); return b; };
  const head = Buffer.alloc(8);
  head.writeBigUInt64LE(2n);
  parts.push(u32(1, 1, nthreads, nprocs), head);
  for (const [t, v] of Object.entries(vals)) {
    const e = Buffer.alloc(32);
    e.writeUInt32LE(1, 0); e.writeUInt32LE(0x80000000, 4); e.writeDoubleLE(v, 8); // main: excl = incl
    e.writeUInt32LE(0, 16); e.writeUInt32LE(0x40000000, 20); e.writeDoubleLE(v, 24); // root: excl 0
    parts.push(u32(0, Number(t), 2), e);
  }
  fs.writeFileSync(file, Buffer.concat(parts));
}

cdp.main(async () => {
  if (!cdp.findChromium()) throw new cdp.Skip('SKIP: chromium not found (scripts/setup.sh installs it)');
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const prof = path.join(bin, 'csprof-prof'), reportBin = path.join(bin, 'csprof-report');
  const cc = process.env.CC || 'cc';

  // ---- the real run: multiproc and the program its child 2 execs
  const src = path.join(srcDir, 'test', 'report', 'multiproc.c');
  run(cc, ['-O1', '-g', '-pthread', '-o', 'multiproc', src], out);
  fs.copyFileSync(path.join(out, 'multiproc'), path.join(out, 'multiproc_exec'));
  fs.chmodSync(path.join(out, 'multiproc_exec'), 0o755);
  run(path.join(bin, 'csrun'), ['-q', '-e', 'CPUTIME@1000', '-o', 'meas', './multiproc'], out);
  const summary = run(prof, ['meas', '-o', 'db'], out);
  const db = path.join(out, 'db');
  const sm = /: (\d+) process(?:es)?, (\d+) threads?,/.exec(summary);
  assert.ok(sm, `csprof-prof's summary gives the counts: ${summary.split('\n').slice(0, 2).join(' | ')}`);
  const rep = V.report(reportBin, db, ['--view', 'threads', '--focus', '^exec_work$', '--limit', '0']);
  const np = rep.processes.length, nt = rep.threads.length;
  assert.deepStrictEqual([np, nt], [6, 8], 'csprof-report: 6 processes, 8 threads');
  assert.deepStrictEqual([Number(sm[1]), Number(sm[2])], [np, nt], 'csprof-prof\'s summary counts = csprof-report\'s');
  const whole = rep.contexts.find((c) => c.node === 0);
  const ew = rep.contexts.find((c) => c.name === 'exec_work');
  assert.ok(whole && ew, 'report: the whole run and exec_work');
  const repThread = new Map(), repProc = new Map(), repEw = new Map();
  for (const v of whole.threads.values) repThread.set(v.index, v.inclusive);
  for (const v of whole.processes.values) repProc.set(v.index, v.inclusive);
  for (const v of ew.threads.values) repEw.set(v.index, v.inclusive);
  // the processes by role: pid order is fork order (parent first)
  const byPid = rep.processes.slice().sort((a, b) => a.pid - b.pid);
  const burned = [0.04, 0.05, 0.20, 0.17, 0, 0.18]; // parent, children 0-4
  const cmds = ['multiproc', 'multiproc', 'multiproc', 'multiproc_exec', 'multiproc', 'multiproc'];

  await cdp.withBrowser({}, async (browser) => {
    const page = await V.openDb(browser, db, { width: 1400, height: 900 });
    V.assertClean(page, 'load');
    await V.switchView(page, 'threads');
    let tv = await threadsView(page);
    // one count everywhere
    assert.deepStrictEqual([tv.processes, tv.threads], [np, nt], `heading: ${tv.heading}`);
    assert.ok(tv.heading.includes(`${nt} thread(s) in ${np} process(es)`), tv.heading);
    assert.strictEqual(tv.stats.n, nt, 'thread statistics over every thread');
    assert.strictEqual(tv.pstats.n, np, 'process statistics over every process');
    assert.strictEqual(tv.threadRows.length, nt, 'one row per thread');
    assert.strictEqual(tv.processRows.length, np, 'one row per process');
    assert.strictEqual(tv.title, rep.title, 'the page is titled as csprof-report titles the run');
    assert.strictEqual(rep.title, 'multiproc (+ 5 processes: multiproc ×4, multiproc_exec ×1)');
    // every thread's and process's value: csprof-report's, and the CPU time it burned
    for (const r of tv.threadRows) {
      const k = Number(r.attrs.thread);
      close(r.values.value, repThread.get(k) || 0, `thread ${k} (pid ${r.cells.pid}) whole run`);
      assert.strictEqual(Number(r.attrs.process), rep.threads[k].process, `thread ${k}'s process`);
      assert.strictEqual(Number(r.cells.tid), rep.threads[k].tid, `thread ${k}'s tid`);
    }
    for (const r of tv.processRows) {
      const k = Number(r.attrs.process), role = byPid.findIndex((p) => p.index === k);
      const v = r.values.value, want = burned[role];
      close(v, repProc.get(k) || 0, `process ${k} whole run`);
      assert.ok(want === 0 ? v <= 0.01 : v >= 0.7 * want && v <= 1.3 * want + 0.03,
        `process ${k} (role ${role}, pid ${r.cells.pid}) burned ${want} s: the page says ${v}`);
      assert.ok(r.cells.command.startsWith(cmds[role]), `process ${k}'s command: ${r.cells.command}`);
    }
    const ex = tv.processRows.find((r) => r.name === 'multiproc_exec');
    assert.strictEqual(ex.cells.command, 'multiproc_exec (via multiproc)', 'the exec\'d process names its chain');
    close(tv.stats.sum, whole.threads.sum, 'sum over threads = csprof-report\'s');
    // the two threads of child 4: 0.06 and 0.12 s
    const kids = tv.threadRows.filter((r) => Number(r.attrs.process) === byPid[5].index).map((r) => r.values.value).sort((a, b) => a - b);
    assert.strictEqual(kids.length, 3, 'child 4 has 3 threads');
    assert.ok(kids[1] >= 0.042 && kids[1] <= 0.108 && kids[2] >= 0.084 && kids[2] <= 0.186, `child 4's threads: ${kids}`);
    await page.screenshot(path.join(out, 'threads-multiproc.png'));

    // a procedure only the exec'd process ran: only its thread has a value
    assert.ok((await page.evaluate('window.csprofViewer.find("exec_work")')) > 0, 'exec_work found');
    await V.switchView(page, 'threads');
    tv = await threadsView(page);
    assert.ok(tv.label.includes('exec_work, inclusive'), tv.label);
    for (const r of tv.threadRows) {
      const k = Number(r.attrs.thread);
      close(r.values.value, repEw.get(k) || 0, `thread ${k} exec_work`);
      if (r.name !== 'multiproc_exec') assert.strictEqual(r.values.value, 0, `thread ${k} (${r.name}) has no exec_work`);
    }
    const exv = tv.threadRows.find((r) => r.name === 'multiproc_exec').values.value;
    assert.ok(exv >= 0.105 && exv <= 0.225, `exec_work in the exec'd process: ${exv} (0.15 s burned)`);
    V.assertClean(page, 'threads');
    await page.close();

    // ---- a run through a wrapper (hand-built database)
    const gdb = path.join(out, 'wrapper');
    fs.mkdirSync(gdb);
    fs.copyFileSync(path.join(srcDir, 'test', 'report', 'wrapper_run.xml'), path.join(gdb, 'experiment.xml'));
    const gvals = { 1: 2.0, 5: 1.0, 4: 0.3, 3: 0.02, 2: 0.01, 0: 0.005 };
    threadValues(path.join(gdb, 'thread-values.bin'), gvals, 7, 6);
    run(prof, ['--refresh-viewer', gdb], out);
    const grep = V.report(reportBin, gdb, ['--view', 'threads', '--limit', '0']);
    const title = 'python3.11 (via env → bash; + 2 processes: logger ×1, sh ×1; + 3 wrapper processes: basename ×1, bash ×1, readlink ×1)';
    assert.strictEqual(grep.title, title, 'csprof-report\'s title of the wrapper run');
    const gp = await V.openDb(browser, gdb, { width: 1400, height: 900 });
    V.assertClean(gp, 'wrapper load');
    const st = await V.state(gp);
    assert.strictEqual(st.selName, 'python3.11', 'the root is the run\'s program, not the first file\'s (basename)');
    await V.switchView(gp, 'flame');
    assert.strictEqual(await gp.evaluate('document.querySelector("canvas[data-chart]").dataset.root'), 'python3.11',
      'the flame graph\'s root box: the run\'s program by command');
    await V.switchView(gp, 'threads');
    tv = await threadsView(gp);
    assert.strictEqual(tv.title, title, 'the page\'s title');
    assert.strictEqual(tv.docTitle, 'csprof: ' + title, 'the document\'s title');
    assert.deepStrictEqual([tv.processes, tv.threads, tv.stats.n, tv.pstats.n], [6, 7, 7, 6], tv.heading);
    assert.ok(/3 of them wrapper processes \(folded\)/.test(tv.heading), tv.heading);
    // folded: python3.11, logger, sh and one row for the 3 wrappers
    const pnames = tv.processRows.map((r) => r.name);
    assert.deepStrictEqual(pnames, ['python3.11', 'logger', 'sh', 'wrappers'], 'process rows, the wrappers folded last');
    const py = tv.processRows[0];
    close(py.values.value, 3.0, 'python3.11: its two threads');
    assert.strictEqual(py.cells.command, 'python3.11 (via env → bash)');
    const fold = tv.processRows[3];
    close(fold.values.value, 0.035, 'the folded wrappers: 0.005 + 0.01 + 0.02');
    assert.strictEqual(fold.cells.command, 'basename ×1, bash ×1, readlink ×1');
    assert.strictEqual(fold.cells.process, '3 wrapper processes');
    assert.deepStrictEqual(tv.threadRows.map((r) => r.name), ['python3.11', 'python3.11', 'logger', 'sh', 'wrappers']);
    close(tv.stats.sum, 3.335, 'sum over all threads, wrappers included');
    // shown again: every process and thread with its own value; kept in the URL
    await gp.clickSelector('#show-wrappers');
    await gp.waitFor('document.getElementById("process-table").querySelectorAll("tr[data-name]").length === 6', 5000);
    tv = await threadsView(gp);
    assert.strictEqual(tv.threadRows.length, 7);
    for (const r of tv.threadRows) close(r.values.value, gvals[r.attrs.thread] || 0, `thread ${r.attrs.thread}`);
    const wr = tv.processRows.filter((r) => r.attrs.wrapper === '1').map((r) => r.name).sort();
    assert.deepStrictEqual(wr, ['basename', 'bash', 'readlink'], 'the wrapper processes');
    assert.ok(/(^|[#&])wr=1(&|$)/.test(await gp.evaluate('location.hash')), 'shown wrappers are in the URL');
    await gp.screenshot(path.join(out, 'threads-wrapper.png'));
    V.assertClean(gp, 'wrapper threads');
    await gp.close();
  });
  console.log('ok: threads view of 6 processes / 8 threads and of a wrapper run');
});
