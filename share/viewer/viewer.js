// SPDX-License-Identifier: BSD-3-Clause
// viewer.js -- csprof viewer user interface: views, selection, transforms,
// URL state.  The model (model.js) does the tree work; this file only draws.
// Every string from the program is inserted with textContent or drawn on a
// canvas, never parsed as HTML.  No network: data arrives through classic
// <script> files (viewer/data.js, viewer/src-N.js), which work on file://.
(function () {
  'use strict';
  const M = window.csprofModel;
  const K = M.K;
  const ROW = 20;
  const VIEWS = ['top-down', 'bottom-up', 'flat', 'flame', 'icicle', 'source', 'threads', 'quality', 'sandwich'];
  // the flat view's default depth (URL fl): procedures, the levels module >
  // file > procedure opened, as csprof-report's flat view starts
  const FLAT_PROCS = 2;
  const $ = function (id) { return document.getElementById(id); };

  const st = { view: 'top-down', metric: 0, sort: '', sel: 0, zoom: 0, t: [], q: '', flatten: FLAT_PROCS, file: -1, line: 0, lines: false, dm: [], p: '', loops: false };
  let stree = null, streeKey = null; // the view with statements, for the source pane
  let src = null, base = null, tree = null, btree = null, bmatch = null, bmetric = -1;
  let expanded = new Set(); // view nodes (top-down); keys (bottom-up/flat)
  let buRows = null, flatRoot = null, rows = [], tableEl = null;
  let derived = [], derivedErr = ''; // compiled derived columns (data.js derived + URL dm)
  let transformErr = ''; // the URL's transforms that did not decode (left out), named
  let bview = null, bdiff = null; // differential: the current tree with the base's values; its record (tree.diff: bottom-up and flat rows of bview, built on use)
  let bonly = null; // differential: base-only contexts {nodes, total}

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function fail(msg) {
    const e = $('csprof-error');
    e.hidden = false;
    e.textContent = 'csprof viewer: ' + msg;
    document.documentElement.dataset.csprofReady = 'error';
  }

  // ------------------------------------------------------------ formatting

  function unitOf(m) { return src.metrics[m].unit; }
  function fmt(v, m) {
    const per = src.metrics[m].rawPerUnit || 1;
    const x = v / per;
    if (x === 0) return '0';
    const a = Math.abs(x);
    if (a >= 1000) return x.toFixed(0);
    if (a >= 1) return x.toPrecision(4).replace(/\.?0+$/, '');
    return x.toPrecision(3);
  }
  function callsText(n) { return (n === 1 ? '1 call' : Math.round(n).toLocaleString('en-US') + ' calls') + ' (sampled: a lower bound)'; }
  function pct(v, tot) { return tot ? (100 * v / tot).toFixed(1) + '%' : '-'; }
  function kindClass(k) { return 'k-' + M.KIND_NAMES[k]; }

  // Values for people: times and bytes scaled to a readable unit with one
  // decimal (58.7 ms, 2.0 GiB), counts as integers grouped by thousands
  // (12,345), or with one decimal in a column of ratios (@dec).  Returns
  // {v, u}: the number's text and its unit, drawn in a box of fixed width so
  // that the decimal points of a column line up.  The metric's unit (data.js
  // metrics[].unit) says which: s, ms, us/µs, ns are times, bytes/B bytes.
  const TIME_SCALE = { s: 1, ms: 1e-3, us: 1e-6, 'µs': 1e-6, ns: 1e-9 };
  function unitKind(u) { return TIME_SCALE[u] !== undefined ? 'time' : u === 'bytes' || u === 'B' ? 'bytes' : 'count'; }
  function human(x, unit, dec) {
    const k = unitKind(unit), neg = x < 0, a = Math.abs(x);
    let v, u = '';
    if (k === 'time') {
      const s = a * TIME_SCALE[unit];
      const sc = s >= 1 || s === 0 ? [1, 's'] : s >= 1e-3 ? [1e-3, 'ms'] : s >= 1e-6 ? [1e-6, 'µs'] : [1e-9, 'ns'];
      v = (s / sc[0]).toFixed(1); u = sc[1];
      if (v === '1000.0' && sc[0] < 1) { v = '1.0'; u = sc[0] === 1e-3 ? 's' : sc[0] === 1e-6 ? 'ms' : 'µs'; }
    } else if (k === 'bytes') {
      const BU = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
      let e = 0;
      while (e < BU.length - 1 && a >= Math.pow(1024, e + 1) * 0.99995) e++;
      v = (a / Math.pow(1024, e)).toFixed(1); u = BU[e];
    } else {
      v = a.toLocaleString('en-US', { minimumFractionDigits: dec, maximumFractionDigits: dec });
    }
    return { v: (neg && Number(v.replace(/,/g, '')) !== 0 ? '-' : '') + v, u: u };
  }
  // {v, u, raw, title} of value @x (raw, data.js units) of metric @m
  function humanOf(x, m, dec, sign) {
    const mt = src.metrics[m], y = x / (mt.rawPerUnit || 1), h = human(y, mt.unit, dec);
    if (sign && y >= 0) h.v = '+' + h.v;
    h.raw = y;
    h.title = String(y) + ' ' + mt.unit + (mt.rawUnit && mt.rawUnit !== mt.unit ? ' (' + String(x) + ' ' + mt.rawUnit + ')' : '');
    return h;
  }
  // one value as text for a tooltip or the status line: "58.7 ms"
  function humanText(x, m) { const h = humanOf(x, m, 0); return h.v + (h.u ? ' ' + h.u : ''); }

  // Calls (sampled): a lower bound, counted by csprof's return trampoline at
  // the calling contexts a sample found.  A cost per call is shown only where
  // it means something, with csprof-report's rule: at least PC_MIN_SAMPLES
  // inclusive samples and PC_MIN_PER_CALL of them per counted call (else the
  // quotient is the sampling period over the calls a sample happened to see,
  // whatever the function costs); blank otherwise, the reason in the tooltip.
  const PC_MIN_SAMPLES = 10, PC_MIN_PER_CALL = 2;
  const CALLS_TIP = 'calls (sampled): a lower bound, not every call. csprof\'s return trampoline counts the returns of the frames a sample found on the stack; calls that began and ended between two samples are not counted. † : the count of an indirect call site, shared by the callees under it (not this callee\'s own).';
  function samplesMetric() { return src.metrics.findIndex(function (x) { return x.name === 'samples'; }); }
  // > 1: top-down view node @i's calls are those of its call site, shared by
  // that many callee frames under it (an indirect call: the frames of one
  // caller entered from one file:line, all with the site's count); else 0
  function siteCallees(i) {
    // csprof-report's rule (calls_per_call_site), from the data: the frame's call site has
    // several callee frames, and the count is the site's
    if (!(i > 0) || !(tree.calls[i] > 0) || !src.data.callSiteCallees) return 0;
    if (!src.siteCallees) {
      src.siteCallees = new Map();
      for (const [node, n] of src.data.callSiteCallees) src.siteCallees.set(node, n);
    }
    return src.siteCallees.get(tree.rep[i]) || 0;
  }
  function rowSiteCallees(r) { return st.view === 'top-down' && typeof r.key === 'number' ? siteCallees(r.node) : 0; }
  // '' when row @r's inclusive cost per call is meaningful, else why not
  function perCallWhy(r) {
    if (!r.calls) return 'no call counted';
    const n = rowSiteCallees(r);
    if (n) return 'no cost per call: the count is the call site\'s, shared by its ' + n + ' callees (an indirect call)';
    const s = samplesMetric();
    if (s < 0) return 'no cost per call: the database has no sample counts';
    const ns = r.incl[s];
    if (ns < PC_MIN_SAMPLES) return 'no cost per call: ' + ns + ' samples, fewer than ' + PC_MIN_SAMPLES;
    if (ns < PC_MIN_PER_CALL * r.calls) return 'no cost per call: ' + ns + ' samples for ' + Math.round(r.calls) + ' counted calls, fewer than ' + PC_MIN_PER_CALL + ' samples per call (the quotient would be the sampling period, not the cost of a call)';
    return '';
  }

  // ----------------------------------------------------------------- state

  function readHash() {
    const h = new URLSearchParams(location.hash.replace(/^#/, ''));
    if (VIEWS.indexOf(h.get('v')) >= 0) st.view = h.get('v');
    if (h.has('m')) st.metric = Math.max(0, Math.min(src.metrics.length - 1, Number(h.get('m')) | 0));
    if (h.has('s')) st.sort = h.get('s');
    if (h.has('sel')) st.sel = Math.max(0, Math.min(src.n - 1, Number(h.get('sel')) | 0));
    if (h.has('z')) st.zoom = Math.max(0, Math.min(src.n - 1, Number(h.get('z')) | 0));
    const tBad = [];
    st.t = M.decodeTransforms(h.get('t') || '', tBad);
    transformErr = tBad.join('; ');
    st.q = h.get('q') || '';
    st.flatten = h.has('fl') ? Number(h.get('fl')) | 0 : FLAT_PROCS;
    st.p = h.get('p') || '';
    st.loops = h.get('lp') === '1';
    st.lines = h.get('ln') === '1';
    st.dm = M.decodeDerived(h.get('dm') || '');
    st.wr = h.get('wr') === '1';
  }
  function writeHash() {
    const h = new URLSearchParams();
    h.set('v', st.view); h.set('m', st.metric); if (st.sort) h.set('s', st.sort); h.set('sel', st.sel);
    if (st.zoom) h.set('z', st.zoom);
    if (st.t.length) h.set('t', M.encodeTransforms(st.t));
    if (st.q) h.set('q', st.q);
    if (st.flatten !== FLAT_PROCS) h.set('fl', st.flatten);
    if (st.p) h.set('p', st.p);
    if (st.loops) h.set('lp', '1');
    if (st.lines) h.set('ln', '1');
    if (st.dm.length) h.set('dm', M.encodeDerived(st.dm));
    if (st.wr) h.set('wr', '1');
    history.replaceState(null, '', '#' + h.toString());
  }

  // view node of the selection (a source node index kept in the URL)
  function selNode() { const v = tree.map[st.sel]; return v >= 0 ? v : 0; }
  function select(viewNode) {
    st.sel = tree.rep[viewNode];
    writeHash();
    status();
  }

  // statements (ln=1) and loops (lp=1) are shown only on request; otherwise
  // their cost is their loop's or frame's exclusive cost, as in the report
  // (csprof-report --loops hide is its default)
  function viewTransforms() {
    return st.t.concat(addedTransforms().filter(function (a) { return !st.t.some(function (x) { return x.t === a.t; }); }));
  }
  // the transforms the page adds to the user's list
  function addedTransforms() { return (st.lines ? [] : [{ t: 'hide-statements' }]).concat(st.loops ? [] : [{ t: 'hide-loops' }]); }
  // whether loops show as rows and boxes (no hide-loops, added or the user's)
  function loopsShown() { return !viewTransforms().some(function (x) { return x.t === 'hide-loops'; }); }
  function rebuild() {
    // top-down expansion survives a transform: kept as source nodes
    const keep = [];
    if (tree) for (const v of expanded) if (typeof v === 'number') keep.push(tree.rep[v]);
    const vt = viewTransforms();
    tree = cachedView(src, vt);
    if (base) {
      const bt = vt.filter(function (x) { return x.t !== 'focus-subtree'; });
      btree = cachedView(base, bt);
      // the match, the base-only contexts appended (M.baseOnly) and the
      // base-valued twin are kept with the cached view, as its rows are
      if (!tree.diff || tree.diff.base !== btree) {
        const bo = M.baseOnly(tree, btree, M.matchTrees(tree, btree));
        tree.diff = { base: btree, only: bo, view: M.baseValues(bo.t, btree, bo.match) };
      }
      bdiff = tree.diff;
      bonly = bdiff.only;
      bview = bdiff.view;
      tree = bonly.t;
      bmatch = bonly.match;
      bmetric = M.matchMetric(tree, btree, st.metric);
    }
    // the bottom-up rows and the flat tree are built on first use (or in
    // idle time) and kept with their view
    buRows = tree.buRows || null; flatRoot = tree.flatRoot || null;
    if (timing.built && (!buRows || !flatRoot) && !tree.idleRows) {
      // queued a moment later, so that the frames showing the new view
      // come first
      const t = tree;
      t.idleRows = true;
      setTimeout(function () { if (tree === t) whenIdle(viewRowJobs(t), true); else t.idleRows = false; }, 300);
    }
    expanded = new Set();
    for (const s0 of keep) if (tree.map[s0] >= 0) expanded.add(tree.map[s0]);
    // a node that a transform had merged away is opened again with its kept descendants
    for (const v of Array.from(expanded)) expandTo(v);
    expandTo(selNode());
  }
  // The view of @data under transform list @list, from a cache of the last
  // two per database (a transform removed again costs no rebuild).  On a
  // miss the least recently used view is released first, so that the new
  // build reuses its columns (M.release: no page faults on fresh memory).
  const viewCache = [];
  function cachedView(data, list) {
    const key = M.encodeTransforms(list);
    for (let k = 0; k < viewCache.length; k++) {
      const c = viewCache[k];
      if (c.data === data && c.key === key) {
        viewCache.splice(k, 1);
        viewCache.unshift(c);
        return c.tree;
      }
    }
    if (viewCache.length >= (base ? 4 : 2)) M.release(viewCache.pop().tree);
    const c = { data: data, key: key, tree: M.buildView(data, list) };
    viewCache.unshift(c);
    return c.tree;
  }
  // Work for idle time (requestIdleCallback), run in order while the page
  // is idle; whenIdle(@jobs, @first) adds @jobs at the end of the queue, or
  // at its front when @first.  When the queue first runs out,
  // data-csprof-idle-ms is set (share/schemas/viewer-data.md).
  const idleQueue = [];
  let idleAsked = false;
  function whenIdle(jobs, first) {
    if (!window.requestIdleCallback) return;
    if (first) idleQueue.unshift.apply(idleQueue, jobs); else idleQueue.push.apply(idleQueue, jobs);
    if (idleAsked) return;
    idleAsked = true;
    const run = function (dl) {
      while (idleQueue.length && dl.timeRemaining() > 5) idleQueue.shift()();
      if (idleQueue.length) { window.requestIdleCallback(run); return; }
      idleAsked = false;
      const de = document.documentElement;
      if (!de.dataset.csprofIdleMs) de.dataset.csprofIdleMs = Math.round(performance.now()); // since navigation start
    };
    window.requestIdleCallback(run);
  }
  // Idle-time slices of view @t's bottom-up rows and flat tree (the next
  // views a user may open), each skipped once another view is shown or the
  // rows exist.  A slice of 50 000 nodes (bottom-up) or depth-first events
  // (flat) takes about 5-10 ms at a million nodes, so that input waits
  // little behind one.
  function viewRowJobs(t) {
    return M.bottomUpJobs(t, 50000).map(function (job) {
      return function () { if (tree === t && !buRows) job(); };
    }).concat(M.flatJobs(t, 50000).map(function (job) {
      return function () { if (tree === t && !flatRoot) job(); };
    }));
  }
  function expandTo(v) {
    for (let p = tree.parent[v]; p >= 0; p = tree.parent[p]) expanded.add(p);
  }

  // -------------------------------------------------------------- columns

  function baseIncl(i) {
    if (!btree || bmetric < 0 || bmatch[i] < 0) return 0;
    return btree.incl[bmetric][bmatch[i]];
  }
  // Differential: the significance of a row's change of share, as
  // csprof-report --diff gives it: the samples behind the row in each run
  // (the samples column, when the run measured one event or the metric is
  // samples) make its share a binomial proportion; M.diffInterval at z for
  // the contexts of the tree with samples in either run (M.diffZ).  Null
  // when the runs have no such counts.
  function diffSig() {
    if (!base || !btree) return null;
    const s = src.metrics.findIndex(function (x) { return x.name === 'samples'; });
    const events = src.metrics.length - (s >= 0 ? 1 : 0);
    if (s < 0 || !(st.metric === s || events === 1)) return null;
    const d = bdiff;
    if (!d.sig || d.sig.tree !== tree) {
      const bs = M.matchMetric(tree, btree, s);
      let m = 0;
      for (let i = 1; i < tree.n; i++)
        if (tree.incl[s][i] > 0 || (bs >= 0 && bmatch[i] >= 0 && btree.incl[bs][bmatch[i]] > 0)) m++;
      d.sig = { tree: tree, s: s, bs: bs, n1: bs >= 0 ? btree.incl[bs][0] : 0, n2: tree.incl[s][0], z: M.diffZ(m) };
    }
    return d.sig.bs >= 0 ? d.sig : null;
  }
  // {d, lo, hi, sig} of row @r in percent points (d of the metric's values,
  // the interval of the samples), or null.
  function shareChange(r) {
    const g = diffSig(), m = st.metric;
    if (!g || r.base === undefined) return null;
    let x1;
    if (r.fr) { const f = flatBase(r.fr); x1 = f ? f.incl[g.s] : 0; }
    else if ('bg' in r) x1 = r.bg ? r.bg.incl[g.s] : 0;
    else if (typeof r.key === 'number') x1 = bmatch[r.key] >= 0 ? btree.incl[g.bs][bmatch[r.key]] : 0;
    else return null;
    const iv = M.diffInterval(x1, g.n1, r.incl[g.s], g.n2, g.z);
    if (!iv) return null;
    const tb = bmetric >= 0 ? btree.incl[bmetric][0] : 0, tc = tree.incl[m][0];
    const d = (tc ? 100 * r.incl[m] / tc : 0) - (tb ? 100 * r.base / tb : 0);
    return { d: d, lo: 100 * iv[0], hi: 100 * iv[1], sig: iv[0] > 0 || iv[1] < 0 };
  }
  function signed(x) { return (x >= 0 ? '+' : '') + x.toFixed(2); }
  function columns() {
    const m = st.metric, name = '(' + unitOf(m) + ')';
    const cols = [
      { id: 'name', title: 'scope' },
      { id: 'incl', title: name + ' incl', num: true },
      { id: 'incl-pct', title: 'incl %', num: true },
      { id: 'excl', title: name + ' excl', num: true },
      { id: 'excl-pct', title: 'excl %', num: true },
      { id: 'calls', title: 'calls (sampled)', num: true, width: '8.5em', tip: CALLS_TIP },
      { id: 'per-call', title: 'incl/call', num: true, tip: 'inclusive cost per counted call: blank with fewer than ' + PC_MIN_SAMPLES + ' samples, fewer than ' + PC_MIN_PER_CALL + ' samples per call, or a count shared by the callees of an indirect call site (the reason is the cell\'s tooltip)' },
    ];
    for (let k = 0; k < src.metrics.length; k++)
      if (k !== m) cols.push({ id: 'incl-' + k, title: src.metrics[k].name, num: true, metric: k });
    derived.forEach(function (d, k) {
      cols.push({ id: 'd-' + k, title: d.name, num: true, derived: k, inclusive: true });
      cols.push({ id: 'dx-' + k, title: d.name + ' excl', num: true, derived: k, inclusive: false });
    });
    if (base) {
      cols.push({ id: 'base', title: 'base incl', num: true });
      cols.push({ id: 'delta', title: 'Δ incl', num: true });
      const g = diffSig();
      if (g) cols.push({ id: 'dshare', title: 'Δ share (95%, z=' + g.z.toFixed(3) + ')', num: true, width: '15em' });
    }
    return cols;
  }

  // A row: {name, kind, depth, open (null: leaf), incl[], self[], calls,
  // node, base, key, sk (its sort key, set by sortRows)}; incl and self may
  // be the model's own arrays (bottom-up and flat rows): read, never written.
  function cellText(r, c) {
    const m = st.metric, tot = tree.incl[m][0];
    switch (c.id) {
      case 'name': return r.name;
      case 'incl': return fmt(r.incl[m], m);
      case 'incl-pct': return pct(r.incl[m], tot);
      case 'excl': return fmt(r.self[m], m);
      case 'excl-pct': return pct(r.self[m], tot);
      case 'calls': return r.calls ? String(Math.round(r.calls)) + (rowSiteCallees(r) ? '†' : '') : '';
      case 'per-call': return r.calls && !perCallWhy(r) ? fmt(r.incl[m] / r.calls, m) : '';
      case 'base': return r.base === undefined ? '' : fmt(r.base, m);
      case 'delta': return r.base === undefined ? '' : (r.incl[m] - r.base >= 0 ? '+' : '') + fmt(r.incl[m] - r.base, m);
      case 'dshare': { const x = shareChange(r); return x ? signed(x.d) + ' [' + signed(x.lo) + ', ' + signed(x.hi) + ']' + (x.sig ? ' *' : '') : ''; }
      default:
        if (c.derived !== undefined) return fmtDerived(derivedOf(r, c.derived, c.inclusive));
        return c.metric !== undefined ? fmt(r.incl[c.metric], c.metric) : '';
    }
  }
  // What a numeric cell shows (renderTable): {v, u, raw, title, bar} (the
  // number, its unit, its value in the metric's unit, the tooltip, the
  // percent its bar shows), or null for a cell shown as cellText.
  function cellDisplay(r, c) {
    const m = st.metric, tot = tree.incl[m][0];
    switch (c.id) {
      case 'incl': return humanOf(r.incl[m], m, 0);
      case 'excl': return humanOf(r.self[m], m, 0);
      case 'incl-pct': case 'excl-pct': {
        if (!tot) return { v: '-', u: '' };
        const p = 100 * (c.id === 'incl-pct' ? r.incl[m] : r.self[m]) / tot;
        return { v: p.toFixed(1), u: '%', raw: p, bar: p, title: String(p) + ' % of the total' };
      }
      case 'calls': {
        if (!r.calls) return { v: '', u: '' };
        const n = rowSiteCallees(r), h = human(Math.round(r.calls), 'calls', 0);
        return { v: h.v, u: n ? '†' : '', raw: r.calls, title: n ? h.v + ' calls at this call site, shared by its ' + n + ' callees (an indirect call): per call site, not per callee' : h.v + ' calls (sampled): a lower bound' };
      }
      case 'per-call': {
        if (!r.calls) return { v: '', u: '' };
        const why = perCallWhy(r);
        if (why) return { v: '', u: '', title: why };
        const h = humanOf(r.incl[m] / r.calls, m, 1);
        h.title += ' per call';
        return h;
      }
      case 'base': return r.base === undefined ? { v: '', u: '' } : humanOf(r.base, m, 0);
      case 'delta': return r.base === undefined ? { v: '', u: '' } : humanOf(r.incl[m] - r.base, m, 0, true);
      default:
        if (c.derived !== undefined && c.dec !== undefined) {
          // one count of decimals per column (renderTable's c.dec), so that they line up
          const x = derivedOf(r, c.derived, c.inclusive);
          return { v: x.toLocaleString('en-US', { minimumFractionDigits: c.dec, maximumFractionDigits: c.dec, useGrouping: false }), u: '', raw: x, title: String(x) };
        }
        return c.metric !== undefined ? humanOf(r.incl[c.metric], c.metric, 0) : null;
    }
  }
  // The sort column: the one the user picked (st.sort), else the view's
  // default, as csprof-report's: exclusive in the bottom-up view (the
  // procedures that spend the cost themselves first), inclusive elsewhere.
  function sortOf() {
    return st.sort || (st.view === 'bottom-up' ? 'excl' : 'incl');
  }

  // The sort key of the current sort column (sortOf()) as a function of a
  // row, chosen once per sort rather than once per comparison.
  function sortKeyFn() {
    const m = st.metric, s = sortOf();
    switch (s) {
      case 'excl': case 'excl-pct': return function (r) { return r.self[m]; };
      case 'calls': return function (r) { return r.calls; };
      case 'per-call': return function (r) { return r.calls && !perCallWhy(r) ? r.incl[m] / r.calls : 0; };
      case 'delta': return function (r) { return r.base === undefined ? 0 : Math.abs(r.incl[m] - r.base); };
      case 'dshare': return function (r) { const x = shareChange(r); return x ? Math.abs(x.d) : 0; };
      case 'name': return function () { return 0; };
      default: {
        const k = /^dx?-\d+$/.test(s) ? Number(s.split('-')[1]) : -1;
        if (k >= 0 && derived[k]) { const inclusive = s[1] !== 'x'; return function (r) { return derivedOf(r, k, inclusive); }; }
        if (s.indexOf('incl-') === 0 && s !== 'incl-pct') { const x = Number(s.slice(5)); return function (r) { return r.incl[x] || 0; }; }
        return function (r) { return r.incl[m]; };
      }
    }
  }
  // ------------------------------------------------------ derived columns

  // Compile the database's derived metrics (data.js derived) and the page's
  // own (URL dm); a formula that does not compile is left out and named.
  function compileDerived() {
    derived = []; derivedErr = '';
    const all = (src.data.derived || []).concat(st.dm);
    for (const x of all) {
      try { derived.push(M.derivedMetric(src, String(x.name), String(x.formula))); } catch (e) { derivedErr += (derivedErr ? '; ' : '') + e.message; }
    }
    const de = $('derive-err');
    if (de) { de.textContent = derivedErr; de.hidden = !derivedErr; }
  }
  // Value of derived column @k for table row @r (its own sums, not added up).
  function derivedOf(r, k, inclusive) {
    return M.derivedValue(src, derived[k], r.incl, r.self, r.calls, inclusive);
  }
  function fmtDerived(x) {
    if (x === 0) return '0';
    const a = Math.abs(x);
    if (a >= 1e6 || a < 1e-3) return x.toExponential(3);
    return x.toPrecision(4).replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
  }
  function addDerived(text) {
    const eq = text.indexOf('=');
    const de = $('derive-err');
    if (eq <= 0) { de.textContent = 'a derived column is NAME=FORMULA, e.g. ipc=cycles/instructions'; de.hidden = false; return false; }
    const x = { name: text.slice(0, eq).trim(), formula: text.slice(eq + 1) };
    try { M.derivedMetric(src, x.name, x.formula); } catch (e) { de.textContent = e.message; de.hidden = false; return false; }
    st.dm.push(x);
    compileDerived();
    writeHash();
    render();
    return true;
  }

  function sortRows(list) {
    if (sortOf() === 'name') return list.sort(function (a, b) { return a.name < b.name ? -1 : a.name > b.name ? 1 : 0; });
    // each row's key once (r.sk), not twice per comparison
    const key = sortKeyFn();
    for (const r of list) r.sk = key(r);
    return list.sort(function (a, b) { return b.sk - a.sk || (a.name < b.name ? -1 : 1); });
  }

  // ------------------------------------------------------------- row lists

  function nodeRow(i, depth) {
    const nm = src.metrics.length, incl = [], self = [];
    for (let m = 0; m < nm; m++) { incl.push(tree.incl[m][i]); self.push(tree.self[m][i]); }
    const leaf = tree.cstart[i] === tree.cstart[i + 1];
    return { name: M.nameOf(tree, i), kind: tree.kind[i], depth: depth, node: i, key: i, incl: incl, self: self, calls: tree.calls[i], leaf: leaf, base: base ? baseIncl(i) : undefined };
  }
  // The row of the cost that no shown frame holds (@vals, per metric: the
  // root's own cost, or the flat view's program.outside), as csprof-report's
  // "cost outside any shown frame", so that the rows add up to the total;
  // @baseVal: the base's (differential).  Null when zero in every metric.
  // Selecting it selects the root (the row is never marked selected).
  function outsideRow(vals, baseVal) {
    if (!vals.some(function (x) { return x !== 0; })) return null;
    return { name: '[outside any shown frame]', kind: K.GROUP, depth: 0, node: 0, key: 'outside', incl: vals, self: vals, calls: 0, leaf: true, base: base ? baseVal : undefined };
  }
  function rootSelfRow() {
    const vals = [];
    for (let m = 0; m < src.metrics.length; m++) vals.push(tree.self[m][0]);
    return outsideRow(vals, base ? bview.self[st.metric][0] : 0);
  }
  function topDownRows() {
    const out = [];
    const stack = [[0, 0]];
    while (stack.length) {
      const e = stack.pop(), i = e[0], d = e[1];
      if (i !== 0) out.push(nodeRow(i, d - 1));
      if (i === 0 || expanded.has(i)) {
        const kids = sortRows(M.children(tree, i).map(function (c) { return nodeRow(c, 0); }));
        for (let k = kids.length - 1; k >= 0; k--) stack.push([kids[k].node, d + 1]);
      }
    }
    const o = rootSelfRow();
    if (o) out.push(o);
    return out;
  }
  function groupRow(g, depth, key) {
    return { name: g.name + (g.csLine ? ' :' + g.csLine : ''), kind: g.kind, depth: depth, node: g.node, key: key, incl: g.incl, self: g.self, calls: g.calls || 0, leaf: false, g: g, base: undefined };
  }
  // Differential: the base's value of a row from its twin @g in the base
  // tree's bottom-up or flat rows (null: none, value 0).
  function withBase(r, g) {
    if (!base) return r;
    r.bg = g;
    r.base = g ? g.incl[st.metric] : 0;
    return r;
  }
  function buBase(g) {
    if (!base) return null;
    if (!bdiff.bu) { bdiff.bu = new Map(); for (const x of M.bottomUpRoots(bview)) bdiff.bu.set(x.kind + ':' + x.nameId, x); }
    return bdiff.bu.get(g.kind + ':' + g.nameId) || null;
  }
  function flatBase(r) {
    if (!base) return null;
    if (!bdiff.flat) {
      bdiff.flat = new Map();
      const stk = [M.flat(bview)];
      while (stk.length) { const x = stk.pop(); bdiff.flat.set(x.key, x); for (const c of x.children) stk.push(c); }
    }
    return bdiff.flat.get(r.key) || null;
  }
  function bottomUpRows() {
    if (!buRows) buRows = tree.buRows || (tree.buRows = M.bottomUpRoots(tree)); // idle time may have built them (M.bottomUpJobs)
    const out = [];
    const stack = sortRows(buRows.map(function (g) { return withBase(groupRow(g, 0, 'b:' + g.kind + ':' + g.name), buBase(g, null)); })).reverse();
    while (stack.length) {
      const r = stack.pop();
      out.push(r);
      if (expanded.has(r.key)) {
        const bcallers = base && r.bg ? new Map(M.bottomUpCallers(bview, r.bg).map(function (g) { return [g.kind + ':' + g.nameId + ':' + g.csLine, g]; })) : null;
        const kids = sortRows(M.bottomUpCallers(tree, r.g).map(function (g) { return withBase(groupRow(g, r.depth + 1, r.key + '/' + g.kind + ':' + g.name + ':' + g.csLine), bcallers ? bcallers.get(g.kind + ':' + g.nameId + ':' + g.csLine) || null : null); }));
        if (!kids.length) r.leaf = true;
        for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k]);
      }
    }
    const o = rootSelfRow();
    if (o) out.push(o);
    return out;
  }
  function flatRows() {
    if (!flatRoot) flatRoot = tree.flatRoot || (tree.flatRoot = M.flat(tree)); // idle time may have built it (M.flatJobs)
    // flatten: the top level is the rows st.flatten levels down
    let level = [flatRoot];
    for (let f = 0; f <= st.flatten; f++) {
      const next = [];
      for (const r of level) {
        if (r.children.length && f <= st.flatten) for (const c of r.children) next.push(c);
        else if (f > 0) next.push(r);
      }
      if (!next.length) break;
      level = next;
    }
    const out = [];
    function fr(r, depth) {
      return { name: r.name, kind: r.kind, depth: depth, node: r.node, key: 'f:' + r.key, incl: r.incl, self: r.self, calls: r.calls, leaf: !r.children.length, fr: r, base: base ? (flatBase(r) ? flatBase(r).incl[st.metric] : 0) : undefined };
    }
    const stack = sortRows(level.map(function (r) { return fr(r, 0); })).reverse();
    while (stack.length) {
      const r = stack.pop();
      out.push(r);
      if (expanded.has(r.key)) {
        const kids = sortRows(r.fr.children.map(function (c) { return fr(c, r.depth + 1); }));
        for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k]);
      }
    }
    const o = outsideRow(flatRoot.outside, base && flatBase(flatRoot) ? flatBase(flatRoot).outside[st.metric] : 0);
    if (o && level[0] !== flatRoot) out.push(o); // (the program row itself holds it when it has no modules)
    return out;
  }

  // ---------------------------------------------------------- table widget

  // (into: a container to add the table to; else #main, emptied first)
  function renderTable(list, into) {
    rows = list;
    const main = into || $('main');
    if (!into) main.textContent = '';
    const cols = columns();
    const t = el('div', 'table');
    t.dataset.table = st.view;
    const head = el('div', 'thead');
    for (const c of cols) {
      const h = el('span', 'cell ' + (c.num ? 'num' : 'c-name'), c.title + (sortOf() === c.id ? ' ▼' : ''));
      h.dataset.col = c.id;
      if (c.width) h.style.width = c.width;
      if (c.tip) h.title = c.tip;
      h.addEventListener('click', function () { st.sort = c.id; writeHash(); render(); });
      head.appendChild(h);
    }
    const scroll = el('div', 'scroll');
    const body = el('div', 'rows');
    body.style.height = (list.length * ROW) + 'px';
    scroll.appendChild(body);
    t.appendChild(head);
    t.appendChild(scroll);
    main.appendChild(t);
    tableEl = { scroll: scroll, body: body, cols: cols };
    // derived columns: the decimals that give their largest value 4 digits
    for (const c of cols) if (c.derived !== undefined) {
      let mx = 0;
      for (let k = 0, step = Math.ceil(list.length / 5000) || 1; k < list.length; k += step) { const x = Math.abs(derivedOf(list[k], c.derived, c.inclusive)); if (x > mx && isFinite(x)) mx = x; }
      c.dec = mx > 0 ? Math.max(0, Math.min(6, 3 - Math.floor(Math.log10(mx)))) : 0;
    }
    // the name column's width (it takes what the numeric columns leave):
    // deep rows indent less past 30 % of it and never past half of it, so
    // that a name keeps at least half of the column (its tooltip has it whole)
    const nameW = head.firstChild.getBoundingClientRect().width || 400;
    const indent = function (d) { const full = 14 * d, knee = 0.3 * nameW; return Math.round(full <= knee ? full : Math.min(0.5 * nameW, knee + (full - knee) / 4)); };
    const q = st.q.toLowerCase();
    const selv = selNode();
    function paint() {
      const top = scroll.scrollTop, h = scroll.clientHeight || 600;
      const a = Math.max(0, Math.floor(top / ROW) - 10), b = Math.min(list.length, Math.ceil((top + h) / ROW) + 10);
      body.textContent = '';
      for (let k = a; k < b; k++) {
        const r = list[k];
        const row = el('div', 'row');
        row.style.position = 'absolute';
        row.style.top = (k * ROW) + 'px';
        row.style.left = '0'; row.style.right = '0';
        row.dataset.name = r.name;
        row.dataset.index = k;
        row.dataset.depth = r.depth;
        if (r.key !== 'outside' && (st.view === 'top-down' || st.view === 'sandwich' ? r.node === selv : (r.node === selv && r.depth === 0))) row.classList.add('sel');
        if (q && r.name.toLowerCase().indexOf(q) >= 0) row.classList.add('hit');
        for (const c of cols) {
          const txt = cellText(r, c);
          const cell = el('span', 'cell ' + (c.num ? 'num' : 'c-name'));
          cell.dataset.col = c.id;
          if (c.width) cell.style.width = c.width;
          if (c.id === 'name') {
            cell.style.paddingLeft = (6 + indent(r.depth)) + 'px';
            const tw = el('span', 'tw', r.leaf ? '' : expanded.has(r.key) ? '▾' : '▸');
            tw.dataset.twisty = '1';
            cell.appendChild(tw);
            const nm = el('span', kindClass(r.kind), txt);
            cell.appendChild(nm);
            cell.title = (r.name.length > 200 ? r.name.slice(0, 4096) : r.name) + (rowWhere(r) ? '\n' + rowWhere(r) : '');
            cell.dataset.where = rowWhere(r);
          } else {
            const d = cellDisplay(r, c);
            if (d) numberCell(cell, d); else cell.textContent = txt;
            if (c.id === 'delta' && r.base !== undefined) cell.classList.add(r.incl[st.metric] > r.base ? 'up' : r.incl[st.metric] < r.base ? 'down' : 'same');
            if (c.id === 'dshare' && txt) { const x = shareChange(r); cell.classList.add(!x.sig ? 'same' : x.d > 0 ? 'up' : 'down'); }
          }
          row.appendChild(cell);
        }
        row.addEventListener('click', function (ev) {
          if (ev.target.dataset.twisty) toggle(r);
          else { select(r.node); render(true); }
        });
        row.addEventListener('dblclick', function () { toggle(r); });
        row.addEventListener('contextmenu', function (ev) { ev.preventDefault(); contextMenu(ev.clientX, ev.clientY, r.node); });
        if (row.classList.contains('sel') && procOf(r.node)) {
          // the selected row's procedure, as a sandwich (after the name cell,
          // which gives up the width: the numeric columns stay aligned)
          const sb = el('button', 'sw-btn', 'sandwich');
          sb.title = 'sandwich view of ' + procOf(r.node) + ': its callers and callees together (key s)';
          sb.dataset.action = 'sandwich';
          sb.addEventListener('click', function (ev) { ev.stopPropagation(); openSandwich(procOf(r.node)); });
          row.insertBefore(sb, row.children[1] || null);
        }
        body.appendChild(row);
      }
    }
    scroll.addEventListener('scroll', paint);
    paint();
    tableEl.paint = paint;
  }
  // Fill numeric cell @cell with display @d (cellDisplay): the number, its
  // unit in a box of fixed width (the decimal points of a column line up),
  // the exact value in data-value and the tooltip, a bar behind a percentage.
  function numberCell(cell, d) {
    if (d.bar !== undefined) {
      const b = el('span', 'pbar');
      b.style.width = Math.max(0, Math.min(100, d.bar)).toFixed(2) + '%';
      cell.appendChild(b);
    }
    cell.appendChild(el('span', 'v', d.v));
    cell.appendChild(el('span', 'u', d.u));
    if (d.raw !== undefined) cell.dataset.value = String(d.raw);
    if (d.title) cell.title = d.title;
  }
  function toggle(r) {
    if (r.leaf) return;
    if (expanded.has(r.key)) expanded.delete(r.key); else expanded.add(r.key);
    render(true);
  }
  function tableText() {
    const cols = columns();
    const lines = [cols.map(function (c) { return c.title; }).concat(rows.length && rows[0].cells ? [] : ['module+offset']).join('\t')];
    for (const r of rows) lines.push(cols.map(function (c) { const x = cellText(r, c); return c.id === 'name' ? '  '.repeat(r.depth) + x : x; }).concat(r.cells ? [] : [rowWhere(r)]).join('\t'));
    return lines.join('\n') + '\n';
  }

  // ---------------------------------------------------------- flame/icicle

  let flameRects = [];
  function hue(s) { let h = 0; for (let k = 0; k < s.length; k++) h = (h * 31 + s.charCodeAt(k)) | 0; return Math.abs(h) % 360; }
  // Box widths: the inclusive values @inc, plus, in a differential viewer,
  // the base's value of the contexts only the base has (so they show, in
  // green, beside what the current run still has).
  function flameWidths(inc) {
    if (!bonly || !bonly.nodes) return inc;
    const w = Float64Array.from(inc), first = tree.n - bonly.nodes;
    for (let v = first; v < tree.n; v++) {
      const b = baseIncl(v);
      w[v] = b;
      if (tree.parent[v] < first) for (let p = tree.parent[v]; p >= 0; p = tree.parent[p]) w[p] += b;
    }
    return w;
  }
  function renderFlame(icicle) {
    const main = $('main');
    main.textContent = '';
    const cv = el('canvas');
    cv.dataset.chart = st.view;
    main.appendChild(cv);
    const W = main.clientWidth || 1000, H = main.clientHeight || 600;
    const dpr = window.devicePixelRatio || 1;
    cv.width = W * dpr; cv.height = H * dpr;
    cv.style.width = W + 'px'; cv.style.height = H + 'px';
    const g = cv.getContext('2d');
    g.scale(dpr, dpr);
    g.font = '11px system-ui, sans-serif';
    g.textBaseline = 'middle';
    const m = st.metric, inc = flameWidths(tree.incl[m]);
    let z = tree.map[st.zoom];
    if (!(z >= 0)) z = 0;
    const total = inc[z] || 1;
    const q = st.q.toLowerCase();
    const RH = 16;
    const maxRows = Math.floor(H / RH);
    flameRects = [];
    let hits = 0;
    // the root box: the run's program by command (the tree's root), not Header n's path
    const rootName = M.nameOf(tree, 0) || src.data.program;
    // zoom path: ancestors of z drawn full width below it
    const anc = [];
    for (let p = z; p >= 0; p = tree.parent[p]) anc.unshift(p);
    const stack = [];
    const d0 = anc.length - 1;
    for (let k = 0; k < anc.length - 1; k++) box(anc[k], 0, W, k);
    stack.push([z, 0, d0]);
    const selv = selNode();
    while (stack.length) {
      const e = stack.pop(), i = e[0], x = e[1], d = e[2];
      const w = inc[i] / total * W;
      if (w < 0.5 || d >= maxRows) continue; // culled with its subtree
      box(i, x, w, d);
      let cx = x;
      // children under half a pixel would be culled and sort after the
      // others (heaviest first): left out before sorting
      const kids = [];
      for (let k = tree.cstart[i]; k < tree.cstart[i + 1]; k++) {
        const c = tree.clist[k];
        if (tree.kind[c] !== K.STMT && inc[c] / total * W >= 0.5) kids.push(c);
      }
      kids.sort(function (a, b) { return inc[b] - inc[a] || (tree.name[a] - tree.name[b]); });
      for (const c of kids) {
        stack.push([c, cx, d + 1]);
        cx += inc[c] / total * W;
      }
    }
    function box(i, x, w, d) {
      const y = icicle ? d * RH : H - (d + 1) * RH;
      const name = i === 0 ? rootName : M.nameOf(tree, i);
      let col;
      if (base) {
        const b = baseIncl(i), a = tree.incl[m][i];
        const r = a + b > 0 ? (a - b) / (a + b) : 0;
        col = r > 0 ? 'hsl(0,' + Math.round(30 + 60 * r) + '%,70%)' : r < 0 ? 'hsl(120,' + Math.round(30 - 60 * r) + '%,70%)' : '#ddd';
      } else {
        const k = tree.kind[i];
        col = k === K.LOOP ? '#d9c2ec' : k === K.INLINE ? 'hsl(' + hue(name) + ',45%,82%)' : 'hsl(' + hue(tree.lm[i] >= 0 ? src.modules[tree.lm[i]] : name) % 60 + 10 + ',75%,' + (65 + (hue(name) % 15)) + '%)';
      }
      const hit = q && name.toLowerCase().indexOf(q) >= 0;
      if (hit) { col = '#f0e442'; hits++; }
      g.fillStyle = col;
      g.fillRect(x, y, Math.max(w - 0.5, 0.5), RH - 1);
      if (i === selv) { g.strokeStyle = '#0366d6'; g.lineWidth = 2; g.strokeRect(x + 1, y + 1, w - 2, RH - 3); }
      if (w > 30) {
        g.fillStyle = '#000';
        let s = name;
        const maxc = Math.floor((w - 6) / 6.2);
        if (s.length > maxc) s = s.slice(0, Math.max(maxc - 1, 1)) + '…';
        g.fillText(s, x + 3, y + RH / 2);
      }
      flameRects.push([x, y, w, i]);
    }
    cv.dataset.boxes = flameRects.length;
    cv.dataset.root = rootName;
    cv.dataset.hits = hits;
    cv.addEventListener('click', function (ev) {
      const r = cv.getBoundingClientRect(), px = ev.clientX - r.left, py = ev.clientY - r.top;
      for (const b of flameRects) if (px >= b[0] && px < b[0] + b[2] && py >= b[1] && py < b[1] + RH) {
        st.zoom = tree.rep[b[3]];
        select(b[3]);
        render();
        return;
      }
    });
    cv.addEventListener('contextmenu', function (ev) {
      const r = cv.getBoundingClientRect(), px = ev.clientX - r.left, py = ev.clientY - r.top;
      for (const b of flameRects) if (px >= b[0] && px < b[0] + b[2] && py >= b[1] && py < b[1] + RH) { ev.preventDefault(); contextMenu(ev.clientX, ev.clientY, b[3]); return; }
    });
    cv.addEventListener('mousemove', function (ev) {
      const r = cv.getBoundingClientRect(), px = ev.clientX - r.left, py = ev.clientY - r.top;
      for (const b of flameRects) if (px >= b[0] && px < b[0] + b[2] && py >= b[1] && py < b[1] + RH) {
        const i = b[3];
        cv.title = (i === 0 ? M.nameOf(tree, 0) || src.data.program : M.nameOf(tree, i)) + '\n' + humanText(tree.incl[m][i], m) + ' (' + pct(tree.incl[m][i], tree.incl[m][0]) + ')' + (tree.calls[i] ? ', ' + callsText(tree.calls[i]) : '') + (base ? '\nbase ' + humanText(baseIncl(i), m) : '') + (whereOf(i) ? '\n' + whereOf(i) : '');
        return;
      }
    });
  }

  // ---------------------------------------------------------------- source

  function loadScript(path, done) {
    const s = document.createElement('script');
    s.src = path;
    s.onload = function () { done(true); };
    s.onerror = function () { done(false); };
    document.body.appendChild(s);
  }
  function renderSource() {
    const main = $('main');
    main.textContent = '';
    const v = selNode();
    let f = st.file >= 0 ? st.file : tree.file[v] >= 0 ? tree.file[v] : tree.csFile[v];
    const mark = st.file >= 0 ? st.line : tree.line[v];
    const box = el('div', 'src');
    const hdr = el('div', 'hdr');
    box.appendChild(hdr);
    main.appendChild(box);
    if (!(f >= 0)) { hdr.textContent = 'The selected scope has no source file.'; return; }
    hdr.appendChild(el('span', '', src.files[f] + (mark ? ':' + mark : '')));
    if (M.isFrame(tree.kind[v]) && tree.csFile[v] >= 0 && st.file < 0) {
      const b = el('button', '', 'show call site ' + src.files[tree.csFile[v]].replace(/.*\//, '') + ':' + tree.csLine[v]);
      b.addEventListener('click', function () { st.file = tree.csFile[v]; st.line = tree.csLine[v]; render(); });
      hdr.appendChild(b);
    }
    const chunk = src.data.src[String(f)];
    const store = window.CSPROF_SRC || {};
    if (chunk === undefined) { hdr.appendChild(el('span', '', ' — source not copied into the database (csprof-prof -I DIR)')); return; }
    if (store[chunk] === undefined) {
      loadScript('viewer/' + src.data.srcPrefix + chunk + '.js', function (ok) { if (ok) render(); else hdr.appendChild(el('span', '', ' — source chunk missing')); });
      return;
    }
    const text = window.CSPROF_SRC[chunk].split('\n');
    const m = st.metric;
    const key = M.encodeTransforms(st.t) + (st.lines ? '+ln' : '');
    if (streeKey !== key) { stree = st.lines && st.loops ? tree : M.buildView(src, st.t.filter(function (x) { return x.t !== 'hide-statements'; })); streeKey = key; }
    const sl = M.sourceLines(stree, f, m);
    // % of the procedure: the enclosing frame of the selection
    let proc = v;
    while (proc > 0 && !M.isFrame(tree.kind[proc])) proc = tree.parent[proc];
    const ptot = tree.incl[m][proc];
    // the procedure's hottest line (largest inclusive value among the lines
    // of its statements, loops and call sites), where the pane opens, unless
    // a call site was asked for
    let hot = 0;
    const plines = new Set(); // the procedure's lines (heat is shown on them)
    if (st.file < 0 && proc > 0 && stree.map[tree.rep[proc]] >= 0) {
      const stk = [stree.map[tree.rep[proc]]];
      let best = 0;
      while (stk.length) {
        const x = stk.pop();
        for (let k = stree.cstart[x]; k < stree.cstart[x + 1]; k++) {
          const c = stree.clist[k], kc = stree.kind[c];
          const l = kc === K.FRAME ? (stree.csFile[c] === f ? stree.csLine[c] : 0) : stree.file[c] === f ? stree.line[c] : 0;
          const r = l > 0 && l <= text.length ? sl.lines.get(l) : null;
          if (r) plines.add(l);
          if (r && (r.incl > best || (r.incl === best && best > 0 && l < hot))) { best = r.incl; hot = l; }
          if (kc !== K.FRAME) stk.push(c);
        }
      }
    }
    const brackets = new Array(text.length + 2).fill('');
    for (const lp of sl.loops) for (let l = lp[0]; l <= lp[1] && l <= text.length; l++) brackets[l] = l === lp[0] ? '┌' : l === lp[1] ? '└' : '│';
    const list = [];
    for (let l = 1; l <= text.length; l++) {
      const r = sl.lines.get(l) || { incl: 0, self: 0, calls: 0 };
      list.push({ l: l, code: text[l - 1], r: r });
    }
    const cols = [['line', 'line'], ['incl', 'incl'], ['excl', 'excl'], ['calls', 'calls'], ['proc-pct', '% of proc']];
    const head = el('div', 'thead');
    for (const c of cols) { const h = el('span', 'cell num', c[1]); h.dataset.col = c[0]; head.appendChild(h); }
    head.appendChild(el('span', 'bracket', ''));
    head.appendChild(el('span', 'cell code', 'source'));
    box.appendChild(head);
    const scroll = el('div', 'scroll'), body = el('div', 'rows');
    body.style.height = list.length * ROW + 'px';
    scroll.appendChild(body);
    box.appendChild(scroll);
    rows = list.map(function (x) { return { name: String(x.l), depth: 0, incl: [], self: [], calls: 0, src: x }; });
    function paint() {
      const top = scroll.scrollTop, h = scroll.clientHeight || 600;
      const a = Math.max(0, Math.floor(top / ROW) - 10), b = Math.min(list.length, Math.ceil((top + h) / ROW) + 10);
      body.textContent = '';
      for (let k = a; k < b; k++) {
        const x = list[k];
        const row = el('div', 'row' + (x.l === mark ? ' mark' : '') + (x.l === hot ? ' hot' : ''));
        row.style.position = 'absolute'; row.style.top = k * ROW + 'px'; row.style.left = '0'; row.style.right = '0';
        row.dataset.name = String(x.l);
        // heat: the line's share of the procedure, as a red shade
        const share = x.r.incl && ptot && (plines.has(x.l) || !plines.size) ? Math.min(1, x.r.incl / ptot) : 0;
        if (share > 0) { row.dataset.heat = share.toFixed(4); if (x.l !== mark) row.style.background = 'rgba(230, 60, 30, ' + (0.06 + 0.5 * share).toFixed(3) + ')'; }
        const vals = [String(x.l), x.r.incl ? humanText(x.r.incl, m) : '', x.r.self ? humanText(x.r.self, m) : '', x.r.calls ? String(Math.round(x.r.calls)) : '', x.r.incl && ptot ? pct(x.r.incl, ptot) : ''];
        const raws = [undefined, x.r.incl ? humanOf(x.r.incl, m, 0) : null, x.r.self ? humanOf(x.r.self, m, 0) : null];
        cols.forEach(function (c, j) { const s = el('span', 'cell num', vals[j]); s.dataset.col = c[0]; if (raws[j]) { s.dataset.value = String(raws[j].raw); s.title = raws[j].title; } row.appendChild(s); });
        const br = el('span', 'bracket', brackets[x.l]); br.dataset.col = 'loop'; row.appendChild(br);
        const code = el('span', 'cell code', x.code); code.dataset.col = 'source'; row.appendChild(code);
        body.appendChild(row);
      }
    }
    scroll.addEventListener('scroll', paint);
    paint();
    if (hot > 0) { scroll.scrollTop = Math.max(0, (hot - 1) * ROW - Math.floor((scroll.clientHeight || 600) / 3)); paint(); }
    else if (mark > 5) { scroll.scrollTop = (mark - 5) * ROW; paint(); }
    box.dataset.hot = hot;
  }

  // --------------------------------------------------------------- threads

  function simpleTable(parent, head, data, nameCol) {
    const tb = el('table');
    const tr = el('tr');
    for (const h of head) { const th = el('th', '', h[1]); th.dataset.col = h[0]; tr.appendChild(th); }
    tb.appendChild(tr);
    for (const d of data) {
      const r = el('tr');
      r.dataset.name = d[nameCol];
      head.forEach(function (h, j) { const td = el('td', '', d[j]); td.dataset.col = h[0]; r.appendChild(td); });
      tb.appendChild(r);
    }
    parent.appendChild(tb);
    rows = data.map(function (d) { return { name: String(d[nameCol]), depth: 0, cells: d, incl: [], self: [] }; });
    tableEl = { head: head };
    return tb;
  }
  // Per-thread inclusive values of the selected scope's procedure (or of the
  // whole run), from data.js threadValues (in the metric's unit), or null.
  function threadSeries() {
    const tv = src.data.threadValues;
    if (!tv) return null;
    const m = st.metric;
    let v = selNode();
    while (v > 0 && tree.kind[v] !== K.FRAME) v = tree.parent[v];
    if (v > 0) {
      const k = tv.procs.indexOf(M.nameOf(tree, v));
      if (k >= 0) return { what: M.nameOf(tree, v), values: tv.values[m][k], threads: tv.threads };
      return allThreadValues(M.nameOf(tree, v), m) || { what: M.nameOf(tree, v), values: null, threads: tv.threads };
    }
    return { what: 'the whole program', values: tv.total[m], threads: tv.threads };
  }
  // Per-thread values of every procedure: viewer/threads.js, loaded when
  // first needed (a classic script works from file://).  Returns the series,
  // {what, values: null, note} while loading or when not available, or null
  // when the database has no such script.
  let threadsIdx = null, threadsState = '';
  function allThreadValues(name, m) {
    const file = src.data.threadsScript;
    if (!file) return null;
    if (!threadsIdx) {
      if (threadsState === '') {
        threadsState = 'loading';
        loadScript('viewer/' + file, function (ok) {
          if (!ok || !window.CSPROF_THREADS) { threadsState = 'failed'; if (st.view === 'threads') render(); return; }
          M.unpack(window.CSPROF_THREADS).then(function (d) {
            threadsIdx = M.threadIndex(d);
            threadsState = 'ready';
            if (st.view === 'threads') render();
          }).catch(function () { threadsState = 'failed'; if (st.view === 'threads') render(); });
        });
      }
      return { what: name, values: null, threads: [], note: threadsState === 'failed' ? 'viewer/' + file + ' did not load' : 'loading per-thread values…' };
    }
    const values = M.threadValuesOf(threadsIdx, name, m);
    if (!values) return { what: name, values: null, threads: threadsIdx.threads, note: 'no thread has a value of ' + src.metrics[m].name + ' for it' };
    return { what: name, values: values, threads: threadsIdx.threads };
  }
  // The run's threads and processes (data.js groups: indexed as threadValues'
  // threads and Input thread= / process=), or, for a database without them,
  // one thread per measurement record.
  function runGroups() {
    const G = src.data.groups, ins = src.data.inputs.filter(function (x) { return x.read; });
    const files = new Map();
    ins.forEach(function (x) { const l = files.get(x.thread) || []; l.push(x.path); files.set(x.thread, l); });
    if (!G) {
      return { main: -1, wrappers: 0, processes: [], threads: ins.map(function (x, k) {
        return { index: x.thread >= 0 ? x.thread : k, process: -1, pid: x.pid, tid: x.tid, rank: x.rank, samples: x.samples, cpuNs: x.cpuNs, files: [x.path] };
      }) };
    }
    return { main: G.main, wrappers: G.wrappers, processes: G.processes.map(function (x, k) { return Object.assign({ index: k }, x); }),
      threads: G.threads.map(function (x, k) { return Object.assign({ index: k, files: files.get(k) || [] }, x); }) };
  }
  // A table for the Threads view: @head [[col, title, numeric]], @data rows of
  // {cells: [text], raw: [number or undefined], name, attrs}; numeric cells
  // keep their number in data-value.
  function groupTable(parent, id, head, data) {
    const tb = el('table');
    tb.id = id;
    const tr = el('tr');
    for (const h of head) { const th = el('th', h[2] ? 'num' : '', h[1]); th.dataset.col = h[0]; tr.appendChild(th); }
    tb.appendChild(tr);
    for (const d of data) {
      const r = el('tr');
      r.dataset.name = d.name;
      for (const k in d.attrs) r.dataset[k] = d.attrs[k];
      head.forEach(function (h, j) {
        const td = el('td', h[2] ? 'num' : '', d.cells[j]);
        td.dataset.col = h[0];
        if (d.raw && d.raw[j] !== undefined) td.dataset.value = String(d.raw[j]);
        r.appendChild(td);
      });
      tb.appendChild(r);
    }
    parent.appendChild(tb);
    return tb;
  }
  function renderThreads() {
    const main = $('main');
    main.textContent = '';
    const p = el('div', 'panel');
    main.appendChild(p);
    const R = runGroups(), ths = R.threads, procs = R.processes;
    const ser = threadSeries();
    const m = st.metric;
    let label, has = false;
    const byThread = new Map();
    if (ser && ser.values) {
      has = true;
      ser.threads.forEach(function (t, k) { byThread.set(t, ser.values[k]); });
      label = src.metrics[m].name + ' (' + unitOf(m) + ') of ' + ser.what + ', inclusive, per thread and process';
    } else {
      ths.forEach(function (t) { byThread.set(t.index, t.cpuNs > 0 ? t.cpuNs / 1e9 : 0); });
      label = 'CPU time (s) per thread' + (ser ? ' (per-thread values of ' + ser.what + ' are not available: ' + (ser.note || 'the database has no per-thread values for it') + ')' : '');
    }
    // every thread and process counts, 0 where it has no value (as csprof-report's statistics)
    const values = ths.map(function (t) { return byThread.get(t.index) || 0; });
    const pvalues = procs.map(function () { return 0; });
    ths.forEach(function (t, k) { if (t.process >= 0 && t.process < pvalues.length) pvalues[t.process] += values[k]; });
    const nw = R.wrappers, showW = st.wr || !nw;
    const head = 'Threads and processes: ' + ths.length + ' thread(s)' + (procs.length ? ' in ' + procs.length + ' process(es)' : '');
    const h3 = el('h3', '', head + (nw ? ', ' + nw + ' of them wrapper processes' + (showW ? '' : ' (folded)') : ''));
    h3.id = 'thread-heading';
    h3.dataset.threads = ths.length;
    h3.dataset.processes = procs.length;
    p.appendChild(h3);
    if (src.data.title) { const tl = el('p', '', 'run: ' + src.data.title); tl.id = 'thread-title'; p.appendChild(tl); }
    const lp = el('p', '', label);
    lp.id = 'thread-label';
    p.appendChild(lp);
    function statsLine(id, what, xs) {
      const s = M.stats(xs);
      const sp = el('p', '', what + ': min ' + s.min.toPrecision(4) + ' · mean ' + s.mean.toPrecision(4) + ' · max ' + s.max.toPrecision(4) + ' · coefficient of variation ' + s.cv.toFixed(3) + ' · ' + what + ' ' + s.n);
      sp.dataset.stats = JSON.stringify({ min: s.min, mean: s.mean, max: s.max, cv: s.cv, n: s.n, sum: s.sum });
      sp.id = id;
      p.appendChild(sp);
      return s;
    }
    const s = statsLine('thread-stats', 'threads', values);
    if (procs.length > 1) statsLine('process-stats', 'processes', pvalues);
    if (nw) {
      const lb = el('label', '');
      const cb = el('input');
      cb.type = 'checkbox'; cb.id = 'show-wrappers'; cb.checked = showW;
      cb.addEventListener('change', function () { st.wr = cb.checked; writeHash(); render(); });
      lb.appendChild(cb);
      lb.appendChild(document.createTextNode(' show the ' + nw + ' wrapper process(es): the processes that ended before ' + (procs[R.main] ? procs[R.main].command : 'the program') + ' started (they run in its wrapper, e.g. a shell script that ends with exec)'));
      p.appendChild(lb);
    }
    // plot: one bar per thread (by thread index), mean as a line
    const W = Math.min(900, (main.clientWidth || 900) - 30), H = 160;
    const cv = el('canvas');
    cv.width = W; cv.height = H;
    cv.dataset.chart = 'threads';
    p.appendChild(cv);
    const g = cv.getContext('2d');
    const max = s.max || 1, bw = W / Math.max(values.length, 1);
    g.fillStyle = '#4a8fd8';
    values.forEach(function (v, k) { const h = v / max * (H - 10); g.fillRect(k * bw + (bw > 3 ? 1 : 0), H - h, Math.max(bw - (bw > 3 ? 2 : 0), 0.5), h); });
    g.strokeStyle = '#c00';
    g.beginPath(); const my = H - s.mean / max * (H - 10); g.moveTo(0, my); g.lineTo(W, my); g.stroke();
    const vtitle = has ? src.metrics[m].name + ' (' + unitOf(m) + ')' : 'CPU time (s)';
    // values for people (58.7 ms, 2.0 GiB), the exact number in data-value
    const hv = function (x, unit) { const h = human(x, unit, 0); return h.v + (h.u ? ' ' + h.u : ''); };
    const vunit = has ? unitOf(m) : 's';
    const ranks = ths.some(function (t) { return t.rank >= 0; });
    const cmd = function (q) { return q >= 0 && procs[q] ? procs[q].command : ''; };
    const wrapper = function (q) { return !showW && q >= 0 && !!procs[q] && procs[q].wrapper; };
    // rows of @list (largest value first), the wrappers' folded into one row at the end
    const tableRows = function (head, list, valOf, procOf, mk, what) {
      const sorted = list.slice().sort(function (a, b) { return valOf(b) - valOf(a) || a.index - b.index; });
      const out = sorted.filter(function (x) { return !wrapper(procOf(x)); }).map(mk);
      const w = sorted.filter(function (x) { return wrapper(procOf(x)); });
      if (w.length) {
        const c = new Map(), sum = w.reduce(function (a, x) { return a + valOf(x); }, 0);
        w.forEach(function (x) { const k = cmd(procOf(x)); c.set(k, (c.get(k) || 0) + 1); });
        const names = [...c].sort(function (a, b) { return b[1] - a[1] || (a[0] < b[0] ? -1 : 1); }).map(function (e) { return e[0] + ' ×' + e[1]; }).join(', ');
        out.push({ name: 'wrappers', attrs: { folded: w.length },
          cells: head.map(function (h) { return h[0] === 'value' ? hv(sum, vunit) : h[0] === 'command' ? names : h[0] === what ? w.length + ' wrapper ' + (w.length === 1 ? what : what === 'process' ? 'processes' : 'threads') : ''; }),
          raw: head.map(function (h) { return h[0] === 'value' ? sum : undefined; }) });
      }
      return out;
    };
    if (procs.length > 1) {
      p.appendChild(el('h4', '', 'Processes'));
      const phead = [['process', 'process'], ['command', 'command'], ['pid', 'pid', true]].concat(ranks ? [['rank', 'rank', true]] : [],
        [['threads', 'threads', true], ['value', vtitle, true], ['samples', 'samples', true], ['cpu', 'CPU time', true]]);
      const prow = function (x) {
        const via = x.images && x.images.length > 1 ? ' (via ' + x.images.slice(0, -1).join(' → ') + ')' : '';
        return { name: x.command, attrs: { process: x.index, wrapper: x.wrapper ? '1' : '0' },
          cells: [String(x.index), x.command + via, String(x.pid)].concat(ranks ? [String(x.rank)] : [],
            [String(x.threads), hv(pvalues[x.index], vunit), String(x.samples), hv(x.cpuNs / 1e9, 's')]),
          raw: [undefined, undefined, x.pid].concat(ranks ? [x.rank] : [], [x.threads, pvalues[x.index], x.samples, x.cpuNs / 1e9]) };
      };
      groupTable(p, 'process-table', phead, tableRows(phead, procs, function (x) { return pvalues[x.index]; }, function (x) { return x.index; }, prow, 'process'));
    }
    p.appendChild(el('h4', '', 'Threads'));
    const thead = [['thread', 'thread'], ['process', 'process'], ['command', 'command'], ['pid', 'pid', true], ['tid', 'tid', true]].concat(ranks ? [['rank', 'rank', true]] : [],
      [['value', vtitle, true], ['samples', 'samples', true], ['cpu', 'CPU time', true], ['path', 'measurement file']]);
    const tval = function (x) { return byThread.get(x.index) || 0; };
    const trow = function (x) {
      return { name: cmd(x.process) || x.files.join(' '), attrs: { thread: x.index, process: x.process },
        cells: [String(x.index), x.process >= 0 ? String(x.process) : '', cmd(x.process), String(x.pid), String(x.tid)].concat(ranks ? [String(x.rank)] : [],
          [hv(tval(x), vunit), String(x.samples), x.cpuNs >= 0 ? hv(x.cpuNs / 1e9, 's') : '', x.files.join(' ')]),
        raw: [undefined, undefined, undefined, x.pid, x.tid].concat(ranks ? [x.rank] : [], [tval(x), x.samples, x.cpuNs >= 0 ? x.cpuNs / 1e9 : undefined, undefined]) };
    };
    const trows = tableRows(thead, ths, tval, function (x) { return x.process; }, trow, 'thread');
    groupTable(p, 'thread-table', thead, trows);
    rows = trows.map(function (d) { return { name: String(d.name), depth: 0, cells: d.cells, incl: [], self: [] }; });
    tableEl = { head: thead };
  }

  // -------------------------------------------------------------- sandwich

  // The sandwich view of one procedure (st.p, the URL's p=NAME), as
  // speedscope has it: its callers as an inverted tree above (the procedure,
  // then who called it, then who called them), its callees below (a
  // top-down tree merged over all its contexts), and its totals: inclusive
  // over its outermost contexts (recursion counted once), exclusive over all
  // (model.js "sandwich").  Opened from any table or flame graph (the
  // selected row's "sandwich" button, the context menu, key s) or by name in
  // the view's own search box.
  let sw = null; // {key, name, tree, cv (the callers' view), ct (the callees' view), totals, callers}
  let swNames = null; // {tree, names: procedure names, heaviest context first, heavy: Map(name -> incl)}
  // the procedure (nearest frame) of view node @v, '' at the root
  function procOf(v) {
    while (v > 0 && !M.isFrame(tree.kind[v])) v = tree.parent[v];
    return v > 0 ? M.nameOf(tree, v) : '';
  }
  function openSandwich(name) {
    if (!name) return;
    st.p = name; st.view = 'sandwich'; st.file = -1;
    writeHash();
    render();
  }
  function sandwichData(name) {
    const all = viewTransforms();
    const vt = all.filter(function (x) { return x.t !== 'focus-subtree' && x.t !== 'focus-function'; });
    const key = name + '\n' + M.encodeTransforms(vt);
    if (sw && sw.key === key && sw.tree === tree) return sw;
    if (sw) { M.release(sw.ct); if (sw.cv !== sw.tree) M.release(sw.cv); }
    const cv = vt.length === all.length ? tree : M.buildView(src, vt);
    const fself = M.sandwichFrameSelf(cv);
    sw = { key: key, name: name, tree: tree, cv: cv, ct: M.sandwichCallees(src, name, vt), totals: M.sandwichTotals(cv, name, fself), callers: M.sandwichCallers(cv, name, fself), fresh: true };
    return sw;
  }
  // the view node of @tree that node @v of view @t (of the same source) stands for
  function mainNode(t, v) {
    if (t === tree) return v;
    const x = tree.map ? tree.map[t.rep[v]] : -1;
    return x >= 0 ? x : 0;
  }
  function procNames() {
    if (swNames && swNames.tree === tree) return swNames;
    const heavy = new Map(), inc = tree.incl[st.metric];
    for (let i = 1; i < tree.n; i++) {
      if (!M.isFrame(tree.kind[i])) continue;
      const nm = M.nameOf(tree, i), h = heavy.get(nm);
      if (h === undefined || inc[i] > h) heavy.set(nm, inc[i]);
    }
    const names = Array.from(heavy.keys()).sort(function (a, b) { return heavy.get(b) - heavy.get(a) || (a < b ? -1 : 1); });
    swNames = { tree: tree, names: names, heavy: heavy };
    return swNames;
  }
  function sandwichCallerRows(s) {
    const out = [];
    const mk = function (g, depth) { return { name: g.name, kind: g.kind, depth: depth, node: mainNode(s.cv, g.node), key: 'sc:' + g.key, incl: g.incl, self: g.self, calls: g.calls, leaf: !g.children.length, g: g }; };
    const stack = [mk(s.callers, 0)];
    while (stack.length) {
      const r = stack.pop();
      out.push(r);
      if (expanded.has(r.key)) {
        const kids = sortRows(r.g.children.map(function (c) { return mk(c, r.depth + 1); }));
        for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k]);
      }
    }
    return out;
  }
  function sandwichCalleeRows(s) {
    const t = s.ct, nm = src.metrics.length, out = [];
    const mk = function (v, depth, key) {
      const incl = [], self = [];
      for (let m = 0; m < nm; m++) { incl.push(t.incl[m][v]); self.push(t.self[m][v]); }
      return { name: M.nameOf(t, v), kind: t.kind[v], depth: depth, node: mainNode(t, v), key: key, incl: incl, self: self, calls: t.calls[v], leaf: t.cstart[v] === t.cstart[v + 1], v: v };
    };
    const kids = function (v, depth, pkey) {
      return sortRows(M.children(t, v).map(function (c) { return mk(c, depth, pkey + '/' + t.kind[c] + ':' + t.name[c] + ':' + t.csLine[c]); }));
    };
    const stack = kids(0, 0, 'se:').reverse();
    while (stack.length) {
      const r = stack.pop();
      out.push(r);
      if (expanded.has(r.key)) {
        const ks = kids(r.v, r.depth + 1, r.key);
        for (let k = ks.length - 1; k >= 0; k--) stack.push(ks[k]);
      }
    }
    return out;
  }
  // open the heaviest collapsed rows of @rowsOf() until about @want show
  function sandwichOpen(rowsOf, want) {
    for (let round = 0; round < want; round++) {
      const list = rowsOf();
      if (list.length >= want) return;
      let best = null;
      for (const r of list) if (!r.leaf && !expanded.has(r.key) && (!best || r.incl[st.metric] > best.incl[st.metric])) best = r;
      if (!best) return;
      expanded.add(best.key);
    }
  }
  // every row key of both trees (expandAll)
  function sandwichExpandAll() {
    if (!sw) return;
    const stk = [sw.callers];
    while (stk.length) { const g = stk.pop(); expanded.add('sc:' + g.key); for (const c of g.children) stk.push(c); }
    const t = sw.ct, ks = [[0, 'se:']];
    while (ks.length) {
      const e = ks.pop();
      for (const c of M.children(t, e[0])) { const k = e[1] + '/' + t.kind[c] + ':' + t.name[c] + ':' + t.csLine[c]; expanded.add(k); ks.push([c, k]); }
    }
  }
  function renderSandwich() {
    const main = $('main');
    main.textContent = '';
    const box = el('div', 'sandwich');
    main.appendChild(box);
    const head = el('div', 'sw-head');
    box.appendChild(head);
    if (!st.p) { st.p = procOf(selNode()); if (st.p) writeHash(); }
    const P = procNames();
    head.appendChild(el('span', '', 'Sandwich of '));
    const q = el('input');
    q.id = 'sandwich-q'; q.type = 'search'; q.size = 40; q.value = st.p; q.placeholder = 'procedure name';
    q.title = 'a procedure: its callers above, its callees below (Enter opens the first match)';
    q.setAttribute('list', 'sandwich-names');
    head.appendChild(q);
    const dl = el('datalist');
    dl.id = 'sandwich-names';
    for (const nm of P.names.slice(0, 5000)) { const o = el('option'); o.value = nm; dl.appendChild(o); }
    head.appendChild(dl);
    const info = el('span', 'sw-totals');
    info.id = 'sandwich-totals';
    head.appendChild(info);
    const list = el('div', 'sw-matches');
    list.id = 'sandwich-matches';
    head.appendChild(list);
    const matchesOf = function (text) {
      const x = text.toLowerCase();
      return P.names.filter(function (nm) { return nm.toLowerCase().indexOf(x) >= 0; });
    };
    const showMatches = function (text) {
      list.textContent = '';
      const ms = matchesOf(text);
      list.dataset.matches = ms.length;
      list.appendChild(el('span', '', ms.length + ' procedure(s) match' + (ms.length > 20 ? ' (the 20 heaviest shown)' : '') + ': '));
      for (const nm of ms.slice(0, 20)) {
        const b = el('button', 'sw-pick', nm);
        b.dataset.proc = nm;
        b.addEventListener('click', function () { openSandwich(nm); });
        list.appendChild(b);
      }
    };
    q.addEventListener('keydown', function (ev) {
      if (ev.key !== 'Enter') return;
      const ms = P.heavy.has(q.value) ? [q.value] : matchesOf(q.value);
      if (ms.length) openSandwich(ms[0]);
    });
    q.addEventListener('input', function () { showMatches(q.value); });
    q.addEventListener('change', function () { if (P.heavy.has(q.value) && q.value !== st.p) openSandwich(q.value); });
    if (!st.p || !P.heavy.has(st.p)) {
      info.textContent = st.p ? ' — no procedure named ' + st.p + ' in this view' : ' — select a procedure, or type its name';
      showMatches(st.p || '');
      rows = [];
      return;
    }
    const s = sandwichData(st.p), m = st.metric, tot = tree.incl[m][0], T = s.totals;
    info.textContent = ' — inclusive ' + humanText(T.incl[m], m) + ' (' + pct(T.incl[m], tot) + ', ' + T.contexts + ' outermost context(s): recursion counted once), exclusive ' +
      humanText(T.self[m], m) + ' (' + pct(T.self[m], tot) + ', ' + T.frames + ' context(s))' + (T.calls ? ', ' + callsText(T.calls) : '');
    const per = src.metrics[m].rawPerUnit || 1;
    info.dataset.incl = String(T.incl[m] / per);
    info.dataset.excl = String(T.self[m] / per);
    info.dataset.calls = String(T.calls);
    info.dataset.contexts = String(T.contexts);
    if (s.fresh) {
      s.fresh = false;
      sandwichOpen(function () { return sandwichCallerRows(s); }, 12);
      sandwichOpen(function () { return sandwichCalleeRows(s); }, 25);
    }
    const part = function (id, title) {
      const d = el('div', 'sw-part');
      d.id = id;
      d.appendChild(el('div', 'sw-title', title));
      const b = el('div', 'sw-body');
      d.appendChild(b);
      box.appendChild(d);
      return b;
    };
    const up = part('sandwich-callers', 'Callers of ' + st.p + ' (inverted: each row\'s callers below it; its values are the part of ' + st.p + '\'s cost that came through that chain of calls)');
    const down = part('sandwich-callees', 'Callees of ' + st.p + ' (top-down, merged over its outermost contexts)');
    const cr = sandwichCallerRows(s), ce = sandwichCalleeRows(s);
    renderTable(cr, up);
    renderTable(ce, down);
    rows = cr.concat(ce);
  }
  // A small menu at (@x, @y) for view node @v: the sandwich of its procedure.
  function contextMenu(x, y, v) {
    const old = $('ctxmenu');
    if (old) old.remove();
    const name = procOf(v);
    if (!name) return;
    const mn = el('div', 'ctxmenu');
    mn.id = 'ctxmenu';
    mn.style.left = x + 'px'; mn.style.top = y + 'px';
    const b = el('button', '', 'Sandwich: callers and callees of ' + (name.length > 60 ? name.slice(0, 60) + '…' : name));
    b.dataset.action = 'sandwich';
    b.addEventListener('click', function () { mn.remove(); openSandwich(name); });
    mn.appendChild(b);
    document.body.appendChild(mn);
    setTimeout(function () { document.addEventListener('click', function () { mn.remove(); }, { once: true }); }, 0);
  }

  // --------------------------------------------------------------- quality

  // The trust report: experiment.xml's Summary/Trust (share/schemas/
  // experiment.dtd; docs/trust.md), shown in the words and with the numbers
  // of `csprof-report --view quality` (lib/trust/trust.c trust_print), so
  // that the report and the page read alike.  The Summary element's raw
  // attributes stay below it, collapsed, for experts.

  // The ledger's parts (data-ledger-part: the names of csprof-report's JSON).
  const LEDGER_PARTS = [
    ['measured', 'measured'],
    ['recorded', 'recorded'],
    ['kernel', 'of it in the kernel'],
    ['dropped', 'dropped'],
    ['unplaced', 'in the kernel without a calling context'],
    ['tail', 'after the last period'],
    ['uncounted', 'not counted by the task clock'],
    ['undelivered', 'not delivered'],
    ['blocked', 'in blocked threads'],
    ['unexplained', 'not explained']];
  // samples.dropped.REASON (docs/trust.md "Why a sample is dropped")
  const DROP_MEANING = {
    reentered: 'the signal arrived while csprof\'s own code ran on the thread',
    no_thread: 'on a thread csprof has no state for (created by a raw clone)',
    stopped: 'after the thread\'s sampling stopped (exit, exec, writing the profile)',
    no_memory: 'the thread\'s memory limit for its tree was reached: raise CSPROF_MEMORY_LIMIT',
    unwind_fault: 'the stack walk touched unmapped memory',
    no_frames: 'libunwind could not start from the signal context',
    unknown_source: 'a signal csprof cannot tie to an event',
    in_trampoline: 'the signal interrupted csprof\'s return trampoline (--no-trampoline removes it)',
    in_monitor: 'the signal interrupted csprof\'s code outside a sample',
    debug: 'dropped on purpose (CSPROF_DEBUG_DROP_EVERY)' };

  // printf's "%.Nf": the double's exact value rounded to N decimals, a tie
  // to even (toFixed rounds a tie up: 0.25 -> "0.3" where C prints "0.2")
  function cfix(x, n) {
    const s = x.toFixed(n);
    if (!isFinite(x) || Math.abs(x) >= 1e21) return s;
    const ex = Math.abs(x).toFixed(100), dot = ex.indexOf('.');
    if (!/^50*$/.test(ex.slice(dot + 1 + n))) return s;
    const kept = n ? ex.slice(0, dot + 1 + n) : ex.slice(0, dot);
    if (Number(kept[kept.length - 1]) % 2 === 1) return s; // up to even: as toFixed
    return (x < 0 ? '-' : '') + kept;
  }
  function cpct(part, whole) { return whole > 0 ? 100 * part / whole : 0; }
  function num0(a, k) { const v = a[k]; return v === undefined ? 0 : Number(v); }
  // lib/trust's kinds of events
  function trustKind(l) { return l.event === 'CPUTIME' ? 'cpu' : l.event === 'REALTIME' ? 'wall' : l.unit === 'bytes' ? 'bytes' : 'count'; }
  function measureName(l) { const k = trustKind(l); return k === 'cpu' ? 'CPU time' : k === 'wall' ? 'wall time' : 'count'; }
  function hasLedger(l) { return l.measured !== undefined; }
  // "2.878 s" or "12345 events": a raw value in the event's display unit
  function amount(l, v) { return l.unit === 'ns' ? cfix(v / 1e9, 3) + ' s' : cfix(v, 0) + ' ' + l.unit; }
  function worthOf(l, v) { const p = num0(l, 'period'); return p > 0 ? v / p : 0; }

  // Summary/Trust of data.js summary, or null (a database of an older csprof-prof)
  function trustOf(summary) {
    const k = summary.findIndex(function (e) { return e[0] === 'Trust'; });
    if (k < 0) return null;
    const d = summary[k][1];
    const t = { a: summary[k][2], ledgers: [], overhead: {}, threads: {}, tramp: null, paths: null, stops: [], drops: [], notable: [], processes: [] };
    let top = '';
    for (let i = k + 1; i < summary.length && summary[i][1] > d; i++) {
      const name = summary[i][0], depth = summary[i][1], a = summary[i][2];
      if (depth === d + 1) {
        top = name;
        if (name === 'Ledger') t.ledgers.push(a);
        else if (name === 'Overhead') t.overhead = a;
        else if (name === 'Threads') t.threads = a;
        else if (name === 'CallPaths') t.paths = a;
        else if (name === 'Trampoline') t.tramp = a;
        else if (name === 'Drop') t.drops.push(a);
        else if (name === 'Thread') t.notable.push(a);
        else if (name === 'Process') t.processes.push({ a: a, ledgers: [] });
      } else if (depth === d + 2) {
        if (top === 'CallPaths' && name === 'StoppedIn') t.stops.push(a);
        else if (top === 'Process' && name === 'Ledger') t.processes[t.processes.length - 1].ledgers.push(a);
      }
    }
    return t;
  }
  // the run's first time event with a ledger (lib/trust time_event)
  function timeLedger(t) {
    return t.ledgers.find(function (l) { return hasLedger(l) && num0(l, 'period') > 0 && (trustKind(l) === 'cpu' || trustKind(l) === 'wall'); }) || null;
  }
  function overheadPercent(o) {
    const cpu = num0(o, 'cpu-ns'), sig = num0(o, 'signals');
    return cpu === 0 || sig === 0 ? -1 : 100 * (num0(o, 'handler-cpu-ns') + num0(o, 'writer-cpu-ns')) / cpu;
  }
  // one line of the text report, [data-trust-line=@what]
  function trustLine(parent, what, text, cls) {
    const p = el('p', 'tline' + (cls ? ' ' + cls : ''), text);
    p.dataset.trustLine = what;
    parent.appendChild(p);
    return p;
  }
  // "CPUTIME@1000 (perf-task-clock): 2.606 s measured, 2606.4 samples' worth"
  function ledgerHead(l) {
    const m = num0(l, 'measured'), p = num0(l, 'period');
    if (!hasLedger(l)) return l.event + ' (' + l.mechanism + '): ' + l.samples + ' samples';
    if (p === 0) return l.event + ' (' + l.mechanism + '): ' + amount(l, m) + ' measured, ' + cfix(cpct(num0(l, 'recorded'), m), 1) + '% recorded, ' + cfix(cpct(num0(l, 'dropped'), m), 1) + '% dropped';
    return l.event + '@' + (trustKind(l) === 'count' ? p : Math.floor(p / 1000)) + ' (' + l.mechanism + '): ' + amount(l, m) + ' measured, ' + cfix(worthOf(l, m), 1) + ' samples\' worth';
  }
  // One event's ledger: the heading line, then a table of its parts, each in
  // the event's display unit, in samples' worth and as a share of measured.
  function ledgerTable(parent, l, proc) {
    const head = trustLine(parent, 'ledger', ledgerHead(l));
    head.dataset.event = l.event;
    if (!hasLedger(l)) return;
    const m = num0(l, 'measured'), p = num0(l, 'period');
    const tb = el('table', 'ledger');
    tb.dataset.event = l.event;
    tb.dataset.period = l.period;
    if (proc !== undefined) tb.dataset.process = proc;
    const tr = el('tr');
    for (const h of ['part', l.unit === 'ns' ? 'value (s)' : 'value (' + l.unit + ')', 'samples\' worth', 'share of measured', ''])
      tr.appendChild(el('th', '', h));
    tb.appendChild(tr);
    for (const part of LEDGER_PARTS) {
      const raw = l[part[0]] === undefined ? '0' : String(l[part[0]]);
      const v = Number(raw), share = cpct(v, m);
      const r = el('tr', part[0] === 'kernel' ? 'sub' : part[0] === 'measured' ? 'total' : '');
      r.dataset.ledgerPart = part[0];
      r.dataset.event = l.event;
      r.dataset.period = l.period;
      r.dataset.value = raw;
      if (p > 0) r.dataset.samples = String(v / p);
      const cells = [['part', part[1]], ['value', l.unit === 'ns' ? cfix(v / 1e9, 6) : raw], ['samples', p > 0 ? cfix(v / p, 1) : '-'], ['share', cfix(share, 1) + '%']];
      for (const c of cells) {
        const td = el('td', c[0] === 'part' ? '' : 'n', c[1]);
        td.dataset.col = c[0];
        r.appendChild(td);
      }
      const bt = el('td');
      bt.dataset.col = 'bar';
      const bar = el('span', 'bar');
      const fill = el('span', v < 0 ? 'neg' : part[0] === 'recorded' || part[0] === 'measured' || part[0] === 'kernel' ? 'ok' : 'lost');
      fill.style.width = Math.min(100, Math.abs(share)).toFixed(1) + '%';
      bar.appendChild(fill);
      bt.appendChild(bar);
      r.appendChild(bt);
      tb.appendChild(r);
    }
    parent.appendChild(tb);
  }
  // a table of @data (arrays of text) with header @head ([col, title]); each row
  // gets the data attributes attrs(k) returns
  function trustTable(parent, id, head, data, attrs) {
    const tb = el('table');
    tb.id = id;
    const tr = el('tr');
    for (const h of head) tr.appendChild(el('th', '', h[1]));
    tb.appendChild(tr);
    data.forEach(function (d, k) {
      const r = el('tr');
      const a = attrs(k);
      for (const key in a) r.dataset[key] = a[key];
      head.forEach(function (h, j) { const td = el('td', '', d[j]); td.dataset.col = h[0]; r.appendChild(td); });
      tb.appendChild(r);
    });
    parent.appendChild(tb);
  }
  function verdictLines(parent, a, what) {
    const ok = a.verdict === 'trustworthy';
    if (ok) trustLine(parent, what, 'trust: trustworthy', 'good');
    else {
      trustLine(parent, what, 'trust: DOUBTFUL: ' + (a.reason || ''), 'bad');
      trustLine(parent, 'advice', 'what to do: ' + (a.advice || ''));
    }
    if (ok && a.caveat) trustLine(parent, 'note', 'note: ' + a.caveat);
  }
  function renderTrust(p, t) {
    const box = el('div');
    box.id = 'trust';
    p.appendChild(box);
    box.appendChild(el('h3', '', 'Trust report'));
    if (!t) {
      box.dataset.trustVerdict = 'none';
      trustLine(box, 'verdict', 'no trust report in this database (written by an older csprof-prof)');
      return false;
    }
    box.dataset.trustVerdict = t.a.verdict === 'trustworthy' ? 'trustworthy' : 'doubtful';
    verdictLines(box, t.a, 'verdict');
    // the report's second line
    const te = timeLedger(t), over = overheadPercent(t.overhead);
    let s = (t.paths ? t.paths.samples : '0') + ' samples';
    if (te) s += '; ' + cfix(cpct(num0(te, 'recorded'), num0(te, 'measured')), 1) + '% of ' + te.event + '\'s ' + measureName(te) + ' recorded, ' + cfix(cpct(num0(te, 'kernel'), num0(te, 'recorded')), 1) + '% of it in the kernel';
    if (over >= 0) s += '; csprof\'s handler and writer ' + cfix(over, 2) + '% of the CPU time';
    trustLine(box, 'summary', s);
    // where each event's value went
    box.appendChild(el('h4', '', 'Ledger: where each event\'s value went'));
    const lg = el('div');
    lg.id = 'trust-ledgers';
    box.appendChild(lg);
    for (const l of t.ledgers) ledgerTable(lg, l);
    box.appendChild(el('h4', '', 'csprof, threads and call paths'));
    const o = t.overhead, sig = num0(o, 'signals');
    if (over >= 0)
      trustLine(box, 'overhead', 'overhead: csprof\'s handler ' + cfix(num0(o, 'handler-cpu-ns') / 1e6, 3) + ' ms (' + cfix(sig > 0 ? num0(o, 'handler-cpu-ns') / 1e3 / sig : 0, 2) +
        ' us per signal, timed on a sample of ' + o.signals + ' signals), its writer ' + cfix(num0(o, 'writer-cpu-ns') / 1e6, 3) + ' ms: ' + cfix(over, 2) + '% of ' + cfix(num0(o, 'cpu-ns') / 1e9, 3) + ' CPU-s');
    const th = t.threads;
    let ts = 'threads: ' + num0(th, 'threads') + ' in ' + num0(th, 'processes') + ' process(es); ' + num0(th, 'unsampled') + ' with CPU time and no sample, ' + num0(th, 'blocked') +
      ' ended with the sampling signal blocked, ' + num0(th, 'fallback') + ' on the POSIX-timer fallback';
    if (num0(th, 'fallback') > 0)
      ts += ' (no descriptor to spare for the task clock: ' + cfix(num0(th, 'fallback-cpu-ns') / 1e9, 3) + ' CPU-s, ' + cfix(num0(th, 'fallback-recorded') / 1e9, 3) + ' s of it recorded, ' +
        cfix(num0(th, 'fallback-undelivered') / 1e9, 3) + ' s not delivered: the timer fires at the scheduler tick)';
    ts += ', ' + num0(th, 'checkpoint') + ' cut off (checkpoint only), ' + num0(th, 'mismatched') + ' whose tree disagrees with its counters';
    trustLine(box, 'threads', ts);
    if (t.paths) {
      const judged = num0(t.paths, 'samples') - num0(t.paths, 'unjudged');
      let cp = 'call paths: ' + cfix(cpct(num0(t.paths, 'rooted'), judged), 1) + '% of ' + judged + ' samples rooted at a thread entry';
      t.stops.forEach(function (x, k) { cp += (k === 0 ? '; the others stop in: ' : ', ') + x.module + ' ' + x.samples; });
      if (num0(t.paths, 'unjudged') > 0) cp += ' (' + t.paths.unjudged + ' samples cannot be judged)';
      if (judged > num0(t.paths, 'rooted'))
        cp += '; the walk itself reported ' + num0(t.paths, 'unwind-stopped') + ' samples stopped early (the others ended where unwind information was missing or wrong, unnoticed)';
      trustLine(box, 'call-paths', cp);
    }
    if (t.tramp && num0(t.tramp, 'fired') + num0(t.tramp, 'lost') + num0(t.tramp, 'return-mismatch') > 0)
      trustLine(box, 'trampoline', 'trampoline: ' + num0(t.tramp, 'fired') + ' returns counted (the call counts), ' + num0(t.tramp, 'lost') +
        ' samples found it lost or misplaced (longjmp, exceptions, context switches: a full walk each), ' + num0(t.tramp, 'return-mismatch') + ' returns to an unexpected address');
    // drops by reason
    if (t.drops.length) {
      box.appendChild(el('h4', '', 'Dropped samples, by reason'));
      const total = t.drops.reduce(function (a, d) { return a + num0(d, 'samples'); }, 0);
      trustTable(box, 'trust-drops', [['reason', 'reason'], ['samples', 'samples'], ['share', 'share of dropped'], ['meaning', 'meaning (docs/trust.md)']],
        t.drops.map(function (d) { return ['samples.dropped.' + d.reason, d.samples, cfix(cpct(num0(d, 'samples'), total), 1) + '%', Object.prototype.hasOwnProperty.call(DROP_MEANING, d.reason) ? DROP_MEANING[d.reason] : '']; }),
        function (k) { return { dropReason: t.drops[k].reason, samples: t.drops[k].samples }; });
    }
    // the most doubtful threads (their first event's parts, in samples' worth of its period)
    if (t.notable.length) {
      box.appendChild(el('h4', '', 'Notable threads'));
      trustTable(box, 'trust-threads', [['command', 'thread'], ['pid', 'pid'], ['tid', 'tid'], ['index', '#'], ['cpu', 'CPU-s'], ['samples', 'samples'], ['state', 'state'],
        ['undelivered', 'not delivered'], ['blocked', 'blocked'], ['unexplained', 'not explained']],
      t.notable.map(function (x) {
        const l = t.ledgers.find(function (y) { return y.event === x.event && hasLedger(y); });
        const w = function (k) { return x[k] === undefined ? '' : l && num0(l, 'period') > 0 ? cfix(worthOf(l, num0(x, k)), 1) + ' samples\' worth' : amount({ unit: l ? l.unit : '' }, num0(x, k)); };
        const state = [x.blocked === '1' ? 'ended with the sampling signal blocked' : '', x.fallback === '1' ? 'POSIX-timer fallback' : '', x.checkpoint === '1' ? 'cut off (checkpoint only)' : '',
          x.mismatch === '1' ? 'tree disagrees with its counters (' + x['tree-samples'] + ' samples in the tree)' : ''].filter(Boolean).join(', ');
        return [x.command, x.pid, x.tid, x['thread-index'], cfix(num0(x, 'cpu-ns') / 1e9, 3), x.samples, state, w('undelivered'), w('blocked-value'), w('unexplained')];
      }), function (k) { const x = t.notable[k]; return { trustThread: x['thread-index'], pid: x.pid, tid: x.tid, cpuNs: x['cpu-ns'], samples: x.samples }; });
    }
    // several processes: each one's verdict, the doubtful ones first, then their ledgers
    if (t.processes.length) {
      box.appendChild(el('h4', '', 'Processes'));
      const ps = t.processes.map(function (x, k) { return { x: x, k: k }; }).sort(function (a, b) {
        return (a.x.a.verdict === 'trustworthy') - (b.x.a.verdict === 'trustworthy') || a.k - b.k;
      });
      trustTable(box, 'trust-processes', [['process', 'process'], ['pid', 'pid'], ['command', 'command'], ['threads', 'threads'], ['cpu', 'CPU-s'], ['samples', 'samples'], ['verdict', 'verdict'], ['why', 'why, and what to do']],
        ps.map(function (y) {
          const a = y.x.a, ok = a.verdict === 'trustworthy';
          return [a.process, a.pid, a.command, a.threads, cfix(num0(a, 'cpu-ns') / 1e9, 3), a.samples, ok ? 'trustworthy' : 'DOUBTFUL', ok ? (a.caveat ? 'note: ' + a.caveat : '') : (a.reason || '') + '; what to do: ' + (a.advice || '')];
        }), function (k) { const a = ps[k].x.a; return { trustProcess: a.process, pid: a.pid, verdict: a.verdict }; });
      const det = el('details');
      det.id = 'trust-process-ledgers';
      det.appendChild(el('summary', '', 'each process\'s ledger'));
      for (const y of ps) {
        det.appendChild(el('h4', '', 'process ' + y.x.a.process + ' (pid ' + y.x.a.pid + ', ' + y.x.a.command + ')'));
        for (const l of y.x.ledgers) ledgerTable(det, l, y.x.a.process);
      }
      box.appendChild(det);
    }
    return true;
  }
  let rawOpen = false; // the raw dump's <details> stays as the user left it
  function renderQuality() {
    const main = $('main');
    main.textContent = '';
    const p = el('div', 'panel quality');
    main.appendChild(p);
    const has = renderTrust(p, trustOf(src.data.summary || []));
    const det = el('details');
    det.id = 'quality-raw';
    det.open = rawOpen || !has;
    det.addEventListener('toggle', function () { if (has) rawOpen = det.open; });
    det.appendChild(el('summary', '', 'experiment.xml Summary: every attribute, raw'));
    p.appendChild(det);
    const t = src.data.totals;
    det.appendChild(el('p', '', 'samples ' + t.samples + ' · rooted ' + (t.rootedPercent >= 0 ? t.rootedPercent.toFixed(1) + '%' : '?') +
      ' · unknown ' + t.unknownSamples + ' · threads ' + t.threads + ' · processes ' + t.processes + ' · CPU ' + (t.cpuSeconds >= 0 ? t.cpuSeconds.toFixed(3) + ' s' : '?')));
    const data = (src.data.summary || []).map(function (e) {
      const a = e[2];
      if (e[0] === 'Stat' && a.n !== undefined) return ['  '.repeat(e[1]) + a.n, String(a.v)];
      return ['  '.repeat(e[1]) + e[0], Object.keys(a).map(function (k) { return k + '=' + a[k]; }).join('  ')];
    });
    simpleTable(det, [['element', 'element'], ['values', 'values']], data, 0);
  }

  // ------------------------------------------------- load module + offset

  // Where view node @v's code is: "module+0xOFFSET" (the module's file
  // name, the address relative to it, as perf and pprof write it), the
  // module alone when the database has no address, '' when unknown.
  function whereOf(v) {
    if (!(v > 0) || v >= tree.n || (bonly && bonly.nodes && v >= tree.n - bonly.nodes)) return '';
    const lm = tree.lm[v];
    if (lm < 0 || lm >= tree.src.modules.length) return '';
    const mod = String(tree.src.modules[lm]).replace(/^.*\//, '');
    const a = addrs ? addrs[tree.rep[v]] >>> 0 : 0;
    return a > 0 ? mod + '+0x' + a.toString(16) : mod;
  }
  // viewer/addr.js (the addresses), loaded right after the first paint
  let addrs = null;
  function loadAddrs() {
    const file = src.data.addrScript;
    if (!file) return;
    loadScript('viewer/' + file, function (ok) {
      if (!ok || !window.CSPROF_ADDR || window.CSPROF_ADDR.n !== src.n) return;
      M.unpack(window.CSPROF_ADDR).then(function (d) { addrs = d.addr; status(); if (tableEl && tableEl.paint) tableEl.paint(); }).catch(function () {});
    });
  }
  function rowWhere(r) {
    return r.kind === K.GROUP || r.kind === K.ROOT || r.node === undefined ? '' : whereOf(r.node);
  }

  // ----------------------------------------------------------------- frame

  function status() {
    const v = selNode();
    const m = st.metric;
    const path = M.pathOf(tree, v);
    const s = path.length > 6 ? path.slice(0, 2).concat(['…'], path.slice(-3)) : path;
    $('status').textContent = (s.join(' → ') || src.data.program) + ' · ' + humanText(tree.incl[m][v], m) + ' incl (' + pct(tree.incl[m][v], tree.incl[m][0]) + ')' + (tree.calls[v] ? ' · ' + callsText(tree.calls[v]) : '') +
      (whereOf(v) ? ' · ' + whereOf(v) : '') +
      (bonly && bmetric >= 0 ? ' · base only: ' + bonly.nodes + ' contexts, ' + humanText(bonly.total[bmetric], m) : '');
    searchCount();
  }
  // How much the search matched, beside the search box: "37 matches, 12.4 %
  // of CPUTIME": the contexts of the current view (transforms applied)
  // whose name contains it, and the metric's inclusive value under them,
  // a match inside another counted once (as flamegraph.pl's "Matched").
  // #search-count has data-matches and data-percent.
  let searchMemo = null;
  function searchStats() {
    const q = st.q.toLowerCase(), m = st.metric;
    if (!q) return null;
    if (searchMemo && searchMemo.tree === tree && searchMemo.q === q && searchMemo.m === m) return searchMemo.r;
    const S = tree.src.strings, hit = new Uint8Array(S.length);
    for (let k = 0; k < S.length; k++) if (String(S[k]).toLowerCase().indexOf(q) >= 0) hit[k] = 1;
    let n = 0, incl = 0;
    const stack = [0], inside = [0];
    while (stack.length) {
      const i = stack.pop(), under = inside.pop();
      let u = under;
      if (i > 0 && tree.kind[i] !== K.STMT && hit[tree.name[i]]) {
        n++;
        if (!under) incl += tree.incl[m][i];
        u = 1;
      }
      for (let k = tree.cstart[i]; k < tree.cstart[i + 1]; k++) { stack.push(tree.clist[k]); inside.push(u); }
    }
    const tot = tree.incl[m][0];
    const r = { n: n, incl: incl, pct: tot ? 100 * incl / tot : 0 };
    searchMemo = { tree: tree, q: q, m: m, r: r };
    return r;
  }
  function searchCount() {
    const e = $('search-count');
    if (!e) return;
    const r = searchStats();
    if (!r) { e.textContent = ''; delete e.dataset.matches; delete e.dataset.percent; return; }
    e.textContent = r.n + (r.n === 1 ? ' match, ' : ' matches, ') + r.pct.toFixed(1) + ' % of ' + src.metrics[st.metric].name;
    e.title = e.textContent + ' (' + humanText(r.incl, st.metric) + '): the contexts of this view whose name contains "' + st.q + '", a match inside another counted once';
    e.dataset.matches = r.n;
    e.dataset.percent = r.pct;
  }
  function renderChips() {
    const c = $('chips');
    c.textContent = '';
    st.t.forEach(function (x, k) {
      const chip = el('span', 'chip', M.transformLabel(x, function (node) { return M.nameOf(tree, Math.max(0, tree.map[node])); }));
      chip.dataset.transform = x.t;
      const b = el('button', '', '×');
      b.title = 'remove';
      b.addEventListener('click', function () { st.t.splice(k, 1); changed(); });
      chip.appendChild(b);
      c.appendChild(chip);
    });
    if (transformErr) {
      // the URL's transforms that did not decode: named, not silently dropped
      const bad = el('span', 'chip bad', 'ignored: ' + (transformErr.length > 60 ? transformErr.slice(0, 60) + '…' : transformErr));
      bad.title = 'transforms of the URL left out: ' + transformErr;
      const b = el('button', '', '×');
      b.title = 'dismiss';
      b.addEventListener('click', function () { transformErr = ''; renderChips(); });
      bad.appendChild(b);
      c.appendChild(bad);
    }
  }
  function render(keepScroll) {
    const scrollTop = keepScroll && tableEl && tableEl.scroll ? tableEl.scroll.scrollTop : 0;
    for (const b of document.querySelectorAll('#views [data-view]')) b.classList.toggle('on', b.dataset.view === st.view);
    renderChips();
    const lb = $('t-loops');
    if (lb) lb.textContent = loopsShown() ? 'Hide loops' : 'Show loops';
    const t0 = performance.now();
    if (st.view === 'top-down') renderTable(topDownRows());
    else if (st.view === 'bottom-up') renderTable(bottomUpRows());
    else if (st.view === 'flat') renderTable(flatRows());
    else if (st.view === 'flame') renderFlame(false);
    else if (st.view === 'icicle') renderFlame(true);
    else if (st.view === 'source') renderSource();
    else if (st.view === 'threads') renderThreads();
    else if (st.view === 'sandwich') renderSandwich();
    else renderQuality();
    if (scrollTop && tableEl && tableEl.scroll) { tableEl.scroll.scrollTop = scrollTop; tableEl.paint(); }
    lastRenderMs = performance.now() - t0;
    status();
  }
  let lastRenderMs = 0;
  const timing = {};
  function changed() { writeHash(); rebuild(); render(); }
  function addTransform(x) {
    st.t = st.t.filter(function (y) { return M.encodeTransforms([y]) !== M.encodeTransforms([x]); });
    st.t.push(x);
    changed();
  }
  function toggleTransform(name) {
    const k = st.t.findIndex(function (y) { return y.t === name; });
    if (k >= 0) st.t.splice(k, 1); else st.t.push({ t: name });
    changed();
  }
  // First view of a database: the hot path, then the heaviest collapsed rows
  // until about @want rows show (as profilers open the heaviest path).
  function autoExpand(want) {
    for (const p of M.hotPath(tree, 0, st.metric, 0.5)) expanded.add(p);
    const inc = tree.incl[st.metric];
    for (let round = 0; round < want; round++) {
      const list = topDownRows();
      if (list.length >= want) break;
      let best = -1;
      for (const r of list) if (!r.leaf && !expanded.has(r.node) && (best < 0 || inc[r.node] > inc[best])) best = r.node;
      if (best < 0) break;
      expanded.add(best);
    }
  }
  function hotPath() {
    const v = st.view === 'top-down' ? selNode() : 0;
    const path = M.hotPath(tree, v, st.metric, 0.5);
    for (const p of path) expanded.add(p);
    select(path[path.length - 1]);
    if (st.view !== 'top-down') st.view = 'top-down';
    writeHash();
    render();
    // scroll the selected row into view
    const k = rows.findIndex(function (r) { return r.node === path[path.length - 1]; });
    if (k >= 0 && tableEl && tableEl.scroll) { tableEl.scroll.scrollTop = Math.max(0, (k - 5) * ROW); tableEl.paint(); }
  }
  function copyText() {
    const s = tableText();
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(s).catch(function () {});
    return s;
  }

  function wire() {
    for (const b of document.querySelectorAll('#views [data-view]')) b.addEventListener('click', function () { st.view = b.dataset.view; st.file = -1; writeHash(); render(); });
    const ms = $('metric');
    src.metrics.forEach(function (m, k) { const o = el('option', '', m.name + ' (' + m.unit + ')'); o.value = k; ms.appendChild(o); });
    ms.value = st.metric;
    ms.addEventListener('change', function () { st.metric = Number(ms.value); if (base) bmetric = M.matchMetric(tree, btree, st.metric); writeHash(); render(); });
    const se = $('search');
    se.value = st.q;
    se.addEventListener('input', function () { st.q = se.value; writeHash(); render(true); });
    $('hot').addEventListener('click', hotPath);
    $('flatten').addEventListener('click', function () { st.flatten++; if (st.view !== 'flat') st.view = 'flat'; writeHash(); render(); });
    $('unflatten').addEventListener('click', function () { st.flatten = Math.max(0, st.flatten - 1); writeHash(); render(); });
    $('copy').addEventListener('click', copyText);
    $('derive').addEventListener('keydown', function (ev) { if (ev.key === 'Enter' && addDerived($('derive').value)) $('derive').value = ''; });
    $('derive-add').addEventListener('click', function () { if (addDerived($('derive').value)) $('derive').value = ''; });
    $('derive-clear').addEventListener('click', function () { st.dm = []; compileDerived(); writeHash(); render(); });
    $('lines').addEventListener('click', function () { st.lines = !st.lines; changed(); });
    $('t-focus').addEventListener('click', function () { addTransform({ t: 'focus-subtree', node: st.sel }); });
    $('t-focusfn').addEventListener('click', function () { const v = selNode(); if (v > 0) addTransform({ t: 'focus-function', name: M.nameOf(tree, v) }); });
    $('t-hide').addEventListener('click', function () { const v = selNode(); if (v > 0 && M.isFrame(tree.kind[v])) addTransform({ t: 'hide', name: M.nameOf(tree, v) }); });
    $('t-hidelib').addEventListener('click', function () { const v = selNode(); if (tree.lm[v] >= 0) addTransform({ t: 'hide-lib', lib: src.modules[tree.lm[v]] }); });
    // the parameterless transforms with a toggle button (the transform table's toggle)
    for (const t of M.TRANSFORMS) {
      const b = M.TRANSFORM_TYPES[t].toggle;
      if (b) $(b).addEventListener('click', function () { toggleTransform(t); });
    }
    $('t-loops').addEventListener('click', function () {
      // loops are hidden by default (csprof-report --loops hide): this shows
      // them, or hides them again; a hide-loops of the user's goes with it
      const k = st.t.findIndex(function (y) { return y.t === 'hide-loops'; });
      if (k >= 0) { st.t.splice(k, 1); st.loops = true; } else st.loops = !st.loops;
      changed();
    });
    document.addEventListener('keydown', function (ev) {
      if (ev.target && ev.target.tagName === 'INPUT') return;
      if (ev.key === 'h') hotPath();
      else if (ev.key === 's' && !ev.ctrlKey && !ev.metaKey && !ev.altKey) openSandwich(procOf(selNode()));
      else if ((ev.key === 'ArrowDown' || ev.key === 'ArrowUp') && rows.length && (st.view === 'top-down')) {
        const v = selNode();
        let k = rows.findIndex(function (r) { return r.node === v; });
        k = Math.max(0, Math.min(rows.length - 1, k + (ev.key === 'ArrowDown' ? 1 : -1)));
        select(rows[k].node); render(true); ev.preventDefault();
      } else if ((ev.key === 'ArrowRight' || ev.key === 'ArrowLeft') && st.view === 'top-down') {
        const v = selNode();
        if (ev.key === 'ArrowRight') expanded.add(v); else expanded.delete(v);
        render(true); ev.preventDefault();
      }
    });
    window.addEventListener('resize', function () { render(true); });
  }

  // The interface the end-to-end tests use (share/schemas/viewer-data.md).
  window.csprofViewer = {
    state: function () {
      return { view: st.view, metric: st.metric, sort: sortOf(), sel: st.sel, selName: M.nameOf(tree, selNode()) || src.data.program, zoom: st.zoom, transforms: M.encodeTransforms(st.t), search: st.q, flatten: st.flatten, lines: st.lines, diff: !!base, renderMs: lastRenderMs, p: st.p, loops: loopsShown(), derived: M.encodeDerived(st.dm), derivedColumns: derived.map(function (d) { return d.name; }), addrLoaded: !!addrs, derivedError: derivedErr, transformError: transformErr, baseOnly: bonly ? { nodes: bonly.nodes, total: bonly.total } : null };
    },
    setState: function (o) {
      let rb = false;
      if (o.view !== undefined) st.view = o.view;
      if (o.metric !== undefined) st.metric = o.metric;
      if (o.sort !== undefined) st.sort = o.sort;
      if (o.sel !== undefined) { st.sel = o.sel; expandTo(selNode()); }
      if (o.zoom !== undefined) st.zoom = o.zoom;
      if (o.search !== undefined) st.q = o.search;
      if (o.flatten !== undefined) st.flatten = o.flatten;
      if (o.p !== undefined) st.p = o.p;
      if (o.loops !== undefined) { st.loops = !!o.loops; rb = true; }
      if (o.lines !== undefined) { st.lines = !!o.lines; rb = true; }
      if (o.derived !== undefined) { st.dm = typeof o.derived === 'string' ? M.decodeDerived(o.derived) : o.derived; compileDerived(); }
      if (o.transforms !== undefined) { st.t = typeof o.transforms === 'string' ? M.decodeTransforms(o.transforms) : o.transforms; rb = true; }
      if (o.expand) for (const x of o.expand) expanded.add(x);
      writeHash();
      if (rb) rebuild();
      if (o.sel !== undefined) expandTo(selNode());
      render();
      return this.state();
    },
    // select the first view node named @name (in preorder); returns its source index or -1
    find: function (name) {
      for (let i = 1; i < tree.n; i++) if (M.nameOf(tree, i) === name) { st.sel = tree.rep[i]; expandTo(i); writeHash(); render(); return st.sel; }
      return -1;
    },
    expandAll: function () {
      for (let i = 0; i < tree.n; i++) expanded.add(i);
      if (st.view === 'sandwich') sandwichExpandAll();
      if (st.view === 'flat' && flatRoot) { const stk = [flatRoot]; while (stk.length) { const x = stk.pop(); expanded.add('f:' + x.key); for (const c of x.children) stk.push(c); } }
      render();
    },
    hotPath: hotPath,
    tableText: tableText,
    timing: timing,
    // idle-time jobs still queued (whenIdle)
    idleJobs: function () { return idleQueue.length; },
    model: function () { return { tree: tree, src: src, base: btree }; },
  };

  function start() {
    try {
      if (!window.CSPROF_DB) { fail('viewer/data.js did not load: run csprof-prof --refresh-viewer DB'); return; }
      const t0 = performance.now();
      timing.scriptsLoaded = t0;
      M.unpack(window.CSPROF_DB).then(function (d) { timing.unpacked = performance.now(); started(d, t0); }).catch(function (e) { fail(e.message); });
    } catch (e) {
      fail(e && e.message ? e.message : String(e));
    }
  }
  function started(d, t0) {
    try {
      src = M.load(d);
      timing.loaded = performance.now();
      const fresh = !/sel=/.test(location.hash);
      readHash();
      compileDerived();
      // the run's title (csprof-report's: its program, the processes by command, wrappers apart)
      $('program').textContent = (src.data.title || src.data.program) + (src.data.base ? ' (differential: base → this run)' : '');
      $('program').title = $('program').textContent;
      document.title = 'csprof: ' + (src.data.title || src.data.program);
      const go = function () {
        rebuild();
        timing.built = performance.now();
        if (fresh) autoExpand(60);
        wire();
        render();
        window.csprofViewer.loadMs = performance.now() - t0;
        // since navigation start: reading the data scripts included
        document.documentElement.dataset.csprofReadyMs = Math.round(performance.now());
        document.documentElement.dataset.csprofReady = '1';
        loadAddrs();
        // while the page is idle: the source's same-name ancestors (the
        // bottom-up rows of every view follow them), the bottom-up and flat
        // rows of the first view (the next views a user opens), the
        // source's unique-children flags (every transform's build needs
        // them), the memory of the first rebuilds (M.warmUp), then their
        // compiled code (M.jitJobs)
        whenIdle(M.sameNameJobs(src, 200000).concat(viewRowJobs(tree), M.uniqueJobs(src, 200000), M.warmUp(src), M.jitJobs(src, 20000, 3, addedTransforms())), false);
      };
      if (src.data.base) {
        loadScript('viewer/' + src.data.base, function (ok) {
          try {
            if (!ok || !window.CSPROF_BASE) { fail('viewer/' + src.data.base + ' did not load'); return; }
            M.unpack(window.CSPROF_BASE).then(function (bd) { base = M.load(bd); go(); }).catch(function (e) { fail(e.message); });
          } catch (e) { fail(e.message); }
        });
      } else {
        go();
      }
    } catch (e) {
      fail(e && e.message ? e.message : String(e));
    }
  }
  window.addEventListener('error', function (ev) { fail(ev.message || 'script error'); });
  if (document.readyState === 'complete') start(); else window.addEventListener('load', start);
})();
