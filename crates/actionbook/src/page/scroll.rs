//! Scrolling: the page (its scrolling element, or the pane a wheel would scroll when the page
//! cannot move) or a container, by a distance, to an edge, or an element into view; each waits
//! until the compositor shows the result (two animation frames), so input sent next is routed by
//! what is on screen.

use serde::Deserialize;
use serde_json::{Value, json};

use cdp_protocol::{Session, runtime};

use crate::deadline::{self, Deadline};
use crate::error::{CliError, Result};
use crate::page::eval::ObjectHandle;
use crate::page::locate::Located;

/// Runs on the scroller (`this`): the page's scrolling element or a container. With `auto` (no
/// container given) and a page that did not move, scrolls what a wheel at the viewport's centre
/// would instead (see [`Pane`]); in the same call, so the plain page case costs no round trip more.
const SCROLL_JS: &str = r#"async function(op, a, auto) {
  const doc = this.ownerDocument || this;
  const win = doc.defaultView;
  const page = this === doc.scrollingElement || this === doc.documentElement || this === doc.body;
  const pos = () => page ? [win.scrollX, win.scrollY] : [this.scrollLeft, this.scrollTop];
  const before = pos();
  const to = (o) => page ? win.scrollTo(Object.assign({ behavior: 'instant' }, o)) : this.scrollTo(Object.assign({ behavior: 'instant' }, o));
  const el = page ? (doc.scrollingElement || doc.documentElement) : this;
  const vertical = op !== 'by' || a.dy !== 0;
  // A page whose viewport clips its overflow (`overflow: hidden` on <html>, or on <body> when
  // <html> leaves it visible: what a site sets while a modal or drawer is open) is one no wheel
  // or user scrolls; a script still could, which moved the page under the modal instead of the
  // modal's content.
  const clipped = (() => {
    if (!auto || !page) return false;
    const of = (n) => n ? win.getComputedStyle(n)[vertical ? 'overflowY' : 'overflowX'] : 'visible';
    const root = of(doc.documentElement);
    const v = root !== 'visible' ? root : of(doc.body);
    return v === 'hidden' || v === 'clip';
  })();
  if (clipped) {
    // Left to the pane below.
  } else if (op === 'by') {
    const o = { left: a.dx, top: a.dy, behavior: 'instant' };
    if (page) win.scrollBy(o); else this.scrollBy(o);
  } else if (op === 'top') {
    to({ top: 0, left: 0 });
  } else if (op === 'bottom') {
    to({ top: el.scrollHeight });
  }
  // Instant scrolls update the offsets synchronously: a page that did not move is known here.
  const still = (p) => p[0] === before[0] && p[1] === before[1];
  let pane = null;
  if (auto && page && still(pos()) && !(op === 'by' && !a.dx && !a.dy)) {
    const sign = op === 'top' ? -1 : op === 'bottom' ? 1 : Math.sign(vertical ? a.dy : a.dx);
    // Scrollable in the axis and not yet at its edge in the asked direction (RTL: scrollLeft
    // runs from -max to 0).
    const can = (n) => {
      if (n.nodeType !== 1 || n === el) return false;
      const st = win.getComputedStyle(n);
      const ov = vertical ? st.overflowY : st.overflowX;
      if (ov !== 'auto' && ov !== 'scroll' && ov !== 'overlay') return false;
      const max = vertical ? n.scrollHeight - n.clientHeight : n.scrollWidth - n.clientWidth;
      if (max <= 0) return false;
      const at = vertical ? n.scrollTop : n.scrollLeft;
      const lo = !vertical && st.direction === 'rtl' ? -max : 0;
      return sign < 0 ? at > lo + 0.5 : at < lo + max - 0.5;
    };
    // Scrolls n; its offsets before when it moved (the checks above can be wrong: a body whose
    // overflow went to the viewport is no scroller), else null.
    const move = (n) => {
      const p = [n.scrollLeft, n.scrollTop];
      if (op === 'by') n.scrollBy({ left: a.dx, top: a.dy, behavior: 'instant' });
      else if (op === 'top') n.scrollTo({ top: 0, left: 0, behavior: 'instant' });
      else n.scrollTo({ top: n.scrollHeight, behavior: 'instant' });
      return n.scrollLeft !== p[0] || n.scrollTop !== p[1] ? p : null;
    };
    // Up the flat tree: a slotted element's slot, a shadow root's host.
    const up = (n) => n.assignedSlot || n.parentElement || (n.parentNode && n.parentNode.host) || null;
    const x = win.innerWidth / 2, y = win.innerHeight / 2;
    let hit = doc.elementFromPoint(x, y);
    for (let i = 0; hit && hit.shadowRoot && i < 64; i++) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    // An iframe at the centre is not entered: its document is another scroller, often in
    // another process; the walk goes on from the iframe element in this document.
    for (let n = hit, i = 0; n && i < 10000 && !pane; n = up(n), i++) {
      if (!can(n)) continue;
      const p = move(n);
      if (p) pane = { n, p, centre: true };
    }
    if (!pane) {
      const vw = win.innerWidth, vh = win.innerHeight, found = [];
      const visible = (n) => {
        const r = n.getBoundingClientRect();
        const w = Math.min(r.right, vw) - Math.max(r.left, 0), h = Math.min(r.bottom, vh) - Math.max(r.top, 0);
        return w > 0 && h > 0 && (!n.checkVisibility || n.checkVisibility({ visibilityProperty: true })) ? w * h : 0;
      };
      const collect = (root) => {
        for (const n of root.querySelectorAll('*')) {
          // The cheap layout read first: most elements do not overflow.
          if (vertical ? n.scrollHeight > n.clientHeight : n.scrollWidth > n.clientWidth) {
            const area = visible(n);
            if (area > 0 && can(n)) found.push([area, n]);
          }
          if (n.shadowRoot) collect(n.shadowRoot);
        }
      };
      collect(doc);
      found.sort((l, r) => r[0] - l[0]);
      for (const [, n] of found) {
        const p = move(n);
        if (p) { pane = { n, p, centre: false }; break; }
      }
    }
  }
  await new Promise((resolve) => {
    const timer = setTimeout(resolve, 200);
    requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(timer); resolve(); }));
  });
  let instead = null;
  // Named only when it is still moved once shown (a page script may have put it back).
  if (pane && (pane.n.scrollLeft !== pane.p[0] || pane.n.scrollTop !== pane.p[1])) {
    const n = pane.n;
    let what = n.localName + (n.id ? '#' + n.id : '') + (n.classList[0] ? '.' + n.classList[0] : '');
    if (what.length > 80) what = what.slice(0, 79) + '\u2026';
    instead = { what, centre: pane.centre };
  }
  return { before, after: pos(), instead };
}"#;

/// Runs on the element (`this`): into view, in every scroller up to the top (or only in
/// `container`), aligned as asked; answers whether anything moved.
const INTO_VIEW_JS: &str = r#"async function(block, container) {
  // Not rendered (display: none, or inside such an element): there is nothing to bring into view.
  if (this.getClientRects().length === 0) return null;
  const key = () => {
    const r = this.getBoundingClientRect();
    const k = [r.left, r.top];
    let w = this.ownerDocument.defaultView;
    for (let i = 0; i < 64 && w; i++) {
      k.push(w.scrollX, w.scrollY);
      let fe = null; try { fe = w.frameElement; } catch (e) { fe = null; }
      if (!fe) break;
      w = fe.ownerDocument.defaultView;
    }
    return k.join();
  };
  const before = key();
  if (container) {
    const c = container.getBoundingClientRect(), r = this.getBoundingClientRect();
    const off = (start, size, cstart, csize) => block === 'start' ? start - cstart
      : block === 'end' ? start + size - (cstart + csize)
      : block === 'center' ? start + size / 2 - (cstart + csize / 2)
      : (start < cstart ? start - cstart : start + size > cstart + csize ? start + size - (cstart + csize) : 0);
    container.scrollBy({ left: off(r.left, r.width, c.left, c.width), top: off(r.top, r.height, c.top, c.height), behavior: 'instant' });
  } else {
    this.scrollIntoView({ block, inline: 'nearest', behavior: 'instant' });
  }
  await new Promise((resolve) => {
    const timer = setTimeout(resolve, 200);
    requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(timer); resolve(); }));
  });
  return key() !== before;
}"#;

/// How to scroll.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Motion {
    /// By `(dx, dy)` CSS pixels.
    By(f64, f64),
    /// To the top (and the left edge).
    Top,
    /// To the bottom.
    Bottom,
}

#[derive(Debug, Deserialize)]
struct Moved {
    before: [f64; 2],
    after: [f64; 2],
    #[serde(default)]
    instead: Option<Pane>,
}

/// What was scrolled instead of a page that could not move: the first scrollable ancestor of
/// the element at the viewport's centre that could move, else the largest visible scrollable
/// element that could.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct Pane {
    /// Tag, `#id` and first `.class` (`main#feed.list`).
    pub what: String,
    /// Whether it was under the viewport's centre (else the largest in view).
    pub centre: bool,
}

/// What a scroll did.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scrolled {
    /// Whether a scroll position changed.
    pub moved: bool,
    /// The element scrolled because the page could not move (`None`: the page or the container).
    pub instead: Option<Pane>,
}

async fn call<T: serde::de::DeserializeOwned>(
    handle: &ObjectHandle,
    function: &str,
    args: Vec<Value>,
    deadline: &Deadline,
    what: &str,
) -> Result<T> {
    handle
        .call_awaiting(function, args, deadline.capped(deadline::QUICK_CALL), what)
        .await
        .map_err(|e| match e {
            CliError::Cdp(c) => CliError::on_node(c, what),
            other => other,
        })
}

/// The page's scroller: its scrolling element.
async fn page_scroller(page: &Session, deadline: &Deadline) -> Result<ObjectHandle> {
    let r = page
        .send_timeout(
            &runtime::Evaluate {
                expression: "document.scrollingElement || document.documentElement".into(),
                return_by_value: Some(false),
                silent: Some(true),
                ..Default::default()
            },
            deadline.capped(deadline::QUICK_CALL),
        )
        .await?;
    let id = r
        .result
        .object_id
        .ok_or_else(|| CliError::internal("the page has no scrolling element"))?;
    Ok(ObjectHandle::new(page.clone(), id))
}

/// Scrolls the page (or `container`) and answers whether a scroll position changed; without a
/// container, a page that cannot move hands the scroll to the pane a wheel would scroll.
pub(crate) async fn scroll(
    page: &Session,
    container: Option<&Located>,
    motion: Motion,
    deadline: &Deadline,
    what: &str,
) -> Result<Scrolled> {
    let owned;
    let handle = match container {
        Some(c) => &c.handle,
        None => {
            owned = page_scroller(page, deadline).await?;
            &owned
        }
    };
    let (op, arg) = match motion {
        Motion::By(dx, dy) => ("by", json!({ "dx": dx, "dy": dy })),
        Motion::Top => ("top", Value::Null),
        Motion::Bottom => ("bottom", Value::Null),
    };
    let m: Moved = call(
        handle,
        SCROLL_JS,
        vec![
            Value::String(op.into()),
            arg,
            Value::Bool(container.is_none()),
        ],
        deadline,
        what,
    )
    .await?;
    Ok(Scrolled {
        moved: m.before != m.after || m.instead.is_some(),
        instead: m.instead,
    })
}

/// Scrolls `node` into view with `align` (`start`, `center`, `end`, `nearest`), in every scroller
/// up to the top or only in `container` (which must be in the same frame); answers whether
/// anything moved.
pub(crate) async fn into_view(
    node: &Located,
    align: &str,
    container: Option<&Located>,
    deadline: &Deadline,
    what: &str,
) -> Result<bool> {
    let mut args = vec![Value::String(align.into())];
    let r: Option<bool> = match container {
        None => {
            args.push(Value::Null);
            call(&node.handle, INTO_VIEW_JS, args, deadline, what).await?
        }
        Some(c) => {
            if c.frame_id != node.frame_id {
                return Err(CliError::InvalidArgument(format!(
                    "the --container of {what} is in another frame than the element"
                )));
            }
            let r = node
                .session()
                .send_timeout(
                    &runtime::CallFunctionOn {
                        object_id: Some(node.handle.object_id().clone()),
                        function_declaration: INTO_VIEW_JS.into(),
                        arguments: Some(vec![
                            runtime::CallArgument {
                                value: Some(Value::String(align.into())),
                                ..Default::default()
                            },
                            runtime::CallArgument {
                                object_id: Some(c.handle.object_id().clone()),
                                ..Default::default()
                            },
                        ]),
                        return_by_value: Some(true),
                        await_promise: Some(true),
                        silent: Some(true),
                        ..Default::default()
                    },
                    deadline.capped(deadline::QUICK_CALL),
                )
                .await
                .map_err(|e| CliError::on_node(e, what))?;
            match r.result.value {
                Some(Value::Null) => None,
                v => Some(v.and_then(|v| v.as_bool()).unwrap_or(false)),
            }
        }
    };
    r.ok_or_else(|| {
        CliError::InvalidArgument(format!(
            "element {what} is not rendered (display: none, or inside such an element): there \
             is nothing to scroll into view"
        ))
    })
}

/// Without an argument, the scroll offsets of the element and each of its ancestors, through
/// shadow roots and up the same-origin frames (`[[left, top], ...]`); with those offsets, scrolls
/// the same chain back to them (instantly) and returns true (false when the chain changed).
const SCROLLS_JS: &str = r#"function (saved) {
  const chain = [];
  let n = this.nodeType === 1 ? this : this.parentElement;
  for (let i = 0; n && i < 100000; i++) {
    chain.push(n);
    if (n.parentElement) { n = n.parentElement; continue; }
    const root = n.getRootNode();
    if (root && root.host) { n = root.host; continue; }
    let owner = null;
    try { const w = n.ownerDocument && n.ownerDocument.defaultView; owner = w && w.frameElement; } catch (e) { owner = null; }
    n = owner;
  }
  if (!saved) return chain.map(e => [e.scrollLeft, e.scrollTop]);
  if (!Array.isArray(saved) || saved.length !== chain.length) return false;
  chain.forEach((e, i) => {
    const [left, top] = saved[i];
    if (e.scrollLeft !== left || e.scrollTop !== top) e.scrollTo({ left, top, behavior: 'instant' });
  });
  return true;
}"#;

/// Where an element's scroll chain and the top document were, saved before the element is
/// scrolled into view so that a read (an element screenshot) can leave the page as it was.
#[derive(Debug)]
pub(crate) struct ScrollMemo {
    /// The top document's offsets (`None`: could not be read).
    top: Option<(f64, f64)>,
    /// The element's chain's offsets, as [`SCROLLS_JS`] gave them.
    chain: Option<Value>,
}

impl ScrollMemo {
    /// Reads the offsets around `node` and of the top document of `page`.
    pub async fn save(page: &Session, node: &Located, deadline: &Deadline) -> ScrollMemo {
        let t = deadline.capped(deadline::QUICK_CALL);
        let top = async {
            let r = page
                .send_timeout(
                    &runtime::Evaluate {
                        expression: "[window.scrollX, window.scrollY]".into(),
                        return_by_value: Some(true),
                        silent: Some(true),
                        ..Default::default()
                    },
                    t,
                )
                .await
                .ok()?;
            serde_json::from_value::<(f64, f64)>(r.result.value?).ok()
        };
        let chain = async {
            node.handle
                .call(SCROLLS_JS, Vec::new(), t)
                .await
                .ok()
                .filter(|r| r.exception_details.is_none())
                .and_then(|r| r.result.value)
        };
        let (top, chain) = tokio::join!(top, chain);
        ScrollMemo { top, chain }
    }

    /// Scrolls the element's chain (up to the first cross-origin frame) and then the top
    /// document back; what could not be put back, as warnings.
    pub async fn put_back(
        self,
        page: &Session,
        node: &Located,
        deadline: &Deadline,
    ) -> Vec<String> {
        let t = deadline.capped(deadline::QUICK_CALL);
        let mut warnings = Vec::new();
        if let Some(saved) = self.chain {
            let back = node.handle.call(SCROLLS_JS, vec![saved], t).await;
            if !matches!(&back, Ok(r) if r.result.value == Some(Value::Bool(true))) {
                warnings.push(
                    "the scroll position of the element's frame could not be put back".to_string(),
                );
            }
        }
        if let Some((x, y)) = self.top {
            let expression =
                format!("window.scrollTo({{ left: {x}, top: {y}, behavior: 'instant' }})");
            let back = page
                .send_timeout(
                    &runtime::Evaluate {
                        expression,
                        silent: Some(true),
                        ..Default::default()
                    },
                    t,
                )
                .await;
            if let Err(e) = back {
                warnings.push(format!(
                    "the page's scroll position could not be put back: {e}"
                ));
            }
        }
        warnings
    }
}
