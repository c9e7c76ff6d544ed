//! Checkboxes a script made `indeterminate` (the "select all" of a half-selected list): the flag is
//! no attribute, so the DOM snapshot does not carry it, and Chromium's tree calls them
//! `checked: mixed`. Asked of the page only when a captured document has a checkbox: one script
//! per session, and for the ones it finds (rare) a handle walk to their backend ids.
//!
//! The script sees the session's main document, the same-origin documents of its frames and the
//! open shadow roots (walked only when a checkbox sits in one). A same-site, cross-origin iframe
//! in the same process and closed shadow roots are out of its reach: their checkboxes read as the
//! snapshot captured them.

use std::collections::HashSet;
use std::time::Duration;

use cdp_protocol::{RemoteObjectId, Session, dom, runtime};

use crate::doc_view::{Attr, DocView, Tag};

/// The object group of the script's handles, released once their ids are read.
const GROUP: &str = "actionbook-indeterminate";

/// Finds the indeterminate checkboxes of a document and the open shadow roots and same-origin
/// frames inside it; `null` when there are none (the common answer: no handle to walk).
const SCRIPT: &str = r#"((deep) => {
  const found = [];
  const visit = (root) => {
    for (const e of root.querySelectorAll('input[type=checkbox]:indeterminate')) found.push(e);
    for (const f of root.querySelectorAll('iframe, frame')) {
      let d = null;
      try { d = f.contentDocument; } catch (_) {}
      if (d) visit(d);
    }
    if (deep) for (const e of root.querySelectorAll('*')) if (e.shadowRoot) visit(e.shadowRoot);
  };
  visit(document);
  return found.length ? found : null;
})"#;

/// Where the page's checkboxes are, as captured: none, or whether one is in an open shadow tree.
fn checkboxes(views: &[DocView<'_>]) -> Option<bool> {
    let mut any = false;
    for v in views {
        for i in 0..v.len() as u32 {
            let checkbox = v.tag(i) == Tag::Input
                && v.attr(i, Attr::Type)
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("checkbox"));
            if checkbox {
                if v.shadow_type(i) == Some("open") {
                    return Some(true);
                }
                any = true;
            }
        }
    }
    any.then_some(false)
}

/// Backend ids of the checkboxes of `views` (one session's capture) that are indeterminate now.
/// Best effort: a page that does not answer in `timeout` leaves them as captured.
pub(crate) async fn indeterminate_checkboxes(
    session: &Session,
    views: &[DocView<'_>],
    timeout: Duration,
) -> HashSet<i64> {
    let Some(deep) = checkboxes(views) else {
        return HashSet::new();
    };
    let asked = runtime::Evaluate {
        expression: format!("{SCRIPT}({deep})"),
        object_group: Some(GROUP.into()),
        silent: Some(true),
        ..Default::default()
    };
    let found = match session.send_timeout(&asked, timeout).await {
        Ok(r) if r.exception_details.is_none() => r.result.object_id,
        _ => None,
    };
    let Some(list) = found else {
        return HashSet::new();
    };
    let ids = backend_ids(session, list, timeout).await;
    let release = runtime::ReleaseObjectGroup {
        object_group: GROUP.into(),
    };
    let _ = session.send_timeout(&release, timeout).await;
    ids
}

/// The backend ids of the elements of an array handle.
async fn backend_ids(session: &Session, list: RemoteObjectId, timeout: Duration) -> HashSet<i64> {
    let props = runtime::GetProperties {
        object_id: list,
        own_properties: Some(true),
        ..Default::default()
    };
    let Ok(props) = session.send_timeout(&props, timeout).await else {
        return HashSet::new();
    };
    let elements = props
        .result
        .into_iter()
        .filter(|p| p.name.parse::<usize>().is_ok())
        .filter_map(|p| p.value.and_then(|v| v.object_id));
    let described = futures::future::join_all(elements.map(|object_id| async move {
        let asked = dom::DescribeNode {
            object_id: Some(object_id),
            ..Default::default()
        };
        session
            .send_timeout(&asked, timeout)
            .await
            .ok()
            .map(|d| d.node.backend_node_id)
    }))
    .await;
    described.into_iter().flatten().map(i64::from).collect()
}
