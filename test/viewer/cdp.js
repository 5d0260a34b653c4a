// SPDX-License-Identifier: BSD-3-Clause
//
// cdp.js -- a small dependency-free driver for headless Chromium over the
// DevTools protocol (CDP), for csprof's viewer tests and benchmarks.
//
// Node >= 18, CommonJS, no npm packages.  Chromium is started with
// --remote-debugging-pipe: the driver writes NUL-terminated JSON commands to
// the browser's fd 3 and reads NUL-terminated JSON replies and events from its
// fd 4, so no WebSocket library is needed.  Pages are opened over real
// file:// URLs WITHOUT --allow-file-access-from-files (never passed), so a
// test sees exactly what a user who double-clicks DB/index.html sees.
//
// API (every method returns a Promise unless noted):
//
//   const cdp = require('./cdp.js');
//   cdp.findChromium()            -> path or null (sync).  $CSPROF_CHROMIUM, then
//                                    /usr/lib/chromium/chromium (the real binary:
//                                    Debian's /usr/bin/chromium wrapper script is
//                                    avoided), chromium, chromium-browser.
//   cdp.launch(options)           -> Browser.  options: {executable, args: [extra
//                                    flags], timeoutMs: per-command limit (default
//                                    30000), verbose}.  A temporary user-data-dir
//                                    is created and removed at close.
//   cdp.withBrowser(options, async (browser) => {...})
//                                 -> the callback's value; the browser is closed
//                                    (killed if need be) whatever happens.
//   cdp.main(async () => {...}, {timeoutMs})
//                                 -> runs a test script: exit 0 on success, 1 with
//                                    the error on failure, 77 on cdp.Skip, and kills
//                                    every launched browser on exit, signal or when
//                                    the overall watchdog (default 120 s) fires.
//   cdp.Skip                      class of error meaning "cannot run here" (exit 77).
//   cdp.pngSize(buffer)           -> {width, height} of a PNG, or throws (sync).
//
//   browser.newPage(url, {width, height, beforeLoad, waitLoad})
//                                 -> Page: a fresh tab in its own browser context
//                                    with a fixed viewport (default 1280x800),
//                                    collectors enabled, navigated to url, load
//                                    event awaited.  beforeLoad: JS source run in
//                                    every document before its own scripts
//                                    (Page.addScriptToEvaluateOnNewDocument).
//   browser.close()               kills the browser (SIGKILL after 3 s) and removes
//                                    the user-data-dir; safe to call twice.
//
//   page.console     [{type, text, url, line}]  console.* calls and browser log
//                    entries (Log.entryAdded: blocked loads, CSP, ...) (array)
//   page.exceptions  [{text, url, line}]  uncaught exceptions and unhandled
//                    rejections (Runtime.exceptionThrown) (array)
//   page.requests    [{url, method, type}]  every Network.requestWillBeSent (array)
//   page.dialogs     [{type, message}]  alert/confirm/prompt/beforeunload dialogs,
//                    each dismissed at once (Page.javascriptDialogOpening) (array)
//   page.errors()    -> console entries of type error/assert, exceptions and
//                    dialogs, as text (sync)
//   page.nonFileRequests() -> requests whose URL is not file: (data: and
//                    blob: and about: count as local; sync)
//   page.evaluate(expr)           value of a JS expression (promises awaited,
//                                    result returned by value; throws with the
//                                    page's exception text).
//   page.waitFor(expr, timeoutMs) resolves when expr is truthy (polled every 10 ms),
//                                    rejects after timeoutMs (default 10000).
//   page.navigate(url) / page.reload()  and wait for the load event.
//   page.click(x, y) / page.clickSelector(css)   left click (Input.dispatchMouseEvent)
//                                    at CSS pixels / at the element's centre
//                                    (scrolled into view first).
//   page.press(key, {modifiers})  key down + up (Input.dispatchKeyEvent); key is a
//                                    DOM key name ('Enter', 'ArrowDown', 'a', '*').
//   page.type(text)               Input.insertText.
//   page.scroll(css, dy)          mouse wheel of dy pixels over the element's centre.
//   page.screenshot(path)         Page.captureScreenshot to a PNG file; -> {width, height}.
//   page.measure(action, condExpr, {timeoutMs})
//                                 -> milliseconds of wall time from just before
//                                    `await action()` (a function) until condExpr
//                                    holds in the page (polled every 2 ms: the figure
//                                    includes about one CDP round trip).
//   page.timeInPage(actionExpr, condExpr, {timeoutMs})
//                                 -> milliseconds of performance.now() in the page
//                                    from before evaluating actionExpr (awaited) until
//                                    condExpr holds and two animation frames passed
//                                    (so layout and paint are counted).
//   page.send(method, params)     any raw CDP command in this tab's session.
//   page.close()                  closes the tab and its browser context.
'use strict';

const child_process = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

class Skip extends Error {}

const live = new Set(); // launched browsers not yet closed

function findChromium() {
  const env = process.env.CSPROF_CHROMIUM;
  if (env) return fs.existsSync(env) ? env : null;
  const fixed = ['/usr/lib/chromium/chromium', '/usr/lib/chromium-browser/chromium-browser'];
  for (const f of fixed) if (fs.existsSync(f)) return f;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    for (const dir of (process.env.PATH || '').split(':')) {
      const f = path.join(dir || '.', name);
      try {
        fs.accessSync(f, fs.constants.X_OK);
        return f;
      } catch (e) {
        /* next */
      }
    }
  }
  return null;
}

// Flags: headless, no sandbox (tests run as root in CI), nothing that talks to
// the network on its own.  Never --allow-file-access-from-files.
const BASE_ARGS = [
  '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--no-default-browser-check', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--disable-extensions', '--disable-default-apps', '--disable-dev-shm-usage',
  '--mute-audio', '--hide-scrollbars', '--disable-features=Translate,MediaRouter,OptimizationHints',
  '--metrics-recording-only', '--password-store=basic', '--use-mock-keychain',
  '--remote-debugging-pipe',
];

class Browser {
  constructor(proc, userDir, timeoutMs, verbose) {
    this.proc = proc;
    this.userDir = userDir;
    this.timeoutMs = timeoutMs;
    this.verbose = verbose;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject, method, timer}
    this.sessions = new Map(); // sessionId -> Page
    this.buffered = [];
    this.stderrTail = '';
    this.closed = false;
    this.exitInfo = null;
    this.out = proc.stdio[3];
    this.in = proc.stdio[4];
    this.in.on('data', (chunk) => this.onData(chunk));
    proc.stderr.on('data', (d) => {
      this.stderrTail = (this.stderrTail + d.toString()).slice(-4000);
      if (verbose) process.stderr.write(d);
    });
    proc.stdout.on('data', () => {});
    proc.on('exit', (code, signal) => {
      this.exitInfo = { code, signal };
      const err = new Error(`chromium exited (code ${code}, signal ${signal})` +
        (this.closed ? '' : `; its stderr ends:\n${this.stderrTail}`));
      for (const p of this.pending.values()) {
        clearTimeout(p.timer);
        p.reject(err);
      }
      this.pending.clear();
    });
    // Errors on a pipe whose peer died surface through 'exit' above.
    this.out.on('error', () => {});
    this.in.on('error', () => {});
  }

  onData(chunk) {
    let start = 0;
    for (let i = chunk.indexOf(0); i >= 0; i = chunk.indexOf(0, start)) {
      this.buffered.push(chunk.subarray(start, i));
      const text = Buffer.concat(this.buffered).toString('utf8');
      this.buffered = [];
      start = i + 1;
      let msg;
      try {
        msg = JSON.parse(text);
      } catch (e) {
        continue; // not ours to judge; a reply we wait for then times out
      }
      this.dispatch(msg);
    }
    if (start < chunk.length) this.buffered.push(chunk.subarray(start));
  }

  dispatch(msg) {
    if (msg.id !== undefined) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}` +
        (msg.error.data ? ` (${msg.error.data})` : '')));
      else p.resolve(msg.result || {});
      return;
    }
    const page = msg.sessionId ? this.sessions.get(msg.sessionId) : null;
    if (page) page.onEvent(msg.method, msg.params || {});
  }

  // Send a raw command (to the browser, or to a tab when sessionId is given).
  send(method, params = {}, sessionId = undefined, timeoutMs = this.timeoutMs) {
    if (this.closed || this.exitInfo) return Promise.reject(new Error(`${method}: browser is closed`));
    const id = this.nextId++;
    const msg = { id, method, params };
    if (sessionId) msg.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method}: no reply within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, method, timer });
      this.out.write(JSON.stringify(msg) + '\0');
    });
  }

  async newPage(url, opts = {}) {
    const width = opts.width || 1280;
    const height = opts.height || 800;
    const { browserContextId } = await this.send('Target.createBrowserContext', { disposeOnDetach: true });
    const { targetId } = await this.send('Target.createTarget',
      { url: 'about:blank', browserContextId, width, height });
    const { sessionId } = await this.send('Target.attachToTarget', { targetId, flatten: true });
    const page = new Page(this, sessionId, targetId, browserContextId);
    this.sessions.set(sessionId, page);
    await page.send('Page.enable');
    await page.send('Runtime.enable');
    await page.send('Log.enable');
    await page.send('Network.enable');
    await page.send('Emulation.setDeviceMetricsOverride',
      { width, height, deviceScaleFactor: 1, mobile: false });
    if (opts.beforeLoad) await page.send('Page.addScriptToEvaluateOnNewDocument', { source: opts.beforeLoad });
    if (url) await page.navigate(url, opts.waitLoad !== false);
    return page;
  }

  async close() {
    if (this.closed) return;
    this.closed = true;
    live.delete(this);
    const proc = this.proc;
    if (!this.exitInfo) {
      const exited = new Promise((r) => proc.once('exit', r));
      try {
        this.out.write(JSON.stringify({ id: this.nextId++, method: 'Browser.close', params: {} }) + '\0');
      } catch (e) {
        /* killed below */
      }
      const timer = setTimeout(() => proc.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
    killNow(this);
  }
}

// Synchronous last resort (process exit, signals): kill and clean up.
// The browser runs in its own process group (spawned detached), so its
// renderer, GPU and utility processes go with it.
function killNow(b) {
  try {
    process.kill(-b.proc.pid, 'SIGKILL');
  } catch (e) {
    /* already gone */
  }
  try {
    fs.rmSync(b.userDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  } catch (e) {
    /* the OS cleans /tmp */
  }
}

function remoteText(args) {
  return (args || []).map((a) => {
    if (a.type === 'string') return a.value;
    if (a.value !== undefined) return String(a.value);
    return a.description || a.type;
  }).join(' ');
}

class Page {
  constructor(browser, sessionId, targetId, contextId) {
    this.browser = browser;
    this.sessionId = sessionId;
    this.targetId = targetId;
    this.contextId = contextId;
    this.console = [];
    this.exceptions = [];
    this.requests = [];
    this.dialogs = [];
    this.loadWaiters = [];
  }

  send(method, params = {}, timeoutMs = undefined) {
    return this.browser.send(method, params, this.sessionId, timeoutMs);
  }

  onEvent(method, p) {
    switch (method) {
      case 'Runtime.consoleAPICalled': {
        const f = (p.stackTrace && p.stackTrace.callFrames[0]) || {};
        this.console.push({ type: p.type, text: remoteText(p.args), url: f.url, line: f.lineNumber });
        break;
      }
      case 'Log.entryAdded':
        this.console.push({ type: p.entry.level === 'error' ? 'error' : p.entry.level,
          text: p.entry.text, url: p.entry.url, line: p.entry.lineNumber, source: p.entry.source });
        break;
      case 'Runtime.exceptionThrown': {
        const d = p.exceptionDetails || {};
        const text = (d.exception && d.exception.description) || d.text;
        this.exceptions.push({ text, url: d.url, line: d.lineNumber });
        break;
      }
      case 'Network.requestWillBeSent':
        this.requests.push({ url: p.request.url, method: p.request.method, type: p.type });
        break;
      case 'Page.javascriptDialogOpening':
        this.dialogs.push({ type: p.type, message: p.message });
        this.send('Page.handleJavaScriptDialog', { accept: false }).catch(() => {});
        break;
      case 'Page.loadEventFired': {
        const w = this.loadWaiters;
        this.loadWaiters = [];
        for (const r of w) r();
        break;
      }
      default:
        break;
    }
  }

  errors() {
    return this.console.filter((c) => c.type === 'error' || c.type === 'assert')
      .map((c) => `console.${c.type}: ${c.text}` + (c.url ? ` (${c.url}:${c.line})` : ''))
      .concat(this.exceptions.map((e) => `exception: ${e.text}` + (e.url ? ` (${e.url}:${e.line})` : '')))
      .concat(this.dialogs.map((d) => `dialog ${d.type}: ${d.message}`));
  }

  nonFileRequests() {
    return this.requests.filter((r) => !/^(file|data|blob|about):/.test(r.url));
  }

  loadEvent(timeoutMs) {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no load event within ${timeoutMs} ms`)), timeoutMs);
      this.loadWaiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  async navigate(url, waitLoad = true) {
    const loaded = waitLoad ? this.loadEvent(this.browser.timeoutMs) : null;
    const r = await this.send('Page.navigate', { url });
    if (r.errorText) throw new Error(`navigate ${url}: ${r.errorText}`);
    if (loaded) await loaded;
  }

  async reload() {
    const loaded = this.loadEvent(this.browser.timeoutMs);
    await this.send('Page.reload', { ignoreCache: true });
    await loaded;
  }

  async evaluate(expr) {
    const r = await this.send('Runtime.evaluate',
      { expression: expr, awaitPromise: true, returnByValue: true, userGesture: true });
    if (r.exceptionDetails) {
      const d = r.exceptionDetails;
      throw new Error(`evaluate(${expr.slice(0, 120)}): ` +
        ((d.exception && d.exception.description) || d.text));
    }
    return r.result.value;
  }

  async waitFor(expr, timeoutMs = 10000) {
    const end = Date.now() + timeoutMs;
    let last = null;
    for (;;) {
      try {
        if (await this.evaluate(`!!(${expr})`)) return;
        last = null;
      } catch (e) {
        last = e; // e.g. the page is between documents
      }
      if (Date.now() > end) {
        throw new Error(`condition not met within ${timeoutMs} ms: ${expr}` +
          (last ? ` (last error: ${last.message})` : '') +
          (this.errors().length ? `; page errors: ${this.errors().join(' | ')}` : ''));
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async click(x, y) {
    const base = { x, y, button: 'left', clickCount: 1 };
    await this.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y });
    await this.send('Input.dispatchMouseEvent', { ...base, type: 'mousePressed' });
    await this.send('Input.dispatchMouseEvent', { ...base, type: 'mouseReleased' });
  }

  async centerOf(css) {
    const r = await this.evaluate(`(() => {
      const e = document.querySelector(${JSON.stringify(css)});
      if (!e) return null;
      e.scrollIntoView({block: 'center', inline: 'center'});
      const b = e.getBoundingClientRect();
      return {x: b.left + b.width / 2, y: b.top + b.height / 2};
    })()`);
    if (!r) throw new Error(`no element matches ${css}`);
    return r;
  }

  async clickSelector(css) {
    const { x, y } = await this.centerOf(css);
    await this.click(x, y);
  }

  async press(key, opts = {}) {
    const k = keyInfo(key);
    const base = { key: k.key, code: k.code, windowsVirtualKeyCode: k.vk, modifiers: opts.modifiers || 0 };
    await this.send('Input.dispatchKeyEvent', { ...base, type: k.text ? 'keyDown' : 'rawKeyDown', text: k.text });
    await this.send('Input.dispatchKeyEvent', { ...base, type: 'keyUp' });
  }

  async type(text) {
    await this.send('Input.insertText', { text });
  }

  async scroll(css, dy) {
    const { x, y } = await this.centerOf(css);
    await this.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x, y, deltaX: 0, deltaY: dy });
  }

  async screenshot(file) {
    const r = await this.send('Page.captureScreenshot', { format: 'png' });
    const buf = Buffer.from(r.data, 'base64');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, buf);
    return pngSize(buf);
  }

  async measure(action, condExpr, opts = {}) {
    const timeoutMs = opts.timeoutMs || 30000;
    const t0 = process.hrtime.bigint();
    await action();
    const end = Date.now() + timeoutMs;
    for (;;) {
      if (await this.evaluate(`!!(${condExpr})`)) break;
      if (Date.now() > end) throw new Error(`measure: condition not met within ${timeoutMs} ms: ${condExpr}`);
      await new Promise((r) => setTimeout(r, 2));
    }
    return Number(process.hrtime.bigint() - t0) / 1e6;
  }

  async timeInPage(actionExpr, condExpr, opts = {}) {
    const timeoutMs = opts.timeoutMs || 30000;
    return this.evaluate(`(async () => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
      const t0 = performance.now();
      await (${actionExpr});
      while (!(${condExpr})) {
        if (performance.now() - t0 > ${timeoutMs}) throw new Error('timeInPage: condition not met: ' + ${JSON.stringify(condExpr)});
        await new Promise((r) => setTimeout(r, 0));
      }
      await frame();
      await frame();
      return performance.now() - t0;
    })()`);
  }

  async close() {
    this.browser.sessions.delete(this.sessionId);
    try {
      await this.browser.send('Target.closeTarget', { targetId: this.targetId });
      await this.browser.send('Target.disposeBrowserContext', { browserContextId: this.contextId });
    } catch (e) {
      /* browser gone: nothing to close */
    }
  }
}

const NAMED_KEYS = {
  Enter: { code: 'Enter', vk: 13, text: '\r' }, Tab: { code: 'Tab', vk: 9 },
  Escape: { code: 'Escape', vk: 27 }, Backspace: { code: 'Backspace', vk: 8 },
  Delete: { code: 'Delete', vk: 46 }, Home: { code: 'Home', vk: 36 }, End: { code: 'End', vk: 35 },
  PageUp: { code: 'PageUp', vk: 33 }, PageDown: { code: 'PageDown', vk: 34 },
  ArrowLeft: { code: 'ArrowLeft', vk: 37 }, ArrowUp: { code: 'ArrowUp', vk: 38 },
  ArrowRight: { code: 'ArrowRight', vk: 39 }, ArrowDown: { code: 'ArrowDown', vk: 40 },
  ' ': { code: 'Space', vk: 32, text: ' ' },
};

function keyInfo(key) {
  if (NAMED_KEYS[key]) return { key, ...NAMED_KEYS[key] };
  if (key.length !== 1) throw new Error(`press: unknown key ${key}`);
  const up = key.toUpperCase();
  let code = '';
  if (/[A-Z]/.test(up)) code = 'Key' + up;
  else if (/[0-9]/.test(key)) code = 'Digit' + key;
  return { key, code, vk: /[A-Z0-9]/.test(up) ? up.charCodeAt(0) : 0, text: key };
}

// Modifier bits of Input.dispatchKeyEvent / dispatchMouseEvent.
const Modifiers = { Alt: 1, Ctrl: 2, Meta: 4, Shift: 8 };

function pngSize(buf) {
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  if (buf.length < 33 || !buf.subarray(0, 8).equals(sig) || buf.toString('latin1', 12, 16) !== 'IHDR') {
    throw new Error('not a PNG file');
  }
  if (buf.toString('latin1', buf.length - 8, buf.length - 4) !== 'IEND') throw new Error('PNG file without IEND chunk');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

async function launch(options = {}) {
  const exe = options.executable || findChromium();
  if (!exe) throw new Skip('chromium not found (install Debian package chromium, or set CSPROF_CHROMIUM)');
  // One temporary folder holds the profile and the browser's own TMPDIR, so
  // removing it leaves nothing behind.
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'csprof-chromium-'));
  fs.mkdirSync(path.join(userDir, 'tmp'));
  const args = [...BASE_ARGS, `--user-data-dir=${path.join(userDir, 'profile')}`, ...(options.args || []), 'about:blank'];
  if (args.some((a) => a.startsWith('--allow-file-access'))) {
    throw new Error('cdp.launch: --allow-file-access-from-files would hide the file:// constraint');
  }
  const proc = child_process.spawn(exe, args, {
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
    detached: true,
    env: { ...process.env, LANG: process.env.LANG || 'C.UTF-8', TMPDIR: path.join(userDir, 'tmp') },
  });
  const b = new Browser(proc, userDir, options.timeoutMs || 30000, !!options.verbose);
  live.add(b);
  await new Promise((resolve, reject) => {
    proc.once('spawn', resolve);
    proc.once('error', (e) => reject(new Error(`cannot start ${exe}: ${e.message}`)));
  });
  try {
    const v = await b.send('Browser.getVersion', {}, undefined, 30000);
    b.version = v.product;
  } catch (e) {
    killNow(b);
    live.delete(b);
    throw new Error(`${exe} did not answer over --remote-debugging-pipe: ${e.message}\n${b.stderrTail}`);
  }
  return b;
}

async function withBrowser(options, fn) {
  const b = await launch(options);
  try {
    return await fn(b);
  } finally {
    await b.close();
  }
}

// Kill every live browser and wait (up to 3 s) for each to exit before
// removing its folder.
async function closeAll() {
  const all = [...live];
  live.clear();
  await Promise.all(all.map(async (b) => {
    if (!b.exitInfo) {
      const exited = new Promise((r) => b.proc.once('exit', r));
      try {
        process.kill(-b.proc.pid, 'SIGKILL');
      } catch (e) {
        /* gone */
      }
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    }
    killNow(b);
  }));
}

function killAll() {
  for (const b of live) killNow(b);
  live.clear();
}

process.on('exit', killAll);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    killAll();
    process.exit(128 + os.constants.signals[sig]);
  });
}

function main(fn, opts = {}) {
  const timeoutMs = opts.timeoutMs || 120000;
  const dog = setTimeout(() => {
    console.error(`FAIL: the test did not finish within ${timeoutMs / 1000} s`);
    closeAll().then(() => process.exit(1));
  }, timeoutMs);
  Promise.resolve().then(fn).then(async () => {
    clearTimeout(dog);
    await closeAll();
    process.exit(0);
  }, async (e) => {
    clearTimeout(dog);
    await closeAll();
    if (e instanceof Skip) {
      console.log(`SKIP: ${e.message}`);
      process.exit(77);
    }
    console.error(`FAIL: ${e && e.stack ? e.stack : e}`);
    process.exit(1);
  });
}

module.exports = { launch, withBrowser, main, findChromium, pngSize, Skip, Modifiers, Browser, Page };
