//! [`Locator`]: a selector on a tab, resolved by the engine at each call (so it finds the element
//! the page has then), with its own timeout and an `nth` match.

use std::time::Duration;

use envelope::{Data, QueryData, WaitData};
use serde::de::DeserializeOwned;

use super::browser::take;
use super::error::ApiResult;
use super::snapshot::Selector;
use super::tab::{Tab, decode, read_value, wait_data};
use crate::commands::interaction::scroll::ScrollDirection;
use crate::commands::interaction::{Eval, Scroll};
use crate::commands::observation::{self, Query, QueryMode};
use crate::commands::waits::ElementState;

/// An element of a tab by selector (`tab.locator("role=button[name=Save]")`): any form the
/// engine takes, in any frame (refs and role selectors reach out-of-process iframes; a frame path
/// `iframe#pay >> #card` names one). Cheap to clone; nothing runs until a call.
#[derive(Debug, Clone)]
pub struct Locator {
    tab: Tab,
    selector: Selector,
    /// The 0-based match of `query nth` (CSS or XPath of the top document).
    nth: Option<usize>,
    timeout: Option<Duration>,
}

impl Locator {
    pub(crate) fn new(tab: Tab, selector: Selector) -> Locator {
        Locator {
            tab,
            selector,
            nth: None,
            timeout: None,
        }
    }

    /// The selector as written.
    pub fn selector(&self) -> &Selector {
        &self.selector
    }

    /// The `i`-th match (0-based), found by `browser query nth` at each call: a CSS selector or
    /// XPath of the top document and its open shadow roots (`query`'s reach; name elements of
    /// frames by ref, role selector or frame path).
    #[must_use]
    pub fn nth(&self, i: usize) -> Locator {
        Locator {
            nth: Some(i),
            ..self.clone()
        }
    }

    /// The first match (`nth(0)`).
    #[must_use]
    pub fn first(&self) -> Locator {
        self.nth(0)
    }

    /// The same locator with this timeout for each of its calls.
    #[must_use]
    pub fn timeout(&self, timeout: Duration) -> Locator {
        Locator {
            timeout: Some(timeout),
            ..self.clone()
        }
    }

    fn tab(&self) -> Tab {
        match self.timeout {
            Some(t) => self.tab.with_timeout(t),
            None => self.tab.clone(),
        }
    }

    /// The selector a command is given: as written, or the `nth` match's own unique selector.
    async fn resolve(&self, tab: &Tab) -> ApiResult<Selector> {
        let Some(i) = self.nth else {
            return Ok(self.selector.clone());
        };
        let env = tab
            .call(Query {
                mode: QueryMode::Nth,
                args: vec![(i + 1).to_string(), self.selector.0.clone()],
                target: tab.target().clone(),
            })
            .await?;
        take(&env, "query nth match", |d| match d {
            Data::Query(QueryData::Nth { item, .. }) => Some(Selector(item.selector.clone())),
            _ => None,
        })
    }

    /// `browser click`.
    pub async fn click(&self) -> ApiResult<()> {
        let tab = self.tab();
        tab.click(self.resolve(&tab).await?).await
    }

    /// `browser fill`: replaces the field's value.
    pub async fn fill(&self, text: &str) -> ApiResult<()> {
        let tab = self.tab();
        tab.fill(self.resolve(&tab).await?, text).await
    }

    /// `browser type`: key by key.
    pub async fn type_text(&self, text: &str) -> ApiResult<()> {
        let tab = self.tab();
        tab.type_text(self.resolve(&tab).await?, text).await
    }

    /// `browser hover`.
    pub async fn hover(&self) -> ApiResult<()> {
        let tab = self.tab();
        tab.hover(self.resolve(&tab).await?).await
    }

    /// `browser select`: options by value.
    pub async fn select(&self, values: &[&str]) -> ApiResult<()> {
        let tab = self.tab();
        tab.select(self.resolve(&tab).await?, values).await
    }

    /// `browser scroll into-view <selector>`: brings the element into view.
    pub async fn scroll_into_view(&self) -> ApiResult<()> {
        let tab = self.tab();
        let selector = self.resolve(&tab).await?;
        tab.call(Scroll {
            direction: ScrollDirection::IntoView,
            value: Some(selector.0),
            container: None,
            align: None,
            target: tab.target().clone(),
        })
        .await
        .map(drop)
    }

    /// `browser text`: its rendered text.
    pub async fn text(&self) -> ApiResult<String> {
        let tab = self.tab();
        tab.text(self.resolve(&tab).await?).await
    }

    /// `browser value`: a field's value.
    pub async fn value(&self) -> ApiResult<String> {
        let tab = self.tab();
        tab.value(self.resolve(&tab).await?).await
    }

    /// `browser attr <name>`: an attribute's value.
    pub async fn attr(&self, name: &str) -> ApiResult<String> {
        let tab = self.tab();
        let selector = self.resolve(&tab).await?;
        let env = tab
            .call(observation::Attr {
                selector: selector.0,
                name: name.to_string(),
                target: tab.target().clone(),
            })
            .await?;
        read_value(&env)
    }

    /// `browser state`: visible, enabled, checked, focused, editable, selected.
    pub async fn state(&self) -> ApiResult<envelope::ElementState> {
        let tab = self.tab();
        let selector = self.resolve(&tab).await?;
        let env = tab
            .call(observation::State {
                selector: selector.0,
                target: tab.target().clone(),
            })
            .await?;
        take(&env, "element state", |d| match d {
            Data::State(s) => Some(s.state),
            _ => None,
        })
    }

    /// `browser eval <code> --element`: `code` runs with the element as `el`, in its frame.
    pub async fn eval(&self, code: &str) -> ApiResult<serde_json::Value> {
        let tab = self.tab();
        let selector = self.resolve(&tab).await?;
        tab.eval_request(Eval {
            element: Some(selector.0),
            ..Eval::new(code, tab.target().clone())
        })
        .await
    }

    /// [`Locator::eval`], its value decoded as `T`.
    pub async fn eval_as<T: DeserializeOwned>(&self, code: &str) -> ApiResult<T> {
        decode(envelope::CommandName::BrowserEval, self.eval(code).await?)
    }

    /// `browser query count`: how many elements match (CSS or XPath of the top document).
    pub async fn count(&self) -> ApiResult<u64> {
        self.tab().count(self.selector.clone()).await
    }

    /// `browser wait element --state <state>` (the selector as written: `nth` is not waited on).
    pub async fn wait_for(&self, state: ElementState) -> ApiResult<WaitData> {
        let tab = self.tab();
        let env = tab
            .call(crate::commands::waits::WaitElement {
                selector: self.selector.0.clone(),
                state: Some(state),
                target: tab.target().clone(),
            })
            .await?;
        wait_data(&env)
    }
}
