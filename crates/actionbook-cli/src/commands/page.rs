//! `browser title`, `url`, `eval`, `snapshot`, `click`, `fill`.

use crate::args::{self, TabTarget};
use crate::browser;
use crate::engine::{Done, TabCommand, TabCx};
use crate::error::Result;
use envelope::{EvalData, PageValueData as ValueData};

impl TabCommand for args::Title {
    type Data = ValueData;
    const READ_ONLY: bool = true;

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

impl TabCommand for args::Url {
    type Data = ValueData;
    const READ_ONLY: bool = true;

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

impl TabCommand for args::Eval {
    type Data = EvalData;

    fn target(&self) -> &TabTarget {
        &self.target
    }

    async fn run(self, cx: &mut TabCx<'_>) -> Result<Done<EvalData>> {
        let v = browser::evaluate(&cx.page, &self.code, &cx.call, "browser eval").await?;
        Ok(Done::data(EvalData {
            value: v.value,
            value_type: v.kind,
            preview: v.preview,
        }))
    }
}
