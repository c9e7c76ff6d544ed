//! Action manuals (spec 6.1–6.3, plus `manual` and `areas …`): `search`, `get`, `manual`,
//! `areas import|export|list|delete`, `setup` over [`crate::manuals`], and `areas record`, which
//! turns a tab's page into an area ([`super::record`]).
//!
//! The store is SQLite (blocking): every call runs in `spawn_blocking`, on one [`Manuals`] per
//! home kept open between commands (`with_manuals`). The remote API settings come from the
//! caller's environment ([`ClientEnv`]) over `config.toml`, not from the daemon's.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use envelope::{AreaData, Document, RenderText, SearchData};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Cx, GlobalCommand};
use crate::error::{CliError, Result};
use crate::manuals::catalog::Answer;
use crate::manuals::config::{self, ConfigFile, Settings};
use crate::manuals::guide::{self, CommandInfo, GuideTarget};
use crate::manuals::mcp_config;
use crate::manuals::setup::{self, SetupOptions, Terminal};
use crate::manuals::{ManualRequest, Manuals, ManualsError, STORE_FILE, SearchQuery};
use crate::model::ClientEnv;
use crate::reply::Done;
use crate::store::Home;

/// `search <query>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Search {
    /// Search keywords (several words are one query).
    #[cfg_attr(feature = "cli", arg(required = true, num_args = 1.., value_name = "QUERY"))]
    #[serde(serialize_with = "join_words", deserialize_with = "split_words")]
    #[schemars(with = "String")]
    pub query: Vec<String>,
    /// Only areas of this domain (or its subdomains).
    #[cfg_attr(feature = "cli", arg(short = 'd', long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Only areas of this page or below it.
    #[cfg_attr(feature = "cli", arg(short = 'u', long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Page number, from 1 (default 1).
    #[cfg_attr(feature = "cli", arg(short = 'p', long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u64>,
    /// Items per page (default 10).
    #[cfg_attr(feature = "cli", arg(short = 's', long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_size: Option<u64>,
}

fn join_words<S: Serializer>(words: &[String], s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&words.join(" "))
}

fn split_words<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Vec<String>, D::Error> {
    // The words are joined with spaces on the wire; FTS splits on them anyway.
    Ok(String::deserialize(d)?
        .split_whitespace()
        .map(str::to_string)
        .collect())
}

/// `get <area_id>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Get {
    /// Area id (`<host>:<path>:<name>`, as `search` lists them).
    #[cfg_attr(feature = "cli", arg(value_name = "AREA_ID"))]
    pub area_id: String,
}

/// `manual <SITE> [GROUP] [ACTION]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Manual {
    /// The site (a host such as `example.com`, or a URL).
    #[cfg_attr(feature = "cli", arg(value_name = "SITE"))]
    pub site: String,
    /// A group of the site (locally: one recorded page area).
    #[cfg_attr(feature = "cli", arg(value_name = "GROUP"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// An action of the group (locally: one element).
    #[cfg_attr(feature = "cli", arg(value_name = "ACTION", requires = "group"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
}

/// `areas import <file.json>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct AreasImport {
    /// A file in the `areas export` format (relative to the caller's directory).
    #[cfg_attr(feature = "cli", arg(value_name = "FILE"))]
    pub file: PathBuf,
}

/// `areas export [area_id…]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct AreasExport {
    /// The areas to export (every area when none is named).
    #[cfg_attr(feature = "cli", arg(value_name = "AREA_ID"))]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub area_ids: Vec<String>,
}

/// `areas list [-d domain]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct AreasList {
    /// Only areas of this domain (or its subdomains).
    #[cfg_attr(feature = "cli", arg(short = 'd', long))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
}

/// `areas delete <area_id>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct AreasDelete {
    /// The area to delete.
    #[cfg_attr(feature = "cli", arg(value_name = "AREA_ID"))]
    pub area_id: String,
}

/// `setup`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::Args))]
pub struct Setup {
    /// Only install the usage guide for this agent (claude, codex, cursor, stdout).
    #[cfg_attr(
        feature = "cli",
        arg(long, value_name = "AGENT", conflicts_with_all = ["api_key", "browser", "reset"])
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The remote manuals API key (stored in config.toml, mode 0600).
    #[cfg_attr(feature = "cli", arg(long, value_name = "KEY"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// The browser executable: a path, a program on PATH, or `auto`.
    #[cfg_attr(feature = "cli", arg(long, value_name = "PATH"))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser: Option<String>,
    /// Do not ask anything (the default when stdin is not a terminal).
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default)]
    pub non_interactive: bool,
    /// Start from an empty configuration.
    #[cfg_attr(feature = "cli", arg(long))]
    #[serde(default)]
    pub reset: bool,
}

/// A manuals answer as handler output: its data (a typed value or a [`Document`]), pagination and
/// warnings.
fn done<T, D>(answer: Answer<T>, into: impl FnOnce(T) -> Result<D>) -> Result<Done<D>> {
    let mut d = Done::data(into(answer.data)?);
    d.warnings = answer.warnings;
    d.pagination = answer.pagination;
    Ok(d)
}

/// A producer-shaped value as envelope data.
pub(crate) fn document<T: Serialize + RenderText>(value: T) -> Result<Document> {
    crate::reply::document(&value)
}

/// The effective settings: `config.toml` of `home` under the caller's environment.
pub(crate) fn settings(
    home: &Path,
    env: &ClientEnv,
) -> std::result::Result<Settings, ManualsError> {
    let file = ConfigFile::load(&config::config_path(home))?;
    Ok(Settings::resolve(&file, &|name| env.var(name)))
}

/// One open catalogue per store file, reopened when the file was replaced or moved aside.
type Open = Arc<Mutex<(Manuals, Option<FileId>)>>;

/// Device and inode of a file (the identity that survives renames of others onto its path).
type FileId = (u64, u64);

fn file_id(path: &Path) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

fn open_catalogues() -> &'static Mutex<HashMap<PathBuf, Open>> {
    static OPEN: OnceLock<Mutex<HashMap<PathBuf, Open>>> = OnceLock::new();
    OPEN.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Runs `f` on the catalogue of `home` (opened, or reopened, as needed) with the caller's remote
/// settings, off the async workers.
pub(crate) async fn with_manuals<T, F>(home: &Home, env: &ClientEnv, f: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce(&mut Manuals) -> std::result::Result<T, ManualsError> + Send + 'static,
{
    let root = home.root().to_path_buf();
    let env = env.clone();
    tokio::task::spawn_blocking(move || -> Result<T> {
        let settings = settings(&root, &env)?;
        let remote = settings.remote()?;
        let path = root.join(STORE_FILE);
        let open = crate::session::lock(open_catalogues()).get(&path).cloned();
        let open = match open {
            Some(o) => o,
            None => {
                let m = Manuals::open(&path, None)?;
                let o: Open = Arc::new(Mutex::new((m, file_id(&path))));
                crate::session::lock(open_catalogues()).insert(path.clone(), o.clone());
                o
            }
        };
        let mut guard = crate::session::lock(&open);
        let now = file_id(&path);
        if now.is_none() || now != guard.1 {
            // Moved aside, deleted or replaced since it was opened: open what is there now.
            match Manuals::open(&path, None) {
                Ok(m) => *guard = (m, file_id(&path)),
                Err(e) => {
                    drop(guard);
                    crate::session::lock(open_catalogues()).remove(&path);
                    return Err(e.into());
                }
            }
        }
        guard.0.set_remote(remote);
        Ok(f(&mut guard.0)?)
    })
    .await
    .map_err(|e| CliError::internal(format!("manuals task failed: {e}")))?
}

impl GlobalCommand for Search {
    type Data = SearchData;

    async fn run(self, cx: &Cx<'_>) -> Result<Done<SearchData>> {
        let q = SearchQuery {
            text: self.query.join(" "),
            domain: self.domain,
            url: self.url,
            page: self.page.unwrap_or(1),
            page_size: self.page_size.unwrap_or(10),
        };
        let answer = with_manuals(cx.sessions.home(), cx.env, move |m| m.search(&q)).await?;
        done(answer, Ok)
    }
}

impl GlobalCommand for Get {
    type Data = AreaData;

    async fn run(self, cx: &Cx<'_>) -> Result<Done<AreaData>> {
        let answer =
            with_manuals(cx.sessions.home(), cx.env, move |m| m.get(&self.area_id)).await?;
        done(answer, Ok)
    }
}

impl GlobalCommand for Manual {
    type Data = Document;

    async fn run(self, cx: &Cx<'_>) -> Result<Done<Document>> {
        let req = ManualRequest {
            site: self.site,
            group: self.group,
            action: self.action,
        };
        let answer = with_manuals(cx.sessions.home(), cx.env, move |m| m.manual(&req)).await?;
        done(answer, document)
    }
}

impl GlobalCommand for AreasImport {
    type Data = Document;

    async fn run(self, cx: &Cx<'_>) -> Result<Done<Document>> {
        let file = cx.env.resolve_path(&self.file);
        let answer =
            with_manuals(cx.sessions.home(), cx.env, move |m| m.import_file(&file)).await?;
        done(answer, document)
    }
}

impl GlobalCommand for AreasExport {
    type Data = Document;

    async fn run(self, cx: &Cx<'_>) -> Result<Done<Document>> {
        let answer = with_manuals(cx.sessions.home(), cx.env, move |m| {
            m.export(&self.area_ids)
        })
        .await?;
        done(answer, document)
    }
}

impl GlobalCommand for AreasList {
    type Data = Document;

    async fn run(self, cx: &Cx<'_>) -> Result<Done<Document>> {
        let answer = with_manuals(cx.sessions.home(), cx.env, move |m| {
            m.list(self.domain.as_deref())
        })
        .await?;
        done(answer, document)
    }
}

impl GlobalCommand for AreasDelete {
    type Data = Document;

    async fn run(self, cx: &Cx<'_>) -> Result<Done<Document>> {
        let answer =
            with_manuals(cx.sessions.home(), cx.env, move |m| m.delete(&self.area_id)).await?;
        done(answer, document)
    }
}

/// Where `setup` runs: the homes and the environment of the process that asks.
#[derive(Debug, Clone)]
pub struct SetupEnv {
    /// `$ACTIONBOOK_HOME` (config.toml).
    pub home: PathBuf,
    /// The user's home (`$HOME`: where agents read their skills).
    pub user_home: Option<PathBuf>,
    /// `PATH`, to find a browser.
    pub path_var: OsString,
    /// The caller's environment, for what overrides the file.
    pub env: ClientEnv,
}

impl SetupEnv {
    /// This process's.
    pub fn from_process(home: &Home) -> SetupEnv {
        SetupEnv {
            home: home.root().to_path_buf(),
            user_home: std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from),
            path_var: std::env::var_os("PATH").unwrap_or_default(),
            env: ClientEnv::from_process(),
        }
    }
}

/// The command table as the guide lists it.
fn command_infos() -> Vec<CommandInfo> {
    super::extension::all_commands()
        .into_iter()
        .map(|c| CommandInfo {
            name: c.name.as_str().to_string(),
            summary: c.about.to_string(),
            example: c.example.to_string(),
            level: c.level,
        })
        .collect()
}

impl Setup {
    /// Runs `setup` in the asking process (it may need its terminal): `--target` installs the
    /// guide; otherwise interactive with a terminal, non-interactive without one (or with
    /// `--non-interactive`).
    pub fn run_here(
        self,
        senv: &SetupEnv,
        terminal: Option<&mut dyn Terminal>,
    ) -> std::result::Result<Document, CliError> {
        let lookup = |name: &str| senv.env.var(name);
        if let Some(target) = &self.target {
            let target: GuideTarget = target.parse()?;
            let user_home = senv.user_home.clone().ok_or_else(|| {
                CliError::InvalidArgument("HOME is not set: cannot place the guide".into())
            })?;
            let mut report = guide::install_guide(
                target,
                &user_home,
                env!("CARGO_PKG_VERSION"),
                &command_infos(),
            )?;
            let exe = std::env::current_exe().ok();
            let command = mcp_config::server_command(exe.as_deref(), &senv.path_var);
            report.mcp = Some(mcp_config::McpSnippet::new(target, &command));
            return document(report);
        }
        let report = match terminal {
            Some(t)
                if !self.non_interactive && self.api_key.is_none() && self.browser.is_none() =>
            {
                setup::setup_interactive(&senv.home, self.reset, t, &lookup, &senv.path_var)?
            }
            _ => setup::setup_non_interactive(
                &senv.home,
                &SetupOptions {
                    browser: self.browser,
                    api_key: self.api_key,
                    reset: self.reset,
                    ..SetupOptions::default()
                },
                &lookup,
                &senv.path_var,
            )?,
        };
        document(report)
    }
}

impl GlobalCommand for Setup {
    type Data = Document;

    /// In the daemon (or an in-process engine) there is no terminal: non-interactive.
    async fn run(self, cx: &Cx<'_>) -> Result<Done<Document>> {
        let mut senv = SetupEnv::from_process(cx.sessions.home());
        senv.env = cx.env.clone();
        let data = tokio::task::spawn_blocking(move || self.run_here(&senv, None))
            .await
            .map_err(|e| CliError::internal(format!("setup task failed: {e}")))??;
        Ok(Done::data(data))
    }
}

/// What `browser start` takes from `config.toml` when neither its flags nor the caller's
/// environment say: the headless default and the browser executable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct BrowserDefaults {
    /// `browser.headless`.
    pub headless: Option<bool>,
    /// `browser.executable_path`.
    pub executable: Option<PathBuf>,
    /// `browser.allowed_domains`.
    pub allowed_domains: Option<String>,
    /// `browser.confirm_actions`.
    pub confirm_actions: Option<String>,
    /// `browser.deny_actions`.
    pub deny_actions: Option<String>,
    /// Why the file was not used (unreadable, not TOML), for `meta.warnings`.
    pub warning: Option<String>,
}

/// Reads the browser defaults of `home`'s `config.toml` (off the async workers); a broken file
/// never stops a browser command, it only adds a warning.
pub(crate) async fn browser_defaults(home: &Home) -> BrowserDefaults {
    let path = config::config_path(home.root());
    let read = tokio::task::spawn_blocking(move || ConfigFile::load(&path)).await;
    match read {
        Ok(Ok(file)) => BrowserDefaults {
            headless: file.browser.headless,
            executable: file
                .browser
                .executable_path
                .filter(|p| !p.trim().is_empty())
                .map(PathBuf::from),
            allowed_domains: file
                .browser
                .allowed_domains
                .filter(|d| !d.trim().is_empty()),
            confirm_actions: file.browser.confirm_actions,
            deny_actions: file.browser.deny_actions,
            warning: None,
        },
        Ok(Err(e)) => BrowserDefaults {
            warning: Some(format!("{e}; its browser settings were not used")),
            ..BrowserDefaults::default()
        },
        Err(e) => BrowserDefaults {
            warning: Some(format!("config.toml was not read: {e}")),
            ..BrowserDefaults::default()
        },
    }
}
