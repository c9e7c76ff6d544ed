//! The `data` of successful envelopes: one plain serde struct per command family,
//! each implementing [`RenderText`] for its text body, gathered in the [`Data`] enum.
//!
//! Structs have public fields so producers fill them in directly. Fields the spec
//! shows as `null` are `Option`s that are always written; optional extras are
//! omitted when absent (each field's doc says which).

use serde::{Serialize, Serializer};

use crate::text::{RenderText, TextBody};

mod batch;
mod catalog;
mod cookies;
mod document;
mod interaction;
mod navigation;
mod query;
mod read;
mod session;
mod storage;
mod string_map;
mod tab;
mod wait;

pub use batch::{
    BatchClickData, BatchClickResult, BatchNewTabData, BatchSnapshotData, BatchSnapshotResult,
};
pub use catalog::{AreaData, AreaElement, SearchData, SearchItem};
pub use cookies::{Cookie, CookieChangeData, CookieGetData, CookieListData};
pub use document::Document;
pub use interaction::{
    ActionData, ActionKind, Changed, EvalData, InputData, InputKind, ValueSummary,
};
pub use navigation::{NavigationData, NavigationKind};
pub use query::{QueryData, QueryMatch};
pub use read::{
    Artifact, ArtifactData, AttributesData, BoundingBox, BoxData, DescribeData, DescribeState,
    ElementState, InspectPointData, InspectedElement, LogEntry, LogsData, Nearby, PageValueData,
    Point, ReadData, SnapshotData, SnapshotDiff, SnapshotNode, SnapshotStats, StateData, Target,
    ViewportData,
};
pub use session::{
    BrowserMode, Capabilities, CloseData, NativeId, RestartData, SessionInfo, SessionListData,
    SessionState, StartData, StatusData, TabInfo,
};
pub use storage::{StorageChangeData, StorageGetData, StorageItem, StorageKind, StorageListData};
pub use string_map::StringMap;
pub use tab::{CloseTabData, NewTabData, TabListData};
pub use wait::{WaitData, WaitKind};

/// What a mutating cookie/storage command did (`data.action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeAction {
    /// `set`
    Set,
    /// `delete`
    Delete,
    /// `clear`
    Clear,
}

macro_rules! data_enum {
    ($( $(#[$doc:meta])* $variant:ident($ty:ty), )*) => {
        /// The `data` of a successful envelope: one variant per command family.
        ///
        /// Serialises as the inner value, with no tag: which variant a `data` object
        /// is follows from the envelope's `command` ([`CommandName::data_kind`](crate::CommandName::data_kind)).
        /// Every data struct converts into `Data` with `From`/`into()`.
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum Data {
            $( $(#[$doc])* $variant($ty), )*
        }

        /// Which [`Data`] variant a command's successful envelope carries.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum DataKind {
            $( $(#[$doc])* $variant, )*
        }

        impl Data {
            /// The kind of this value.
            pub fn kind(&self) -> DataKind {
                match self { $( Data::$variant(_) => DataKind::$variant, )* }
            }

            /// Reads a `data` value of the given kind from JSON text.
            pub fn from_json(kind: DataKind, json: &str) -> Result<Data, serde_json::Error> {
                Ok(match kind { $( DataKind::$variant => Data::$variant(serde_json::from_str(json)?), )* })
            }

            /// Reads a `data` value of the given kind from a JSON value (object key
            /// order is that of `serde_json::Value`, i.e. sorted).
            pub fn from_value(kind: DataKind, value: serde_json::Value) -> Result<Data, serde_json::Error> {
                Ok(match kind { $( DataKind::$variant => Data::$variant(serde_json::from_value(value)?), )* })
            }

            fn as_render(&self) -> &dyn RenderText {
                match self { $( Data::$variant(d) => d, )* }
            }
        }

        impl Serialize for Data {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self { $( Data::$variant(d) => d.serialize(s), )* }
            }
        }

        $(
            impl From<$ty> for Data {
                fn from(d: $ty) -> Data {
                    Data::$variant(d)
                }
            }
        )*
    };
}

data_enum! {
    /// A plain string: `help`, `version`.
    Text(String),
    /// `search`
    Search(SearchData),
    /// `get`
    Area(AreaData),
    /// `manual`, `areas *`, `setup`: shaped by their producer
    Document(Document),
    /// `browser start`
    Start(StartData),
    /// `browser list-sessions`
    SessionList(SessionListData),
    /// `browser status`
    Status(StatusData),
    /// `browser close`
    Close(CloseData),
    /// `browser restart`
    Restart(RestartData),
    /// `browser list-tabs`
    TabList(TabListData),
    /// `browser new-tab`
    NewTab(NewTabData),
    /// `browser close-tab`
    CloseTab(CloseTabData),
    /// `browser goto` / `back` / `forward` / `reload`
    Navigation(NavigationData),
    /// `browser snapshot`
    Snapshot(SnapshotData),
    /// `browser screenshot` / `pdf`
    Artifact(ArtifactData),
    /// `browser title` / `url`
    PageValue(PageValueData),
    /// `browser viewport`
    Viewport(ViewportData),
    /// `browser query` (every mode)
    Query(QueryData),
    /// `browser html` / `text` / `value` / `attr`
    Read(ReadData),
    /// `browser attrs` / `styles`
    Attributes(AttributesData),
    /// `browser box`
    BoundingBox(BoxData),
    /// `browser describe`
    Describe(DescribeData),
    /// `browser state`
    State(StateData),
    /// `browser inspect-point`
    InspectPoint(InspectPointData),
    /// `browser cursor-position`
    CursorPosition(Point),
    /// `browser logs console` / `errors`
    Logs(LogsData),
    /// `browser click` / `hover` / `focus` / `press` / `drag` / `mouse-move` / `scroll`
    Action(ActionData),
    /// `browser type` / `fill` / `select` / `upload`
    Input(InputData),
    /// `browser eval`
    Eval(EvalData),
    /// `browser wait *`
    Wait(WaitData),
    /// `browser cookies list`
    CookieList(CookieListData),
    /// `browser cookies get`
    CookieGet(CookieGetData),
    /// `browser cookies set` / `delete` / `clear`
    CookieChange(CookieChangeData),
    /// `browser session-storage|local-storage list`
    StorageList(StorageListData),
    /// `browser session-storage|local-storage get`
    StorageGet(StorageGetData),
    /// `browser session-storage|local-storage set` / `delete` / `clear`
    StorageChange(StorageChangeData),
    /// `browser batch-new-tab`
    BatchNewTab(BatchNewTabData),
    /// `browser batch-snapshot`
    BatchSnapshot(BatchSnapshotData),
    /// `browser batch-click`
    BatchClick(BatchClickData),
}

impl From<&str> for Data {
    fn from(s: &str) -> Data {
        Data::Text(s.to_owned())
    }
}

impl RenderText for Data {
    fn is_action(&self) -> bool {
        self.as_render().is_action()
    }

    fn header_shows_url(&self) -> bool {
        self.as_render().header_shows_url()
    }

    fn render_body(&self, body: &mut TextBody<'_>) {
        self.as_render().render_body(body);
    }
}

/// A plain string (help, version) prints as itself.
impl RenderText for String {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.line(self);
    }
}

/// Text of `role "name"`, or just `role` when the name is empty.
pub(crate) fn role_and_name(role: &str, name: &str) -> String {
    if name.is_empty() {
        role.to_owned()
    } else {
        format!("{role} \"{name}\"")
    }
}
