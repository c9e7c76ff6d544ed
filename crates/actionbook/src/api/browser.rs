//! [`Browser`] (a backend, the caller's environment, a default timeout) and [`Session`] (one
//! browser session: its tabs, cookies, close and restart).

use std::sync::Arc;
use std::time::Duration;

use envelope::{Cookie, Data, Envelope, SessionInfo, TabInfo};

use super::backend::{Backend, Daemon};
use super::error::{ApiError, ApiResult};
use super::tab::Tab;
use crate::commands::lifecycle::{Close, ListSessions, Restart, Start};
use crate::commands::tabs::{ListTabs, NewTab};
use crate::commands::{Command, cookies};
use crate::engine::{Engine, EngineConfig, Request};
use crate::model::{ClientEnv, SessionId, SessionTarget, TabId, TabTarget};
use crate::store::Home;

/// Every handle's default timeout per call.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// What every handle carries: where requests run, the caller's environment, the timeout of a
/// call that names none.
#[derive(Debug, Clone)]
pub(crate) struct Link {
    backend: Arc<dyn Backend>,
    env: Arc<ClientEnv>,
    pub(crate) timeout: Duration,
}

impl Link {
    /// Runs `command` within `timeout`: its envelope when it succeeded, else its error.
    pub(crate) async fn run(
        &self,
        command: impl Into<Command>,
        timeout: Duration,
    ) -> ApiResult<Envelope> {
        let ms = u64::try_from(timeout.as_millis())
            .unwrap_or(u64::MAX)
            .max(1);
        let request = Request::new(command)
            .with_env((*self.env).clone())
            .with_timeout_ms(ms);
        let env = self.backend.execute(request).await;
        match env.error() {
            Some(info) => Err(ApiError::of(env.command(), info)),
            None => Ok(env),
        }
    }

    /// [`Link::run`] with the handle's default timeout.
    pub(crate) async fn call(&self, command: impl Into<Command>) -> ApiResult<Envelope> {
        self.run(command, self.timeout).await
    }
}

/// Reads the data of `env` with `pick`, or says what came instead.
pub(crate) fn take<T>(
    env: &Envelope,
    expected: &'static str,
    pick: impl FnOnce(&Data) -> Option<T>,
) -> ApiResult<T> {
    env.data()
        .and_then(pick)
        .ok_or_else(|| ApiError::unexpected(env, expected))
}

/// A document's JSON (the network, download and dialog commands answer one) decoded as `T`.
pub(crate) fn document<T: serde::de::DeserializeOwned>(env: &Envelope) -> ApiResult<T> {
    let json = take(env, "document", |d| match d {
        Data::Document(doc) => Some(doc.json().to_string()),
        _ => None,
    })?;
    serde_json::from_str(&json).map_err(|e| ApiError::Decode {
        command: env.command(),
        type_name: std::any::type_name::<T>(),
        reason: e.to_string(),
    })
}

/// The entry point: the engine in this process or the per-user daemon, with the environment and
/// default timeout every handle made from it uses. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Browser {
    link: Link,
}

impl Browser {
    /// Handles over `backend` (an [`Engine`], a [`Daemon`] or another [`Backend`]), with this
    /// process's environment ([`ClientEnv::from_process`]: `ACTIONBOOK_BROWSER_*` and the like).
    pub fn over(backend: impl Backend + 'static) -> Browser {
        Browser {
            link: Link {
                backend: Arc::new(backend),
                env: Arc::new(ClientEnv::from_process()),
                timeout: DEFAULT_TIMEOUT,
            },
        }
    }

    /// An engine in this process over `home` (no daemon; sessions persist there, and a later
    /// daemon re-attaches to them). Do not run one on a home a daemon serves.
    pub fn in_process(home: Home) -> ApiResult<Browser> {
        // The home could not be opened: reported as the start it prevents.
        let engine = Engine::new(EngineConfig { home })
            .map_err(|e| ApiError::of(envelope::CommandName::BrowserStart, &e.to_info()))?;
        Ok(Browser::over(engine))
    }

    /// The daemon already serving `home` (the CLI's): its sessions, shared with the CLI.
    pub fn daemon(home: Home) -> Browser {
        Browser::over(Daemon::attach(home))
    }

    /// The same handles with this client environment (browser executable, headless default,
    /// working directory, secrets, ...).
    #[must_use]
    pub fn with_env(mut self, env: ClientEnv) -> Browser {
        self.link.env = Arc::new(env);
        self
    }

    /// The same handles with another default timeout per call.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Browser {
        self.link.timeout = timeout;
        self
    }

    /// `browser start`: a new session (or an attach, with `set_session_id` / `cdp_endpoint`).
    pub async fn start(&self, start: Start) -> ApiResult<Session> {
        let env = self.link.call(start).await?;
        let data = take(&env, "start data", |d| match d {
            Data::Start(s) => Some(s.clone()),
            _ => None,
        })?;
        Ok(Session {
            link: self.link.clone(),
            id: SessionId::from(data.session.session_id.as_str()),
            first_tab: TabId::from(data.tab.tab_id.as_str()),
        })
    }

    /// A headless session on `url` (the common case of [`Browser::start`]).
    pub async fn start_headless(&self, url: &str) -> ApiResult<Session> {
        self.start(Start {
            headless: Some(true),
            open_url: Some(url.to_string()),
            ..Start::default()
        })
        .await
    }

    /// An open session by id (one the CLI started, say); fails with `SESSION_NOT_FOUND` when
    /// there is none.
    pub async fn attach(&self, id: impl Into<SessionId>) -> ApiResult<Session> {
        let id = id.into();
        let tabs = list_tabs(&self.link, &id).await?;
        let first_tab = tabs
            .first()
            .map(|t| TabId::from(t.tab_id.as_str()))
            .unwrap_or_else(|| TabId::from("t1"));
        Ok(Session {
            link: self.link.clone(),
            id,
            first_tab,
        })
    }

    /// `browser list-sessions`.
    pub async fn sessions(&self) -> ApiResult<Vec<SessionInfo>> {
        let env = self.link.call(ListSessions {}).await?;
        take(&env, "session list", |d| match d {
            Data::SessionList(l) => Some(l.sessions.clone()),
            _ => None,
        })
    }
}

async fn list_tabs(link: &Link, id: &SessionId) -> ApiResult<Vec<TabInfo>> {
    let env = link
        .call(ListTabs {
            target: SessionTarget::new(id.clone()),
        })
        .await?;
    take(&env, "tab list", |d| match d {
        Data::TabList(l) => Some(l.tabs.clone()),
        _ => None,
    })
}

/// One browser session. Cheap to clone; closing it is explicit ([`Session::close`]).
#[derive(Debug, Clone)]
pub struct Session {
    link: Link,
    id: SessionId,
    first_tab: TabId,
}

impl Session {
    /// Its id.
    pub fn id(&self) -> &SessionId {
        &self.id
    }

    fn target(&self) -> SessionTarget {
        SessionTarget::new(self.id.clone())
    }

    /// The tab `browser start` opened (or, attached, the first tab listed then).
    pub fn first_tab(&self) -> Tab {
        self.tab(self.first_tab.clone())
    }

    /// The tab `id` of this session (not checked until used).
    pub fn tab(&self, id: impl Into<TabId>) -> Tab {
        Tab::new(
            self.link.clone(),
            TabTarget {
                session: self.id.clone(),
                tab: id.into(),
            },
        )
    }

    /// `browser list-tabs`.
    pub async fn tabs(&self) -> ApiResult<Vec<TabInfo>> {
        list_tabs(&self.link, &self.id).await
    }

    /// `browser new-tab <url>`: the new tab.
    pub async fn new_tab(&self, url: &str) -> ApiResult<Tab> {
        let env = self
            .link
            .call(NewTab {
                urls: vec![url.to_string()],
                target: self.target(),
                new_window: false,
                window: None,
                tab_ids: Vec::new(),
            })
            .await?;
        let id = take(&env, "new tab", |d| match d {
            Data::NewTab(t) => Some(t.tab.tab_id.clone()),
            _ => None,
        })?;
        Ok(self.tab(id))
    }

    /// `browser restart`: the same session id and tab ids on a fresh browser.
    pub async fn restart(&self) -> ApiResult<()> {
        self.link
            .call(Restart {
                target: self.target(),
            })
            .await
            .map(drop)
    }

    /// `browser close`: the browser ends (a session attached over CDP is only let go).
    pub async fn close(&self) -> ApiResult<()> {
        self.link
            .call(Close {
                target: self.target(),
                purge: false,
            })
            .await
            .map(drop)
    }

    /// `browser cookies list` (every domain).
    pub async fn cookies(&self) -> ApiResult<Vec<Cookie>> {
        let env = self
            .link
            .call(cookies::CookiesList {
                target: self.target(),
                domain: None,
            })
            .await?;
        take(&env, "cookie list", |d| match d {
            Data::CookieList(l) => Some(l.items.clone()),
            _ => None,
        })
    }

    /// `browser cookies get <name>`: the cookie, or `None`.
    pub async fn cookie(&self, name: &str) -> ApiResult<Option<Cookie>> {
        let env = self
            .link
            .call(cookies::CookiesGet {
                name: name.to_string(),
                target: self.target(),
            })
            .await?;
        take(&env, "cookie", |d| match d {
            Data::CookieGet(c) => Some(c.item.clone()),
            _ => None,
        })
    }

    /// `browser cookies set <name> <value>` (for the current tab's URL unless `domain`).
    pub async fn set_cookie(&self, name: &str, value: &str, domain: Option<&str>) -> ApiResult<()> {
        self.link
            .call(cookies::CookiesSet {
                name: name.to_string(),
                value: value.to_string(),
                target: self.target(),
                domain: domain.map(str::to_string),
                path: None,
                secure: false,
                http_only: false,
                same_site: None,
                expires: None,
            })
            .await
            .map(drop)
    }

    /// `browser cookies clear` (every domain).
    pub async fn clear_cookies(&self) -> ApiResult<()> {
        self.link
            .call(cookies::CookiesClear {
                target: self.target(),
                domain: None,
            })
            .await
            .map(drop)
    }
}
