//! [`Tab`]: one tab's commands as typed calls (navigation, snapshots, input, eval, screenshots,
//! waits, storage, network, dialogs, downloads), each a command of the table.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use envelope::{Data, Envelope, StorageItem, WaitData};
use serde::de::DeserializeOwned;

use super::browser::{Link, document, take};
use super::error::{ApiError, ApiResult};
use super::locator::Locator;
use super::snapshot::{Selector, Snapshot};
use crate::commands::dialog::{Dialog, DialogAnswer};
use crate::commands::downloads::{ListDownloads, WaitDownload};
use crate::commands::interaction::scroll::ScrollDirection;
use crate::commands::interaction::{
    Click, Drag, Eval, Fill, Hover, Press, Scroll, Select, Type, Upload,
};
use crate::commands::navigation::{Back, Forward, Goto, Reload};
use crate::commands::network::Requests;
use crate::commands::observation::{self, Query, QueryMode, Screenshot, SnapshotFilters};
use crate::commands::storage;
use crate::commands::tabs::CloseTab;
use crate::commands::waits::{
    ElementState, WaitCondition, WaitElement, WaitNavigation, WaitNetworkIdle, WaitText, WaitUrl,
};
use crate::model::TabTarget;

/// One tab of a session. Cheap to clone; every call runs one command (a [`Locator`]'s `nth`
/// two) within the tab's timeout ([`Tab::with_timeout`]).
#[derive(Debug, Clone)]
pub struct Tab {
    pub(crate) link: Link,
    target: TabTarget,
}

/// Which of a tab's storages a [`Storage`] handle reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StorageKind {
    Local,
    Session,
}

impl Tab {
    pub(crate) fn new(link: Link, target: TabTarget) -> Tab {
        Tab { link, target }
    }

    /// Its session and tab ids.
    pub fn target(&self) -> &TabTarget {
        &self.target
    }

    fn t(&self) -> TabTarget {
        self.target.clone()
    }

    /// The same tab with another timeout for each call.
    #[must_use]
    pub fn with_timeout(&self, timeout: Duration) -> Tab {
        let mut tab = self.clone();
        tab.link.timeout = timeout;
        tab
    }

    /// The timeout of each call.
    pub fn timeout(&self) -> Duration {
        self.link.timeout
    }

    /// A locator of `selector` on this tab (any form [`Selector`] takes; in any frame).
    pub fn locator(&self, selector: impl Into<Selector>) -> Locator {
        Locator::new(self.clone(), selector.into())
    }

    pub(crate) async fn call(
        &self,
        command: impl Into<crate::commands::Command>,
    ) -> ApiResult<Envelope> {
        self.link.call(command).await
    }

    // --- navigation -------------------------------------------------------------------------

    /// `browser goto <url>` (waits for the load event).
    pub async fn goto(&self, url: &str) -> ApiResult<()> {
        self.call(Goto {
            url: url.to_string(),
            wait_until: None,
            target: self.t(),
        })
        .await
        .map(drop)
    }

    /// `browser back`.
    pub async fn back(&self) -> ApiResult<()> {
        self.call(Back { target: self.t() }).await.map(drop)
    }

    /// `browser forward`.
    pub async fn forward(&self) -> ApiResult<()> {
        self.call(Forward { target: self.t() }).await.map(drop)
    }

    /// `browser reload`.
    pub async fn reload(&self) -> ApiResult<()> {
        self.call(Reload { target: self.t() }).await.map(drop)
    }

    /// `browser close-tab`.
    pub async fn close(&self) -> ApiResult<()> {
        self.call(CloseTab { target: self.t() }).await.map(drop)
    }

    /// `browser title`.
    pub async fn title(&self) -> ApiResult<String> {
        let env = self.call(observation::Title { target: self.t() }).await?;
        page_value(&env)
    }

    /// `browser url`.
    pub async fn url(&self) -> ApiResult<String> {
        let env = self.call(observation::Url { target: self.t() }).await?;
        page_value(&env)
    }

    // --- snapshots ----------------------------------------------------------------------------

    /// `browser snapshot`: the whole tree, every frame's, with refs.
    pub async fn snapshot(&self) -> ApiResult<Snapshot> {
        self.snapshot_with(observation::Snapshot::of(self.t()))
            .await
    }

    /// `browser snapshot --interactive`: only what can be acted on.
    pub async fn snapshot_interactive(&self) -> ApiResult<Snapshot> {
        self.snapshot_with(observation::Snapshot {
            filters: SnapshotFilters {
                interactive: true,
                ..SnapshotFilters::default()
            },
            ..observation::Snapshot::of(self.t())
        })
        .await
    }

    /// `browser snapshot --diff`: what changed since the tab's previous snapshot.
    pub async fn snapshot_diff(&self) -> ApiResult<Snapshot> {
        self.snapshot_with(observation::Snapshot {
            diff: true,
            ..observation::Snapshot::of(self.t())
        })
        .await
    }

    /// `browser snapshot` with every option (its `target` is set to this tab).
    pub async fn snapshot_with(&self, mut request: observation::Snapshot) -> ApiResult<Snapshot> {
        request.target = self.t();
        let env = self.call(request).await?;
        let data = take(&env, "snapshot", |d| match d {
            Data::Snapshot(s) => Some(s.clone()),
            _ => None,
        })?;
        let text = read_text(&env, &data.path).await?;
        Ok(Snapshot::from_data(data, text))
    }

    // --- input --------------------------------------------------------------------------------

    /// `browser click <selector>`.
    pub async fn click(&self, selector: impl Into<Selector>) -> ApiResult<()> {
        self.call(Click::new(selector.into().0, self.t()))
            .await
            .map(drop)
    }

    /// `browser fill <selector> <text>`: replaces the field's value.
    pub async fn fill(&self, selector: impl Into<Selector>, text: &str) -> ApiResult<()> {
        self.call(Fill {
            selector: selector.into().0,
            text: text.to_string(),
            target: self.t(),
        })
        .await
        .map(drop)
    }

    /// `browser type <selector> <text>`: key by key, after what is there.
    pub async fn type_text(&self, selector: impl Into<Selector>, text: &str) -> ApiResult<()> {
        self.call(Type {
            selector: selector.into().0,
            text: text.to_string(),
            target: self.t(),
        })
        .await
        .map(drop)
    }

    /// `browser press <keys>` (`Enter`, `Control+a`, ...) on the focused element.
    pub async fn press(&self, keys: &str) -> ApiResult<()> {
        self.call(Press {
            keys: keys.to_string(),
            target: self.t(),
        })
        .await
        .map(drop)
    }

    /// `browser select <selector> <values>`: options by value.
    pub async fn select(&self, selector: impl Into<Selector>, values: &[&str]) -> ApiResult<()> {
        self.call(Select {
            selector: selector.into().0,
            values: values.iter().map(|v| v.to_string()).collect(),
            by_text: false,
            target: self.t(),
        })
        .await
        .map(drop)
    }

    /// `browser hover <selector>`.
    pub async fn hover(&self, selector: impl Into<Selector>) -> ApiResult<()> {
        self.call(Hover {
            selector: selector.into().0,
            force: false,
            target: self.t(),
        })
        .await
        .map(drop)
    }

    /// `browser scroll <direction> [pixels]` (the page).
    pub async fn scroll(&self, direction: ScrollDirection, pixels: Option<u32>) -> ApiResult<()> {
        self.call(Scroll {
            direction,
            value: pixels.map(|p| p.to_string()),
            container: None,
            align: None,
            target: self.t(),
        })
        .await
        .map(drop)
    }

    /// `browser drag <selector> <destination>`.
    pub async fn drag(
        &self,
        selector: impl Into<Selector>,
        destination: impl Into<Selector>,
    ) -> ApiResult<()> {
        self.call(Drag {
            selector: selector.into().0,
            destination: destination.into().0,
            button: Default::default(),
            target: self.t(),
        })
        .await
        .map(drop)
    }

    /// `browser upload <selector> <files>`.
    pub async fn upload(
        &self,
        selector: impl Into<Selector>,
        files: &[std::path::PathBuf],
    ) -> ApiResult<()> {
        self.call(Upload {
            selector: selector.into().0,
            files: files.to_vec(),
            target: self.t(),
        })
        .await
        .map(drop)
    }

    // --- eval and reads -----------------------------------------------------------------------

    /// `browser eval <code>` in the page: its value as JSON (`null` for `undefined`).
    pub async fn eval(&self, code: &str) -> ApiResult<serde_json::Value> {
        self.eval_request(Eval::new(code, self.t())).await
    }

    /// `browser eval <code>`, its value decoded as `T`.
    pub async fn eval_as<T: DeserializeOwned>(&self, code: &str) -> ApiResult<T> {
        decode(
            crate::envelope::CommandName::BrowserEval,
            self.eval(code).await?,
        )
    }

    /// `browser eval <code> --frame <selector>`: in the document of that `<iframe>` (out of
    /// process too).
    pub async fn eval_in_frame(
        &self,
        frame: impl Into<Selector>,
        code: &str,
    ) -> ApiResult<serde_json::Value> {
        self.eval_request(Eval {
            frame: Some(frame.into().0),
            ..Eval::new(code, self.t())
        })
        .await
    }

    pub(crate) async fn eval_request(&self, request: Eval) -> ApiResult<serde_json::Value> {
        let env = self.call(request).await?;
        take(&env, "eval result", |d| match d {
            Data::Eval(e) => Some(e.value.clone()),
            _ => None,
        })
    }

    /// `browser text <selector>`: its rendered text.
    pub async fn text(&self, selector: impl Into<Selector>) -> ApiResult<String> {
        let env = self
            .call(observation::Text {
                selector: selector.into().0,
                mode: None,
                target: self.t(),
            })
            .await?;
        read_value(&env)
    }

    /// `browser value <selector>`: a field's value.
    pub async fn value(&self, selector: impl Into<Selector>) -> ApiResult<String> {
        let env = self
            .call(observation::Value {
                selector: selector.into().0,
                target: self.t(),
            })
            .await?;
        read_value(&env)
    }

    /// `browser query count <query>` (CSS or XPath, the top document and its shadow roots).
    pub async fn count(&self, query: impl Into<Selector>) -> ApiResult<u64> {
        let env = self
            .call(Query {
                mode: QueryMode::Count,
                args: vec![query.into().0],
                target: self.t(),
            })
            .await?;
        take(&env, "query count", |d| match d {
            Data::Query(envelope::QueryData::Count { count, .. }) => Some(*count),
            _ => None,
        })
    }

    /// `browser screenshot`: the viewport as PNG bytes.
    pub async fn screenshot(&self) -> ApiResult<Vec<u8>> {
        self.screenshot_with(false, None).await
    }

    /// `browser screenshot [--full] [--selector <s>]`: PNG bytes.
    pub async fn screenshot_with(
        &self,
        full: bool,
        selector: Option<Selector>,
    ) -> ApiResult<Vec<u8>> {
        static N: AtomicU64 = AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!(
            "actionbook-api-{}-{}.png",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let env = self
            .call(Screenshot {
                path: path.to_string_lossy().into_owned(),
                target: self.t(),
                full,
                annotate: false,
                screenshot_quality: None,
                screenshot_format: None,
                selector: selector.map(|s| s.0),
            })
            .await?;
        let written = take(&env, "artifact", |d| match d {
            Data::Artifact(a) => Some(a.artifact.path.clone()),
            _ => None,
        })?;
        let bytes = tokio::fs::read(&written)
            .await
            .map_err(|e| ApiError::Artifact {
                command: env.command(),
                path: written.clone(),
                reason: e.to_string(),
            });
        // Ours to remove: the bytes are the answer.
        let _ = tokio::fs::remove_file(&written).await;
        bytes
    }

    // --- waits --------------------------------------------------------------------------------

    /// `browser wait element <selector>` until it is attached.
    pub async fn wait_for(&self, selector: impl Into<Selector>) -> ApiResult<WaitData> {
        self.wait_for_state(selector, ElementState::Attached).await
    }

    /// `browser wait element <selector> --state <state>`.
    pub async fn wait_for_state(
        &self,
        selector: impl Into<Selector>,
        state: ElementState,
    ) -> ApiResult<WaitData> {
        let env = self
            .call(WaitElement {
                selector: selector.into().0,
                state: Some(state),
                target: self.t(),
            })
            .await?;
        wait_data(&env)
    }

    /// `browser wait text <text>` (until it shows).
    pub async fn wait_text(&self, text: &str) -> ApiResult<WaitData> {
        let env = self
            .call(WaitText {
                text: text.to_string(),
                gone: false,
                target: self.t(),
            })
            .await?;
        wait_data(&env)
    }

    /// `browser wait url <pattern>`.
    pub async fn wait_url(&self, pattern: &str) -> ApiResult<WaitData> {
        let env = self
            .call(WaitUrl {
                pattern: pattern.to_string(),
                target: self.t(),
            })
            .await?;
        wait_data(&env)
    }

    /// `browser wait condition <expression>` (until it is truthy).
    pub async fn wait_condition(&self, expression: &str) -> ApiResult<WaitData> {
        let env = self
            .call(WaitCondition {
                expression: expression.to_string(),
                target: self.t(),
            })
            .await?;
        wait_data(&env)
    }

    /// `browser wait navigation`.
    pub async fn wait_navigation(&self) -> ApiResult<WaitData> {
        let env = self.call(WaitNavigation { target: self.t() }).await?;
        wait_data(&env)
    }

    /// `browser wait network-idle`.
    pub async fn wait_network_idle(&self) -> ApiResult<WaitData> {
        let env = self.call(WaitNetworkIdle { target: self.t() }).await?;
        wait_data(&env)
    }

    // --- storage, network, dialogs, downloads -------------------------------------------------

    /// The page's `localStorage`.
    pub fn local_storage(&self) -> Storage {
        Storage {
            tab: self.clone(),
            kind: StorageKind::Local,
        }
    }

    /// The page's `sessionStorage`.
    pub fn session_storage(&self) -> Storage {
        Storage {
            tab: self.clone(),
            kind: StorageKind::Session,
        }
    }

    /// `browser network requests`: the tab's recorded requests (the command's JSON document).
    pub async fn network_requests(&self) -> ApiResult<serde_json::Value> {
        let env = self
            .call(Requests {
                target: self.t(),
                filter: None,
                resource_type: None,
                status: None,
                method: None,
                clear: false,
            })
            .await?;
        document(&env)
    }

    /// `browser dialog accept|dismiss [--text]`: answers the open dialog, or (`always`) every
    /// later one (its JSON document).
    pub async fn dialog(
        &self,
        answer: DialogAnswer,
        text: Option<&str>,
        always: bool,
    ) -> ApiResult<serde_json::Value> {
        let env = self
            .call(Dialog {
                answer,
                text: text.map(str::to_string),
                always,
                target: self.t(),
            })
            .await?;
        document(&env)
    }

    /// `browser downloads`: the tab's downloads (the command's JSON document).
    pub async fn downloads(&self) -> ApiResult<serde_json::Value> {
        let env = self.call(ListDownloads { target: self.t() }).await?;
        document(&env)
    }

    /// `browser wait download [--save-as <path>]`: the next (or first unreturned) download.
    pub async fn wait_download(&self, save_as: Option<&str>) -> ApiResult<serde_json::Value> {
        let env = self
            .call(WaitDownload {
                id: None,
                save_as: save_as.map(str::to_string),
                target: self.t(),
            })
            .await?;
        document(&env)
    }
}

/// A tab's `localStorage` or `sessionStorage` (the main frame's).
#[derive(Debug, Clone)]
pub struct Storage {
    tab: Tab,
    kind: StorageKind,
}

impl Storage {
    /// `... get <key>`: its value, or `None`.
    pub async fn get(&self, key: &str) -> ApiResult<Option<String>> {
        let (key, frame, target) = (key.to_string(), None, self.tab.t());
        let env = match self.kind {
            StorageKind::Local => {
                self.tab
                    .call(storage::LocalStorageGet { key, frame, target })
                    .await?
            }
            StorageKind::Session => {
                self.tab
                    .call(storage::SessionStorageGet { key, frame, target })
                    .await?
            }
        };
        take(&env, "storage item", |d| match d {
            Data::StorageGet(g) => Some(g.item.as_ref().map(|i| i.value.clone())),
            _ => None,
        })
    }

    /// `... set <key> <value>`.
    pub async fn set(&self, key: &str, value: &str) -> ApiResult<()> {
        let (key, value, frame, target) = (key.to_string(), value.to_string(), None, self.tab.t());
        match self.kind {
            StorageKind::Local => {
                self.tab
                    .call(storage::LocalStorageSet {
                        key,
                        value,
                        frame,
                        target,
                    })
                    .await?
            }
            StorageKind::Session => {
                self.tab
                    .call(storage::SessionStorageSet {
                        key,
                        value,
                        frame,
                        target,
                    })
                    .await?
            }
        };
        Ok(())
    }

    /// `... list`: every item.
    pub async fn list(&self) -> ApiResult<Vec<StorageItem>> {
        let (frame, target) = (None, self.tab.t());
        let env = match self.kind {
            StorageKind::Local => {
                self.tab
                    .call(storage::LocalStorageList { frame, target })
                    .await?
            }
            StorageKind::Session => {
                self.tab
                    .call(storage::SessionStorageList { frame, target })
                    .await?
            }
        };
        take(&env, "storage list", |d| match d {
            Data::StorageList(l) => Some(l.items.clone()),
            _ => None,
        })
    }
}

fn page_value(env: &Envelope) -> ApiResult<String> {
    take(env, "page value", |d| match d {
        Data::PageValue(v) => Some(v.value.clone()),
        _ => None,
    })
}

pub(crate) fn read_value(env: &Envelope) -> ApiResult<String> {
    take(env, "read value", |d| match d {
        Data::Read(r) => Some(r.value.clone()),
        _ => None,
    })
}

pub(crate) fn wait_data(env: &Envelope) -> ApiResult<WaitData> {
    take(env, "wait data", |d| match d {
        Data::Wait(w) => Some(w.clone()),
        _ => None,
    })
}

pub(crate) fn decode<T: DeserializeOwned>(
    command: envelope::CommandName,
    value: serde_json::Value,
) -> ApiResult<T> {
    serde_json::from_value(value).map_err(|e| ApiError::Decode {
        command,
        type_name: std::any::type_name::<T>(),
        reason: e.to_string(),
    })
}

async fn read_text(env: &Envelope, path: &str) -> ApiResult<String> {
    tokio::fs::read_to_string(path)
        .await
        .map_err(|e| ApiError::Artifact {
            command: env.command(),
            path: path.to_string(),
            reason: e.to_string(),
        })
}
