// Actionability and delivery, run in the frame of the element acted on (`this`; for `up`, the
// <iframe> element that owns the frame below). One function, several operations:
//   aim(arg)    checks (attached, visible, enabled), the action point (scrolling into view when
//               needed), hit tests at that point in this document and up through every frame this
//               script can reach, and one-shot capture listeners recording the input that arrives;
//   check(arg)  after the pointer moved there: the point is unchanged (stable), still hits the
//               element (or what the page put in its place, see `replacement`), and whether the
//               move itself landed on the element;
//   up(arg)     one frame boundary it could not cross (another origin or process, or a frame
//               drawn transformed, whose content quad the engine passes as `arg.quad`): from
//               the child's point to the parent's, hit tested, and on up;
//   listen(arg) listeners only (keyboard input to this element's document);
//   peek()      what the listeners saw so far;
//   finish()    stops the listeners and answers what they saw;
//   after()     (a quick aim's element) after the input: one task and one 0 ms timer of the page,
//               then the listeners stopped, with the page's URL, title and whether focus moved
//               (or the report already made, see below).
// A quick aim (`arg.quick`, for an element whose frames up to the top this script can reach)
// also refuses an element that a running animation moves (the caller then takes the careful
// path), reads the top page before the action (URL, title, the focused element, kept for after(),
// the document's time origin, which tells it from the next document, and its visibility)
// and remembers the element on its window, so the later operations need no object handle.
// With `arg.report` ({name, token, ups}), the listeners report by themselves what after() would
// answer, through the page binding `name`, once the `ups`-th mouseup has been handled (one task
// and one 0 ms timer later, as after() waits): the engine need not ask after the input, and
// waits for no re-render the input's handlers cause. A single left click whose handlers and
// default action cannot have scheduled a navigation reports sooner, from a bubbling listener on
// the window once the page's own click handlers ran (see `settled`): after an input, Chromium runs
// no task of the page before its next frame, so the task barrier costs up to a frame.
// Every probe also reads the browser's own count of the events dispatched in its document
// (performance.eventCounts) when it starts, and answers what was dispatched since with what it
// saw: no page listener can stop that count. A page whose own capture listener on the window,
// registered at load before the probe's, stops every event (an app's shortcut or gesture layer)
// hides them from the listeners, not from the count.
// An aim also answers at once what no wait can change: an <option> of a closed drop-down
// <select> ('option': it has no box while the list is closed; the engine chooses it through its
// select), and an element no pointer reaches because it is inert, found when its hit test fails
// (so a reachable element pays nothing for it): outside the open modal dialog ('modal', `by`
// names the dialog) or under an element with the `inert` attribute ('inert', `by` names it).
// The listeners also note a form submission that the browser's interactive validation stopped
// (a click on a submit button, Enter in a form, with a field out of its constraints): the first
// invalid field, its message and how many were invalid (`unsubmitted`, answered with the seen
// events; no round trip of its own).
// Answers by value: {status: 'ok', ...} or {status: <why not>, by: <what covers it>}.
async function (op, arg) {
  const KEY = Symbol.for('actionbook.probe');
  const AIMED = Symbol.for('actionbook.aimed');
  const REPORTED = Symbol.for('actionbook.reported');
  const el = this;
  // A frame element's pointer input goes to the document inside it, which this one never sees.
  const owner = ['iframe', 'frame', 'object', 'embed'].includes(String(el.localName));
  const doc = el && el.ownerDocument;
  const win = doc && doc.defaultView;
  if (!win) return { status: 'notconnected' };
  // The closed shadow roots holding the element, innermost first. From outside, page script
  // cannot see into them (`shadowRoot` is null, events are retargeted to their hosts); from the
  // element this script can, so hit tests and focus look through them and listeners sit inside.
  const closed = [];
  for (let r = el.getRootNode(), i = 0; r && r.host && i < 64; r = r.host.getRootNode(), i++) {
    if (r.mode === 'closed') closed.push(r);
  }
  const shadowOf = (e) => e.shadowRoot || closed.find((r) => r.host === e) || null;
  // The window's event counts and time origin, guarded: a page may replace `performance` (a
  // throwing getter, a stub), which must not fail the probe.
  const eventCounts = (w) => {
    try { const c = w.performance.eventCounts; return c && typeof c.get === 'function' ? c : undefined; } catch (e) { return undefined; }
  };
  const timeOrigin = (w) => { try { return String(w.performance.timeOrigin); } catch (e) { return ''; } };

  const describe = (n) => {
    if (!n) return 'nothing';
    if (n.nodeType !== 1) return String(n.nodeName || 'node').toLowerCase();
    let d = String(n.localName || n.nodeName).toLowerCase();
    if (n.id) d += '#' + n.id;
    const cls = n.getAttribute('class') || '';
    for (const c of cls.split(/\s+/).filter(Boolean).slice(0, 3)) d += '.' + c;
    let t = String(n.innerText || n.textContent || '').replace(/\s+/g, ' ').trim();
    if (t.length > 40) t = t.slice(0, 39) + '\u2026';
    return t ? d + " '" + t + "'" : d;
  };
  // The element a pointer at (x, y) of this document hits, through open shadow roots and the
  // closed ones holding the element.
  const deepHit = (d, x, y) => {
    let e = d.elementFromPoint(x, y);
    for (let i = 0; e && shadowOf(e) && i < 32; i++) {
      const inner = shadowOf(e).elementFromPoint(x, y);
      if (!inner || inner === e) break;
      e = inner;
    }
    return e;
  };
  const within = (outer, n) => {
    for (let i = 0; n && i < 4096; i++) {
      if (n === outer) return true;
      n = n.parentNode || n.host;
    }
    return false;
  };
  // `tag#id` (or `tag.class`, its first): an element named compactly.
  const tagOf = (n) => {
    let d = String(n.localName || n.nodeName).toLowerCase();
    const cls = (n.getAttribute('class') || '').split(/\s+/).filter(Boolean);
    if (n.id) d += '#' + n.id; else if (cls.length) d += '.' + cls[0];
    return d;
  };
  // A form field named compactly: `input#email`, else `input[name=qty]`, else (an input)
  // `input[type=email]`, else as `tagOf`.
  const fieldOf = (n) => {
    if (!n || n.nodeType !== 1) return describe(n);
    const tag = String(n.localName || n.nodeName).toLowerCase();
    if (n.id) return tag + '#' + n.id;
    const by = (k) => {
      const v = n.getAttribute(k);
      if (!v) return '';
      return tag + '[' + k + '=' + (/^[\w-]+$/.test(v) ? v : '"' + v.replace(/["\\]/g, '\\$&') + '"') + ']';
    };
    return by('name') || (tag === 'input' && by('type')) || tagOf(n);
  };
  // A dialog as an error names it: `dialog#confirm 'Delete the file?'`, from its accessible name
  // (aria-label, aria-labelledby) or else its first heading or its first text.
  const dialogName = (d) => {
    let name = d.getAttribute('aria-label') || '';
    const root = d.getRootNode();
    for (const id of (name.trim() ? [] : (d.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean))) {
      const l = root.getElementById ? root.getElementById(id) : null;
      if (l) name += ' ' + l.textContent;
    }
    if (!name.trim()) {
      const h = d.querySelector('h1, h2, h3, h4, h5, h6, [role=heading]');
      name = h ? h.textContent : d.textContent;
    }
    name = String(name || '').replace(/\s+/g, ' ').trim();
    if (name.length > 40) name = name.slice(0, 39) + '\u2026';
    return name ? tagOf(d) + " '" + name + "'" : tagOf(d);
  };
  const isModal = (n) => { try { return n.localName === 'dialog' && n.matches(':modal'); } catch (e) { return false; } };
  // Why no pointer reaches `t`, whatever the wait: it is inert, under an element with the
  // `inert` attribute, or outside the open modal dialog (everything else of its document is
  // inert). `h` is what a hit test found in its place: the modal dialog (its backdrop covers the
  // page), or the root when the backdrop lets the pointer through (then the dialog is looked
  // for). Answers a failure, or null.
  const blocked = (t, h) => {
    for (let n = t, i = 0; n && i < 4096; i++) {
      if (n.nodeType === 1 && n.hasAttribute('inert')) return { fail: 'inert', by: tagOf(n) };
      n = n.assignedSlot || n.parentNode || n.host;
    }
    const d = t.ownerDocument;
    let modal = null;
    for (let n = h, i = 0; n && !modal && i < 4096; i++) {
      if (isModal(n)) modal = n;
      n = n.parentNode || n.host;
    }
    if (!modal && (!h || h === d.documentElement)) {
      try { modal = d.querySelector('dialog:modal'); } catch (e) { modal = null; }
    }
    return modal && !within(modal, t) ? { fail: 'modal', by: dialogName(modal) } : null;
  };
  // Whether the element is an <option> of a drop-down <select> (not a list box) that has no box:
  // the list is closed, the browser draws it only while open, so no pointer reaches the option.
  const closedOption = () => {
    if (el.localName !== 'option' || box(el)) return false;
    const s = el.closest('select');
    return !!s && !s.multiple && !(s.size > 1) && Array.prototype.includes.call(s.options, el);
  };
  // A node the page put in the element's place: a re-render (a framework swapping a hovered
  // button for a fresh copy) took the element out of the document, and `n`, in it, is of the
  // same kind and matches the CSS selector that named the element (`css`, when it was one), is
  // an equal copy, or has its id. Input it gets is the element's: the user aimed at what is there.
  const replacement = (n, css) => {
    if (el.isConnected || !n || n.nodeType !== 1 || !n.isConnected || n.localName !== el.localName) return false;
    if (css) {
      try { if (n.matches(css)) return true; } catch (e) { /* not plain CSS */ }
    }
    return n.isEqualNode(el) || (!!el.id && n.id === el.id);
  };
  // The element or its replacement that holds `n` (itself included), or null.
  const holder = (n, css) => {
    for (let i = 0; n && i < 4096; i++) {
      if (n === el || replacement(n, css)) return n;
      n = n.parentNode || n.host;
    }
    return null;
  };
  const viewport = (w) => {
    const v = w.visualViewport;
    return v ? [v.width, v.height] : [w.innerWidth, w.innerHeight];
  };
  const box = (e) => {
    for (const r of e.getClientRects()) if (r.width > 0 && r.height > 0) return r;
    return null;
  };
  // The centre of the part of `r` inside the viewport of `w`.
  const pointIn = (r, w) => {
    const [vw, vh] = viewport(w);
    const l = Math.max(r.left, 0), t = Math.max(r.top, 0);
    const rr = Math.min(r.right, vw), b = Math.min(r.bottom, vh);
    if (rr - l < 1 || b - t < 1) return null;
    return [(l + rr) / 2, (t + b) / 2];
  };
  // Where the content of a frame element starts in its own document's viewport.
  const origin = (fe) => {
    const r = fe.getBoundingClientRect();
    const cs = fe.ownerDocument.defaultView.getComputedStyle(fe);
    return [r.left + fe.clientLeft + (parseFloat(cs.paddingLeft) || 0),
      r.top + fe.clientTop + (parseFloat(cs.paddingTop) || 0)];
  };
  // Whether the content of frame element `fe` is drawn other than shifted from its layout box:
  // a transform (scale, rotation, skew, 3D), a motion path or a zoom on it or on an ancestor in
  // its document (the flat tree). `origin` only shifts; such a frame is crossed through its
  // content quad instead, which the engine asks the browser for (`up` with `quad`).
  const plainMatrix = (t) => {
    if (!t || t === 'none') return true;
    const m = /^matrix(3d)?\(([^)]*)\)$/.exec(t);
    if (!m) return false;
    const v = m[2].split(',').map(Number);
    // Identity but for the x and y translation (matrix: e, f; matrix3d: m41, m42).
    const id = m[1] ? [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, null, null, 0, 1] : [1, 0, 0, 1, null, null];
    return v.length === id.length && id.every((x, i) => x === null || Math.abs(v[i] - x) < 1e-9);
  };
  const warped = (fe) => {
    const w = fe.ownerDocument.defaultView;
    for (let n = fe, i = 0; n && i < 4096; i++) {
      if (n.nodeType === 1) {
        const cs = w.getComputedStyle(n);
        if (!plainMatrix(cs.transform) || (cs.scale && cs.scale !== 'none')
          || (cs.rotate && cs.rotate !== 'none') || (cs.offsetPath && cs.offsetPath !== 'none')
          || (cs.zoom && cs.zoom !== '1')) return true;
      }
      n = n.assignedSlot || n.parentElement || (n.parentNode && n.parentNode.host) || null;
    }
    return false;
  };
  // A point of the viewport of the frame `fe` owns, in `fe`'s document: through `quad`, the
  // content box's corners in that document's viewport (clockwise from the top left), the frame's
  // viewport being the content box as laid out (an affine map: scale, rotation, skew, zoom).
  const throughQuad = (fe, quad, x, y) => {
    const cs = fe.ownerDocument.defaultView.getComputedStyle(fe);
    const w = fe.clientWidth - (parseFloat(cs.paddingLeft) || 0) - (parseFloat(cs.paddingRight) || 0);
    const h = fe.clientHeight - (parseFloat(cs.paddingTop) || 0) - (parseFloat(cs.paddingBottom) || 0);
    if (!(w > 0 && h > 0) || !Array.isArray(quad) || quad.length !== 8) return null;
    const s = x / w, t = y / h;
    return [quad[0] + s * (quad[2] - quad[0]) + t * (quad[6] - quad[0]),
      quad[1] + s * (quad[3] - quad[1]) + t * (quad[7] - quad[1])];
  };
  const inside = (w, x, y) => {
    const [vw, vh] = viewport(w);
    return x >= 0 && y >= 0 && x < vw && y < vh;
  };
  // From a point of window `w` up through every frame reachable from script: translated into
  // each parent, which must show the frame element at that point.
  const climb = (w, x, y, hit) => {
    let levels = 0;
    for (let i = 0; i < 64; i++) {
      let top = false;
      try { top = w === w.top; } catch (e) { top = false; }
      if (top) return { x, y, levels, top: true };
      let fe = null;
      try { fe = w.frameElement; } catch (e) { fe = null; }
      // A transformed frame is crossed by the engine, through its content quad (see `up`).
      if (!fe || warped(fe)) return { x, y, levels, top: false };
      const [ox, oy] = origin(fe);
      x += ox; y += oy;
      const pw = fe.ownerDocument.defaultView;
      if (!inside(pw, x, y)) return { fail: 'outside' };
      if (hit) {
        const h = deepHit(fe.ownerDocument, x, y);
        if (h !== fe) return blocked(fe, h) || { fail: 'covered', by: describe(h) };
      }
      w = pw;
      levels++;
    }
    return { fail: 'outside' };
  };
  const settle = (n) => new Promise((resolve) => {
    // A hidden or throttled frame may never run animation frames: never wait long.
    const timer = setTimeout(resolve, 100 * n);
    const step = (k) => (k ? requestAnimationFrame(() => step(k - 1)) : (clearTimeout(timer), resolve()));
    step(n);
  });
  const visible = (e) => {
    if (e.checkVisibility && !e.checkVisibility({ visibilityProperty: true })) return false;
    return !!box(e);
  };
  // Fallback content of a <canvas> is in the accessibility tree (focusable, operable by keyboard)
  // but never laid out: the canvas is drawn in its place, so no pointer can reach it.
  const inCanvas = (e) => {
    for (let p = e.parentNode; p; p = p.parentNode || p.host) if (p.localName === 'canvas') return true;
    return false;
  };
  const disabled = (e) => {
    try { if (e.matches(':disabled')) return true; } catch (x) { /* not an element */ }
    return e.getAttribute('aria-disabled') === 'true';
  };
  // The action point in this frame and in the topmost frame reached, with the hit tests.
  const measure = (checks, at, t = el) => {
    let p = at;
    if (!p) {
      const r = box(t);
      if (!r) return { fail: inCanvas(t) ? 'fallback' : 'notvisible' };
      p = pointIn(r, win);
      if (!p) return { fail: 'outside' };
    } else if (!inside(win, p[0], p[1])) {
      return { fail: 'outside' };
    }
    let clipped = false;
    if (checks.hit) {
      const h = deepHit(doc, p[0], p[1]);
      if (!h || !within(t, h)) return blocked(t, h) || { fail: 'covered', by: describe(h) };
    } else if (!at) {
      // Unchecked (forced), a point the element is not painted at, whatever covers it: a
      // scrolled or overflow-clipping ancestor hides it there. Scrolling it into view (which
      // scrolls such ancestors too) is positioning, not a check.
      const root = t.getRootNode();
      const all = (root.elementsFromPoint ? root : doc).elementsFromPoint(p[0], p[1]);
      clipped = !all.some((h) => within(t, h));
      // Unchecked too: input sent to an inert element goes to what is behind it.
      const b = blocked(t, null);
      if (b) return b;
    }
    const up = climb(win, p[0], p[1], checks.hit);
    if (up.fail) return up;
    return { local: p, up, clipped };
  };
  // Whether a running animation (CSS animation or transition, Web Animation) moves the element
  // or one of its ancestors.
  const animating = () => {
    if (!doc.getAnimations) return false;
    for (const a of doc.getAnimations()) {
      const t = a.playState === 'running' && a.effect && a.effect.target;
      if (t && within(t, el)) return true;
    }
    return false;
  };
  // After the input's own task, and a 0 ms timer (not waited for in a hidden page, whose timers
  // are throttled): a navigation the input scheduled has started by then.
  const barrier = async () => {
    await new Promise((r) => { const c = new MessageChannel(); c.port1.onmessage = () => r(); c.port2.postMessage(0); });
    if (doc.visibilityState === 'visible') await new Promise((r) => setTimeout(r, 0));
  };
  // The top page (a quick aim has reached it through same-origin frames).
  const topWin = () => { try { return win.top.document ? win.top : win; } catch (e) { return win; } };
  // The deepest focused element of the top page (through open shadow roots and same-origin
  // frames), as DEEP_ACTIVE_JS of locate.rs finds it.
  const deepActive = () => {
    let a = topWin().document.activeElement;
    for (let i = 0; i < 64 && a; i++) {
      const sr = shadowOf(a);
      if (sr && sr.activeElement) { a = sr.activeElement; continue; }
      let d = null; try { d = a.contentDocument; } catch (e) { d = null; }
      if (d && d.activeElement) { a = d.activeElement; continue; }
      break;
    }
    return a;
  };
  // The events of each type dispatched in this document since the probe listened, and whether
  // the element (or something inside it) has this document's focus now. For a pointer probe
  // that saw no press though one was dispatched here (the page stopped it before the probe's
  // listener), what is at its point now (`hit`): the press was this element's if it still is.
  const counted = (probe) => {
    const counts = eventCounts(win);
    if (!probe.counted || !counts) return undefined;
    let a = doc.activeElement;
    for (let i = 0; i < 64 && a && shadowOf(a) && shadowOf(a).activeElement; i++) a = shadowOf(a).activeElement;
    const events = probe.events.map((t, i) => [t, (counts.get(t) || 0) - probe.counted[i]]);
    let hit;
    const down = (t) => t === 'pointerdown' || t === 'mousedown';
    if (probe.local && !probe.seen.some((s) => down(s[0])) && events.some(([t, n]) => down(t) && n > 0)) {
      const h = deepHit(doc, probe.local[0], probe.local[1]);
      hit = h && holder(h, probe.css) ? { on: true } : { on: false, by: describe(h) };
    }
    return { events, focused: !!a && within(el, a), hit };
  };
  // What the input did, for after() and for the report.
  const outcome = (probe, seen) => {
    const tw = topWin();
    return {
      status: 'ok', seen, url: String(tw.location.href), title: String(tw.document.title),
      focusChanged: deepActive() !== probe.focusBefore, token: probe.token, owner,
      counted: counted(probe), unsubmitted: probe.unsubmitted || undefined,
    };
  };
  // What the default action of a click on this path may do, from the nearest element that has
  // one: 'navigate' (a link), 'submit' (a submit button of a form), 'toggle' (a checkbox or radio,
  // whose change event follows the click, or a label passing the click on), 'unknown' (the click
  // landed in a custom element whose shadow root is closed to this script: a link may be inside),
  // or '' (nothing that can start a navigation).
  const activation = (path) => {
    const first = path[0];
    if (first && first.nodeType === 1 && String(first.localName).includes('-') && !first.shadowRoot
      && win.customElements && win.customElements.get(first.localName)) return 'unknown';
    for (const n of path) {
      if (!n || n.nodeType !== 1) continue;
      const tag = String(n.localName || '').toLowerCase();
      if ((tag === 'a' || tag === 'area') && n.hasAttribute('href')) return 'navigate';
      if (tag === 'button') return (n.type === 'submit' && n.form) ? 'submit' : '';
      if (tag === 'input') {
        const type = String(n.type || '').toLowerCase();
        if (type === 'submit' || type === 'image') return n.form ? 'submit' : '';
        return (type === 'checkbox' || type === 'radio') ? 'toggle' : '';
      }
      if (tag === 'label') return 'toggle';
    }
    return '';
  };
  // The events of a press. With `guard`, one that reaches another element than the one aimed at
  // (the pointer's arrival moved or covered it) is stopped here, before the page's own listeners
  // below the window and before its default action: the press did nothing, and can be made
  // again once the element is reachable (as Playwright's hit target interceptor does).
  const PRESS = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'auxclick', 'dblclick', 'contextmenu'];
  // The events that may start a form submission (a click, Enter) or end Enter's chance to.
  const ARMS = ['click', 'keydown', 'keyup'];
  const listen = (events, expire, report, css, guard) => {
    const old = el[KEY];
    if (old) old.stop();
    delete el[REPORTED];
    const seen = [];
    let ups = 0;
    // With `guard`: whether the press went down on another element (null until it went down).
    let blocking = null;
    // The last mouseup was handled (`armed`); its click's default action will submit a form
    // unless a submit handler prevents it (`submitting`).
    let armed = false, submitting = false;
    const send = () => {
      if (el[KEY] !== probe) return;
      const out = outcome(probe, probe.stop(true));
      // Kept for after(), should the binding not carry it (the page replaced the function).
      Object.defineProperty(el, REPORTED, { value: out, configurable: true, writable: true });
      try { win[report.name](JSON.stringify(out)); } catch (x) { /* after() answers */ }
    };
    // Where each event was written down, and its path as seen inside the element's closed roots.
    const marks = new WeakMap();
    const paths = new WeakMap();
    const on = (e) => {
      if (!e.isTrusted) return;
      const path = e.composedPath();
      marks.set(e, seen.length);
      const mine = path.includes(el) || path.some((n) => replacement(n, css));
      // The press is judged by where it went down: the events it then causes elsewhere (a
      // label's click passed on to its control) are the element's doing.
      if (guard && blocking === null && (e.type === 'pointerdown' || e.type === 'mousedown')) blocking = !mine;
      if (mine) seen.push([e.type, 1]);
      else {
        const stopped = !!blocking && PRESS.includes(e.type);
        if (stopped) { e.preventDefault(); e.stopImmediatePropagation(); }
        seen.push([e.type, 0, describe(path[0] && path[0].nodeType === 1 ? path[0] : e.target), stopped ? 1 : 0]);
      }
      if (report && e.type === 'mouseup' && ++ups === report.ups) {
        armed = report.ups === 1 && e.button === 0;
        barrier().then(send);
      }
    };
    // The click's handlers ran (this listener bubbles on the window, registered after the page's
    // own): a navigation they started or scheduled has been announced to the engine before this
    // report (the renderer sends both in order). What the default action does comes after it: a
    // link's navigation and a change event are left to the barrier; a form submission is waited
    // for here, and reported at once if its handlers prevent it.
    const settled = (e) => {
      if (!armed || !e.isTrusted) return;
      armed = false;
      const next = e.defaultPrevented ? '' : activation(paths.get(e) || e.composedPath());
      if (next === 'submit') submitting = true;
      else if (next === '') send();
    };
    const submitted = (e) => {
      if (submitting && e.defaultPrevented) send();
      submitting = false;
    };
    // Inside the innermost closed root (after the window's capture listener): an event seen at
    // the window as its host's is the element's when its path there holds it; one that does not
    // leave the root (not composed) is seen there only.
    const inner = closed[0];
    const innerTypes = report ? [...new Set([...events, 'click'])] : events;
    const onInner = (e) => {
      if (!e.isTrusted) return;
      const path = e.composedPath();
      paths.set(e, path);
      if (!events.includes(e.type) || !(path.includes(el) || path.some((n) => replacement(n, css)))) return;
      const i = marks.get(e);
      if (i === undefined) seen.push([e.type, 1]);
      else seen[i] = [e.type, 1];
    };
    // A form submission the browser's interactive validation stopped (`probe.unsubmitted`): the
    // `invalid` events a click's or an Enter's default action fires at the form's bad fields, in
    // place of `submit`. They do not bubble, so they are caught in capture on the window (and
    // on the element's shadow root: they do not leave it). Only those fired once the trigger's
    // dispatch is over (a page handler's checkValidity() during it is the page's doing), the
    // trigger not cancelled, and for a click, one whose default action submits (not a click into
    // a field, nor a checkbox whose change handler validates); a `submit` ends the watch.
    let trigger = null;
    const arm = (e) => {
      if (!e.isTrusted) return;
      if (e.type === 'keyup') {
        // Enter submits in its keypress, before its keyup.
        if (trigger && trigger.e.type === 'keydown') trigger = null;
        return;
      }
      if (e.type === 'keydown' && e.key !== 'Enter') return;
      trigger = { e, path: e.composedPath() };
      probe.unsubmitted = null;
    };
    const invalid = (e) => {
      const t = trigger;
      if (!e.isTrusted || !t || t.e.eventPhase !== 0 || t.e.defaultPrevented) return;
      if (t.e.type === 'click' && activation(paths.get(t.e) || t.path) !== 'submit') return;
      const u = probe.unsubmitted;
      if (u) { u.count++; return; }
      const f = e.composedPath()[0] || e.target;
      let message = '';
      try { message = String(f.validationMessage || '').replace(/\s+/g, ' ').trim(); } catch (x) { message = ''; }
      if (message.length > 160) message = message.slice(0, 159) + '\u2026';
      probe.unsubmitted = { field: fieldOf(f), message, count: 1 };
    };
    const formSent = (e) => {
      if (e.isTrusted) { trigger = null; probe.unsubmitted = null; }
    };
    const root = el.getRootNode();
    const formRoots = root && root !== doc && root.host ? [win, root] : [win];
    for (const t of events) win.addEventListener(t, on, true);
    if (inner) for (const t of innerTypes) inner.addEventListener(t, onInner, true);
    for (const t of ARMS) win.addEventListener(t, arm, true);
    for (const r of formRoots) {
      r.addEventListener('invalid', invalid, true);
      r.addEventListener('submit', formSent, true);
    }
    if (report) {
      win.addEventListener('click', settled, false);
      win.addEventListener('submit', submitted, false);
    }
    const probe = {
      seen,
      events,
      css,
      token: report ? report.token : undefined,
      // The form the input's default action tried to submit, as its validation stopped it:
      // {field, message, count} (see `invalid`).
      unsubmitted: null,
      stop(keepAimed) {
        for (const t of events) win.removeEventListener(t, on, true);
        if (inner) for (const t of innerTypes) inner.removeEventListener(t, onInner, true);
        for (const t of ARMS) win.removeEventListener(t, arm, true);
        for (const r of formRoots) {
          r.removeEventListener('invalid', invalid, true);
          r.removeEventListener('submit', formSent, true);
        }
        win.removeEventListener('click', settled, false);
        win.removeEventListener('submit', submitted, false);
        clearTimeout(timer);
        if (el[KEY] === probe) delete el[KEY];
        if (!keepAimed && win[AIMED] === el) delete win[AIMED];
        return seen;
      },
    };
    const timer = setTimeout(() => probe.stop(), expire || 60000);
    const counts = eventCounts(win);
    if (counts) probe.counted = events.map((t) => counts.get(t) || 0);
    Object.defineProperty(el, KEY, { value: probe, configurable: true, writable: true });
    return probe;
  };

  if (op === 'aim') {
    if (!el.isConnected) return { status: 'notconnected' };
    if (closedOption()) return { status: 'option' };
    const checks = arg.checks;
    if (checks.visible && !visible(el)) return { status: inCanvas(el) ? 'fallback' : 'notvisible' };
    if (checks.enabled && disabled(el)) {
      // Disabled and behind a modal dialog (or inert): the dialog is what to say, since
      // waiting for the element to be enabled would not make it reachable.
      const b = blocked(el, null);
      return b ? { status: b.fail, by: b.by } : { status: 'disabled' };
    }
    let m = measure(checks, arg.at);
    let scrolled = false;
    if ((m.fail === 'outside' || m.fail === 'covered' || m.clipped || arg.scroll === 'always') && !arg.at && arg.scroll !== 'never') {
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      scrolled = true;
      // The browser routes input between frames by what the compositor last showed: let it
      // show the scrolled page before anything is sent there.
      await settle(2);
      m = measure(checks, arg.at);
    }
    if (m.fail) return { status: m.fail, by: m.by, scrolled };
    if (arg.quick && !scrolled && animating()) return { status: 'animating' };
    const probe = listen(arg.events, arg.expire, arg.quick ? arg.report : undefined, arg.css || undefined, !!arg.guard);
    probe.checks = checks;
    probe.at = arg.at;
    probe.time = doc.timeline ? doc.timeline.currentTime : null;
    probe.local = m.local;
    probe.up = m.up;
    let before;
    if (arg.quick) {
      const a = deepActive();
      const tw = topWin();
      probe.focusBefore = a;
      Object.defineProperty(win, AIMED, { value: el, configurable: true, writable: true });
      before = {
        url: String(tw.location.href), title: String(tw.document.title),
        idle: !a || a === tw.document.body, document: timeOrigin(tw),
        visible: tw.document.visibilityState === 'visible',
      };
    }
    return { status: 'ok', x: m.up.x, y: m.up.y, top: m.up.top, levels: m.up.levels, scrolled, before };
  }
  if (op === 'check') {
    const probe = el[KEY];
    if (!probe) return { status: 'lost' };
    // Replaced since the aim (a re-render on hover): what took its place at the point is checked.
    const t = el.isConnected ? el : holder(deepHit(doc, probe.local[0], probe.local[1]), probe.css);
    if (!t) return { status: 'notconnected' };
    // An animated element moves with the document's timeline: compared after too little of it
    // (under load the move is handled right after the aim, 0.03 ms of page time later: seen), it
    // looks still. Wait for frames until a frame's worth has passed (each wait bounded: a
    // loaded machine may take long to draw); not seen in time, it cannot be told still.
    const elapsed = () => (doc.timeline && probe.time !== null ? doc.timeline.currentTime - probe.time : Infinity);
    if (elapsed() < 16 && animating()) {
      for (let i = 0; i < 3 && elapsed() < 16; i++) {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, 1000);
          requestAnimationFrame(() => { clearTimeout(timer); resolve(); });
        });
      }
      if (elapsed() < 16) return { status: 'moving' };
    }
    const m = measure(probe.checks, probe.at, t);
    if (m.fail) return { status: m.fail, by: m.by };
    const moved = Math.abs(m.local[0] - probe.local[0]) > 0.5 || Math.abs(m.local[1] - probe.local[1]) > 0.5
      || Math.abs(m.up.x - probe.up.x) > 0.5 || Math.abs(m.up.y - probe.up.y) > 0.5;
    if (moved) return { status: 'moving' };
    const moves = probe.seen.filter((s) => /^(pointer|mouse)(move|over)$/.test(s[0]));
    const astray = moves.find((s) => !s[1]);
    // With no move gone astray in this document, a frame element's move went inside it. With
    // no move seen at all, the page may have stopped them before the probe's listener: the
    // browser's own hover state says where the move went, if the element is still at the point
    // (a move that went to another frame leaves it unhovered).
    const stopped = () => {
      if (!t.matches(':hover')) return false;
      const h = deepHit(doc, m.local[0], m.local[1]);
      return !!h && within(t, h);
    };
    return {
      status: 'ok', x: m.up.x, y: m.up.y, top: m.up.top, levels: m.up.levels,
      hovered: moves.some((s) => s[1]) || (owner && !astray) || (!moves.length && stopped()),
      by: astray ? astray[2] : undefined,
    };
  }
  if (op === 'up') {
    if (!el.isConnected) return { status: 'notconnected' };
    if (arg.settle) await settle(2);
    let x, y;
    if (arg.quad) {
      const p = throughQuad(el, arg.quad, arg.x, arg.y);
      if (!p) return { status: 'outside' };
      [x, y] = p;
    } else if (warped(el)) {
      // The engine asks the browser for the content quad and calls again with it; this
      // document's viewport size maps a quad it can only get in an ancestor's viewport.
      return { status: 'warped', vw: win.innerWidth, vh: win.innerHeight };
    } else {
      const [ox, oy] = origin(el);
      x = arg.x + ox; y = arg.y + oy;
    }
    if (!inside(win, x, y)) return { status: 'outside' };
    if (arg.hit) {
      const h = deepHit(doc, x, y);
      if (h !== el) {
        const b = blocked(el, h);
        return b ? { status: b.fail, by: b.by } : { status: 'covered', by: describe(h) };
      }
    }
    const up = climb(win, x, y, arg.hit);
    if (up.fail) return { status: up.fail, by: up.by };
    return { status: 'ok', x: up.x, y: up.y, top: up.top, levels: up.levels };
  }
  if (op === 'listen') {
    listen(arg.events, arg.expire);
    return { status: 'ok' };
  }
  if (op === 'peek') {
    const probe = el[KEY];
    return probe
      ? { status: 'ok', seen: probe.seen.slice(), owner, counted: counted(probe), unsubmitted: probe.unsubmitted || undefined }
      : { status: 'lost' };
  }
  if (op === 'finish') {
    const probe = el[KEY];
    if (!probe) return { status: 'lost' };
    const seen = probe.stop();
    return { status: 'ok', seen, owner, counted: counted(probe), unsubmitted: probe.unsubmitted || undefined };
  }
  if (op === 'after') {
    // A navigation the input scheduled as a task (a form submitted by Enter) has started after
    // one task of the page; one a handler starts from a 0 ms timer, after one such timer.
    await barrier();
    const probe = el[KEY];
    if (!probe) {
      const done = el[REPORTED];
      delete el[REPORTED];
      if (win[AIMED] === el) delete win[AIMED];
      return done || { status: 'lost' };
    }
    return outcome(probe, probe.stop());
  }
  return { status: 'unknown op' };
}
