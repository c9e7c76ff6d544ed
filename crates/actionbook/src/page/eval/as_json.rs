//! The page-side conversion of a script's object result into bounded JSON (`AS_JSON_JS`).

/// The deepest a value returned by `browser eval` nests, in levels of JSON: deeper objects are
/// their type in brackets (`"[Object]"`). A reply is decoded with serde_json, which refuses more
/// than 128 levels, and the value sits a few levels down in it.
pub(crate) const EVAL_VALUE_DEPTH: usize = 100;

/// Turns a script's object result into JSON that keeps what `JSON.stringify` loses, as
/// `{value, cut}`: a Date is its ISO text, a RegExp its source (`/re/g`), a Map its
/// `[key, value]` pairs, a Set its items, a typed array, ArrayBuffer or DataView its items
/// (bytes), an Error `{name, message, stack}` (and `cause`, `errors`, its own keys), a DOM node a
/// short description (`div#id.class`), a node list or collection an array of those, a BigInt
/// `"1n"`, NaN and ±Infinity their names, a Number, String or Boolean object its value, an object
/// already on the path `"[Circular]"`, a window `"[Window]"`, an object JSON shows as `{}` without
/// being a plain object its type (`"[Promise]"`, `"[WeakMap]"`, `"[Navigator]"`), a value that
/// throws when read `"[Unreadable: <message>]"`; `toJSON` is honoured; `undefined` in an object
/// drops the key (in an array it is `null`); functions and symbols are their text.
///
/// Bounded: `limit` characters of JSON (counted from below, so the text is at least that long)
/// and `depth` levels; past either the rest is left out or given as its type in brackets, and
/// `cut` says which (`size`, `depth`). The window itself throws (what was refused before) unless
/// `windowToo` (then it is `"[Window]"`). Strict, so that a primitive `this` stays one.
pub(super) const AS_JSON_JS: &str = r#"function (limit, maxDepth, windowToo, thenables) {
  'use strict';
  if (this === window && !windowToo) throw new Error('it is the window itself');
  // A promise-like object (not a native promise, which the browser awaits): the caller awaits it.
  if (thenables) {
    try {
      if (this !== null && (typeof this === 'object' || typeof this === 'function')
          && typeof this.then === 'function') return { thenable: true };
    } catch (e) {}
  }
  let room = limit;
  const cut = {};
  const onPath = new Set();
  const toStr = Object.prototype.toString;
  const tagOf = (v) => { try { return toStr.call(v).slice(8, -1); } catch (e) { return 'Object'; } };
  const nameOf = (v) => {
    try {
      const c = v.constructor;
      if (typeof c === 'function' && typeof c.name === 'string' && c.name) return c.name;
    } catch (e) {}
    return tagOf(v);
  };
  const message = (e) => { try { return String(e && e.message || e); } catch (x) { return 'error'; } };
  // A string, cut where the room runs out.
  const str = (s) => {
    if (s.length + 2 > room) { cut.size = true; s = s.slice(0, Math.max(room, 0) + 1); }
    room -= s.length + 2;
    return s;
  };
  const isNode = (v) => {
    if (typeof Node === 'function' && v instanceof Node) return true;
    // A node of another frame (its own Node).
    const d = v.ownerDocument || v;
    const w = d && d.defaultView;
    return !!w && w !== window && typeof w.Node === 'function' && v instanceof w.Node;
  };
  const node = (n) => {
    if (n.nodeType === 1) {
      let d = n.localName;
      if (n.id) d += '#' + n.id;
      for (const c of n.classList || []) d += '.' + c;
      return d;
    }
    if (n.nodeType === 3) return '#text ' + JSON.stringify(n.data.length > 60 ? n.data.slice(0, 60) + '…' : n.data);
    return n.nodeName.toLowerCase();
  };
  // Items of an array-like (by index) or an iterable, until the room runs out.
  const items = (list, each, indexed) => {
    const out = [];
    room -= 2;
    const add = (x) => {
      if (room <= 0) { cut.size = true; return false; }
      room -= 1;
      out.push(each(x));
      return true;
    };
    if (indexed) {
      for (let i = 0; i < list.length; i++) if (!add(list[i])) break;
    } else {
      for (const x of list) if (!add(x)) break;
    }
    return out;
  };
  const inList = (depth) => (x) => {
    const w = walk(x, depth + 1);
    if (w !== undefined) return w;
    room -= 4;
    return null;
  };
  // Keys of an object, until the room runs out.
  const fields = (out, depth, k, read) => {
    if (room <= 0) { cut.size = true; return false; }
    let x;
    try { x = read(); } catch (e) { x = '[Unreadable: ' + message(e) + ']'; }
    const w = walk(x, depth + 1);
    if (w !== undefined) { out[k] = w; room -= k.length + 4; }
    return true;
  };
  const inner = (v, depth) => {
    switch (typeof v) {
      case 'string': return str(v);
      case 'number': if (Number.isFinite(v)) { room -= 1; return v; } return str(String(v));
      case 'boolean': room -= 4; return v;
      case 'bigint': return str(v + 'n');
      case 'function': case 'symbol': return str(String(v));
      case 'undefined': return undefined;
    }
    if (v === null) { room -= 4; return null; }
    if (v.window === v) return str('[Window]');
    const tag = tagOf(v);
    if (v instanceof Date || tag === 'Date') return str(isNaN(v) ? 'Invalid Date' : Date.prototype.toISOString.call(v));
    if (v instanceof RegExp || tag === 'RegExp') return str(String(v));
    if (isNode(v)) return str(node(v));
    if (tag === 'Number') return walk(Number.prototype.valueOf.call(v), depth);
    if (tag === 'String') return walk(String.prototype.valueOf.call(v), depth);
    if (tag === 'Boolean') return walk(Boolean.prototype.valueOf.call(v), depth);
    if (onPath.has(v)) return str('[Circular]');
    if (depth >= maxDepth) { cut.depth = true; return str('[' + nameOf(v) + ']'); }
    onPath.add(v);
    try {
      if (typeof v.toJSON === 'function') {
        const j = v.toJSON('');
        if (j !== v) return walk(j, depth + 1);
      }
      if (v instanceof Error || tag === 'Error') {
        const out = {};
        room -= 2;
        const keys = ['name', 'message', 'stack'];
        if ('cause' in v) keys.push('cause');
        if (Array.isArray(v.errors)) keys.push('errors');
        for (const k of Object.keys(v)) if (!keys.includes(k)) keys.push(k);
        for (const k of keys) if (!fields(out, depth, k, () => v[k])) break;
        return out;
      }
      if (v instanceof Map || tag === 'Map') {
        return items(v, ([k, x]) => items([k, x], inList(depth + 1), true), false);
      }
      if (v instanceof Set || tag === 'Set') return items(v, inList(depth), false);
      if (tag === 'ArrayBuffer' || tag === 'SharedArrayBuffer') return items(new Uint8Array(v), inList(depth), true);
      if (tag === 'DataView') return items(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), inList(depth), true);
      if (Array.isArray(v) || ArrayBuffer.isView(v) || tag === 'NodeList' || tag === 'RadioNodeList' ||
          (typeof NodeList === 'function' && v instanceof NodeList) ||
          (typeof HTMLCollection === 'function' && v instanceof HTMLCollection) || /Collection$/.test(tag)) {
        return items(v, inList(depth), true);
      }
      const keys = Object.keys(v);
      const name = nameOf(v);
      // What JSON would show as {} without being a plain object: its type.
      if (keys.length === 0 && name !== 'Object') return str('[' + name + ']');
      const out = {};
      room -= 2;
      for (const k of keys) if (!fields(out, depth, k, () => v[k])) break;
      return out;
    } finally {
      onPath.delete(v);
    }
  };
  const walk = (v, depth) => {
    try {
      return inner(v, depth);
    } catch (e) {
      return str('[Unreadable: ' + message(e) + ']');
    }
  };
  const value = walk(this, 0);
  return { value, cut: Object.keys(cut) };
}"#;
