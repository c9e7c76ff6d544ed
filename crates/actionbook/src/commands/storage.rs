//! Web storage (spec 14, tab level): `browser local-storage | session-storage` `list | get | set |
//! delete | clear`, on the storage of the tab's main-frame origin, or (`--frame <ref>`, beyond the
//! spec) of the document inside one `<iframe>`, same-process or out-of-process.
//!
//! - `get` of an absent key answers `item: null` (as the reference CLI).
//! - `clear <key>` removes that key (spec 14.5); `clear` without a key (beyond the spec) empties
//!   the whole storage; `affected` counts the keys removed.
//! - A page without storage (`about:blank` and other opaque origins, storage blocked by the
//!   browser) is `UNSUPPORTED_OPERATION` with the browser's reason; a value over the quota is
//!   `INVALID_ARGUMENT`. A `file://` page's origin reads as opaque too, but Chromium gives it
//!   storage: it is used.

use envelope::{
    ChangeAction, StorageChangeData, StorageGetData, StorageItem, StorageKind, StorageListData,
};
use serde::{Deserialize, Serialize};

use crate::deadline;
use crate::error::{CliError, Result};
use crate::model::TabTarget;
use crate::page::{eval, locate};
use crate::reply::Done;
use crate::tab::{TabCommand, TabCx};

/// One storage operation, run in the page by [`STORAGE_JS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Op {
    List,
    Get,
    Set,
    Delete,
    Clear,
}

/// What the page answers: either `error` (and `name`, the exception's) or the operation's result.
#[derive(Debug, Default, Deserialize)]
struct Answer {
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    items: Vec<(String, String)>,
    #[serde(default)]
    value: Option<String>,
    #[serde(default)]
    affected: u64,
}

/// The storage operation in the page: `(kind, op, key, value)`, by value.
const STORAGE_JS: &str = r#"(function (kind, op, key, value) {
  let s;
  try {
    if (self.origin === 'null' && location.protocol !== 'file:') return { error: 'the page ' + location.href + ' has an opaque origin: it has no web storage', name: 'Opaque' };
    s = self[kind];
  } catch (e) { return { error: String(e && e.message || e), name: String(e && e.name || 'Error') }; }
  if (!s) return { error: kind + ' is not available in this page', name: 'Missing' };
  try {
    switch (op) {
      case 'list': { const items = []; for (let i = 0; i < s.length; i++) { const k = s.key(i); items.push([k, s.getItem(k)]); } return { items }; }
      case 'get': return { value: s.getItem(key) };
      case 'set': s.setItem(key, value); return { affected: 1 };
      case 'delete': { const had = s.getItem(key) !== null; s.removeItem(key); return { affected: had ? 1 : 0 }; }
      case 'clear': {
        if (key === null) { const n = s.length; s.clear(); return { affected: n }; }
        const had = s.getItem(key) !== null; s.removeItem(key); return { affected: had ? 1 : 0 };
      }
    }
  } catch (e) { return { error: String(e && e.message || e), name: String(e && e.name || 'Error') }; }
  return { error: 'unknown operation ' + op, name: 'Error' };
})"#;

fn kind_name(kind: StorageKind) -> &'static str {
    match kind {
        StorageKind::Local => "localStorage",
        StorageKind::Session => "sessionStorage",
    }
}

/// Runs one operation on the storage of the tab's main frame, or of the document inside the frame
/// element `frame` names.
async fn run_op(
    cx: &mut TabCx<'_>,
    frame: Option<&str>,
    kind: StorageKind,
    op: Op,
    key: Option<&str>,
    value: Option<&str>,
) -> Result<Answer> {
    let args = serde_json::json!([kind_name(kind), op, key, value]);
    let args = args
        .as_array()
        .map(|a| {
            a.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    let expression = format!("{STORAGE_JS}({args})");
    let (session, context) = match frame.map(str::trim) {
        None => (cx.page.clone(), None),
        Some("") => return Err(CliError::InvalidArgument("--frame is empty".into())),
        Some(selector) => {
            cx.load_refs();
            let page = cx.page.clone();
            let inner =
                locate::content_frame(&mut cx.state.frames, &page, selector, &cx.deadline).await?;
            (inner.session, Some(inner.context))
        }
    };
    let answer: Answer = eval::read_in(
        &session,
        context,
        &expression,
        cx.deadline.capped(deadline::QUICK_CALL),
        "the page's storage",
    )
    .await?;
    match (answer.error.clone(), answer.name.as_deref()) {
        (None, _) => Ok(answer),
        (Some(e), Some("QuotaExceededError")) => Err(CliError::InvalidArgument(format!(
            "the value does not fit in {}: {e}",
            kind_name(kind)
        ))),
        (Some(e), _) => Err(CliError::Unsupported(format!(
            "{} cannot be used in this page: {e}",
            kind_name(kind)
        ))),
    }
}

macro_rules! storage_commands {
    ($( $kind:ident: $list:ident, $get:ident, $set:ident, $delete:ident, $clear:ident, $label:literal; )*) => {$(
        #[doc = concat!("`browser ", $label, " list`.")]
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
        #[cfg_attr(feature = "cli", derive(clap::Args))]
        pub struct $list {
            /// The storage of the document inside this `<iframe>` (its `@eN` ref, CSS or XPath;
            /// out-of-process frames too) instead of the main frame's (beyond the spec).
            #[cfg_attr(feature = "cli", arg(long, value_name = "SELECTOR"))]
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub frame: Option<String>,
            /// The session and tab.
            #[serde(flatten)]
            #[cfg_attr(feature = "cli", command(flatten))]
            pub target: TabTarget,
        }

        #[doc = concat!("`browser ", $label, " get <key>`.")]
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
        #[cfg_attr(feature = "cli", derive(clap::Args))]
        pub struct $get {
            /// The key.
            pub key: String,
            /// The storage of the document inside this `<iframe>` (its `@eN` ref, CSS or XPath;
            /// out-of-process frames too) instead of the main frame's (beyond the spec).
            #[cfg_attr(feature = "cli", arg(long, value_name = "SELECTOR"))]
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub frame: Option<String>,
            /// The session and tab.
            #[serde(flatten)]
            #[cfg_attr(feature = "cli", command(flatten))]
            pub target: TabTarget,
        }

        #[doc = concat!("`browser ", $label, " set <key> <value>`.")]
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
        #[cfg_attr(feature = "cli", derive(clap::Args))]
        pub struct $set {
            /// The key.
            pub key: String,
            /// The value (may start with `-`).
            #[cfg_attr(feature = "cli", arg(allow_hyphen_values = true))]
            pub value: String,
            /// The storage of the document inside this `<iframe>` (its `@eN` ref, CSS or XPath;
            /// out-of-process frames too) instead of the main frame's (beyond the spec).
            #[cfg_attr(feature = "cli", arg(long, value_name = "SELECTOR"))]
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub frame: Option<String>,
            /// The session and tab.
            #[serde(flatten)]
            #[cfg_attr(feature = "cli", command(flatten))]
            pub target: TabTarget,
        }

        #[doc = concat!("`browser ", $label, " delete <key>`.")]
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
        #[cfg_attr(feature = "cli", derive(clap::Args))]
        pub struct $delete {
            /// The key.
            pub key: String,
            /// The storage of the document inside this `<iframe>` (its `@eN` ref, CSS or XPath;
            /// out-of-process frames too) instead of the main frame's (beyond the spec).
            #[cfg_attr(feature = "cli", arg(long, value_name = "SELECTOR"))]
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub frame: Option<String>,
            /// The session and tab.
            #[serde(flatten)]
            #[cfg_attr(feature = "cli", command(flatten))]
            pub target: TabTarget,
        }

        #[doc = concat!("`browser ", $label, " clear [<key>]`.")]
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
        #[cfg_attr(feature = "cli", derive(clap::Args))]
        pub struct $clear {
            /// The key to remove; without it, every key.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub key: Option<String>,
            /// The storage of the document inside this `<iframe>` (its `@eN` ref, CSS or XPath;
            /// out-of-process frames too) instead of the main frame's (beyond the spec).
            #[cfg_attr(feature = "cli", arg(long, value_name = "SELECTOR"))]
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub frame: Option<String>,
            /// The session and tab.
            #[serde(flatten)]
            #[cfg_attr(feature = "cli", command(flatten))]
            pub target: TabTarget,
        }

        impl TabCommand for $list {
            type Data = StorageListData;
            fn target(&self) -> &TabTarget {
                &self.target
            }
            async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<StorageListData>> {
                let a = run_op(cx, self.frame.as_deref(), StorageKind::$kind, Op::List, None, None).await?;
                let items = a
                    .items
                    .into_iter()
                    .map(|(key, value)| StorageItem { key, value })
                    .collect();
                Ok(Done::data(StorageListData { storage: StorageKind::$kind, items }))
            }
        }

        impl TabCommand for $get {
            type Data = StorageGetData;
            fn target(&self) -> &TabTarget {
                &self.target
            }
            async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<StorageGetData>> {
                let a = run_op(cx, self.frame.as_deref(), StorageKind::$kind, Op::Get, Some(&self.key), None).await?;
                // An absent key is `item: null` (as the reference); the text would show nothing.
                let absent = a.value.is_none().then(|| format!(
                    "no key {:?} in the page's {}-storage",
                    self.key,
                    stringify!($kind).to_lowercase()
                ));
                let item = a.value.map(|value| StorageItem { key: self.key, value });
                let mut done = Done::data(StorageGetData { storage: StorageKind::$kind, item });
                done.warnings.extend(absent);
                Ok(done)
            }
        }

        impl TabCommand for $set {
            type Data = StorageChangeData;
            fn target(&self) -> &TabTarget {
                &self.target
            }
            async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<StorageChangeData>> {
                let a = run_op(cx, self.frame.as_deref(), StorageKind::$kind, Op::Set, Some(&self.key), Some(&self.value))
                    .await?;
                Ok(change(StorageKind::$kind, ChangeAction::Set, a.affected))
            }
        }

        impl TabCommand for $delete {
            type Data = StorageChangeData;
            fn target(&self) -> &TabTarget {
                &self.target
            }
            async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<StorageChangeData>> {
                let a = run_op(cx, self.frame.as_deref(), StorageKind::$kind, Op::Delete, Some(&self.key), None).await?;
                Ok(change(StorageKind::$kind, ChangeAction::Delete, a.affected))
            }
        }

        impl TabCommand for $clear {
            type Data = StorageChangeData;
            fn target(&self) -> &TabTarget {
                &self.target
            }
            async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<StorageChangeData>> {
                let a = run_op(cx, self.frame.as_deref(), StorageKind::$kind, Op::Clear, self.key.as_deref(), None).await?;
                Ok(change(StorageKind::$kind, ChangeAction::Clear, a.affected))
            }
        }
    )*};
}

fn change(storage: StorageKind, action: ChangeAction, affected: u64) -> Done<StorageChangeData> {
    Done::data(StorageChangeData {
        storage,
        action,
        affected,
    })
}

storage_commands! {
    Local: LocalStorageList, LocalStorageGet, LocalStorageSet, LocalStorageDelete,
        LocalStorageClear, "local-storage";
    Session: SessionStorageList, SessionStorageGet, SessionStorageSet, SessionStorageDelete,
        SessionStorageClear, "session-storage";
}
