//! Observation (spec 10): `title`, `url` here; [`snapshot`] (`browser snapshot`); [`capture`] (`screenshot`,
//! `pdf`), [`query`], [`read`] (`viewport`, `html`, `text`, `value`, `attr`, `attrs`, `box`,
//! `styles`, `describe`, `state`, `inspect-point`) and [`logs`] (`logs console`, `logs errors`).

use envelope::PageValueData as ValueData;
use serde::{Deserialize, Serialize};

use super::navigation::tab_only;
use crate::error::Result;
use crate::model::TabTarget;
use crate::reply::Done;
use crate::tab::{TabCommand, TabCx};

pub mod capture;
pub mod logs;
pub mod query;
pub mod read;
pub mod snapshot;

pub use capture::{ImageKind, Pdf, Screenshot};
pub use logs::{LogsConsole, LogsErrors};
pub use query::{Query, QueryMode};
pub use read::{
    Attr, Attrs, Describe, ElementBox, Html, InspectPoint, State, Styles, Text, TextKind, Value,
    Viewport,
};
pub use snapshot::{Snapshot, SnapshotFilters};

tab_only! {
    /// `browser title`.
    Title;
    /// `browser url`.
    Url;
}

impl TabCommand for Title {
    type Data = ValueData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ValueData>> {
        let (url, title) = cx.page_info().await?;
        cx.url = Some(url);
        cx.title = Some(title.clone());
        Ok(Done::data(ValueData { value: title }))
    }
}

impl TabCommand for Url {
    type Data = ValueData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<ValueData>> {
        let (url, title) = cx.page_info().await?;
        cx.url = Some(url.clone());
        cx.title = Some(title);
        Ok(Done::data(ValueData { value: url }))
    }
}
