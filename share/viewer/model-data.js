// SPDX-License-Identifier: BSD-3-Clause
// model-data.js -- csprof viewer model, the data: node kinds (K, KIND_NAMES),
// the packed columns' inflation (unpack) and the source tree as typed arrays
// (load), share/schemas/viewer-data.md.
// Uses no other part.
// A part of the model: see model.js for how the parts are loaded.
(typeof module !== 'undefined' && module.exports ? function (part) { module.exports = part; } : function (part) { part(window.csprofParts = window.csprofParts || {}); })(function (M) {
  'use strict';

  // Node kinds: the viewer data's codes (share/schemas/viewer-data.md, "kind"; viewer.c's
  // data_kind); GROUP is the viewer's own flat-view row.
  const K = { ROOT: 0, FRAME: 1, INLINE: 2, LOOP: 3, STMT: 4, TRUNC: 5, GROUP: 6 };
  const KIND_NAMES = ['root', 'frame', 'inline', 'loop', 'statement', 'truncated', 'group'];

  // Inflate the packed node columns of @d (data.js "packed": gzip+base64 of
  // little-endian int32/float64 arrays) into d's column keys.  Returns a
  // promise of @d; data without "packed" is returned as is.
  function unpack(d) {
    if (!d || !d.packed) return Promise.resolve(d);
    const p = d.packed;
    if (p.encoding !== 'gzip+base64') return Promise.reject(new Error('packed encoding ' + p.encoding + ' is unknown'));
    let u;
    if (typeof Uint8Array.fromBase64 === 'function') {
      u = Uint8Array.fromBase64(p.data); // native decoder (Chromium 140, Firefox 133 and later)
    } else {
      const bin = atob(p.data);
      u = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
    }
    // inflate straight into one buffer of the known size
    const ds = new DecompressionStream('gzip');
    const w = ds.writable.getWriter();
    w.write(u);
    w.close();
    const reader = ds.readable.getReader();
    const whole = new Uint8Array(p.bytes);
    let got = 0;
    // one promise for the whole read: a promise returned from each chunk's
    // handler would nest one level per chunk (seconds for 40 MB)
    const all = new Promise(function (resolve, reject) {
      function step(r) {
        if (r.done) { resolve(whole.buffer); return; }
        if (got + r.value.length > whole.length) {
          reader.cancel().catch(function () {});
          reject(new Error('packed columns: more than ' + p.bytes + ' bytes'));
          return;
        }
        whole.set(r.value, got);
        got += r.value.length;
        reader.read().then(step, reject);
      }
      reader.read().then(step, reject);
    });
    return all.then(function (buf) {
      if (got !== p.bytes) throw new Error('packed columns: ' + got + ' bytes, expected ' + p.bytes);
      let off = 0;
      d.self = [];
      for (const c of p.columns) {
        const size = c[1] === 'f64' ? 8 : 4;
        const b = off % size === 0 ? buf : buf.slice(off, off + size * d.n), o = b === buf ? off : 0;
        const a = size === 8 ? new Float64Array(b, o, d.n) : new Int32Array(b, o, d.n);
        off += size * d.n;
        if (c[0] === 'self') d.self[c[2]] = a; else d[c[0]] = a;
      }
      delete d.packed;
      return d;
    });
  }

  // @a itself when it is a @Type array, else a copy as one.
  function asTyped(a, Type) {
    return a instanceof Type ? a : Type.from(a);
  }

  // The data object (window.CSPROF_DB) as typed arrays.
  function load(d) {
    if (!d || d.format !== 1) throw new Error('viewer data format ' + (d && d.format) + ' is not 1: run csprof-prof --refresh-viewer DB');
    const n = d.n;
    const parent = new Int32Array(n);
    const pd = d.parentDelta;
    parent[0] = -1;
    for (let i = 1; i < n; i++) parent[i] = i - pd[i];
    const nm = d.metrics.length;
    // unpacked columns are typed already: used as they are, not copied
    const self = [];
    for (let m = 0; m < nm; m++) self.push(asTyped(d.self[m], Float64Array));
    const src = {
      data: d,
      n: n,
      parent: parent,
      kind: Uint8Array.from(d.kind),
      name: asTyped(d.name, Int32Array),
      lm: asTyped(d.lm, Int32Array),
      file: asTyped(d.file, Int32Array),
      line: asTyped(d.line, Int32Array),
      csFile: asTyped(d.csFile, Int32Array),
      csLine: asTyped(d.csLine, Int32Array),
      calls: asTyped(d.calls, Float64Array),
      self: self,
      strings: d.strings,
      metrics: d.metrics,
      modules: d.modules,
      files: d.files,
      // set later (declared here: one object shape for every source)
      end: null, uniq: null, uniqBuild: null, sameUp: null, sameUpBuild: null, buRowsHint: undefined, flatRowsHint: undefined, siteCallees: null,
    };
    // subtree end (exclusive) of each node in preorder
    const end = new Int32Array(n);
    for (let i = n - 1; i >= 0; i--) {
      if (end[i] === 0) end[i] = i + 1;
      const p = parent[i];
      if (p >= 0 && end[i] > end[p]) end[p] = end[i];
    }
    src.end = end;
    return src;
  }

  Object.assign(M, { K, KIND_NAMES, unpack, load });
});
