//! What the manuals library can fail with, and how each failure maps to an envelope error.

use std::path::PathBuf;

use envelope::{ErrorCode, ErrorInfo};
use serde_json::{Value, json};

/// Every failure of the manuals library. [`ManualsError::to_error_info`] is the one mapping to
/// envelope errors (code, message, details, hint).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManualsError {
    /// `get` / `areas delete` / `areas export` of an id the store (and the remote) do not have.
    #[error("no area with id '{area_id}'")]
    AreaNotFound {
        /// The id asked for.
        area_id: String,
    },
    /// An area id that is not `<host>:<path>:<name>`.
    #[error("invalid area id '{area_id}': {reason}")]
    InvalidAreaId {
        /// The id as given.
        area_id: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An argument outside its domain (page 0, an empty name, a bad URL ...).
    #[error("invalid {argument} '{value}': {reason}")]
    InvalidArgument {
        /// The argument (`page`, `page_size`, `url`, `name` ...).
        argument: &'static str,
        /// Its value as given.
        value: String,
        /// Why it is refused.
        reason: String,
    },
    /// A search query without a single word to search for (only punctuation, say).
    #[error("the query '{query}' has no words to search for")]
    EmptyQuery {
        /// The query as given.
        query: String,
    },
    /// The store file is not a database or is damaged.
    #[error("the manuals store {} is damaged ({reason})", path.display())]
    StoreCorrupt {
        /// The database file.
        path: PathBuf,
        /// SQLite's description.
        reason: String,
    },
    /// Another process holds the store's write lock for longer than the busy timeout.
    #[error("the manuals store {} is locked by another process", path.display())]
    StoreLocked {
        /// The database file.
        path: PathBuf,
    },
    /// The store was written by a newer actionbook whose schema this build does not know.
    #[error(
        "the manuals store {} has schema version {found}; this actionbook knows up to {known}",
        path.display()
    )]
    StoreTooNew {
        /// The database file.
        path: PathBuf,
        /// `PRAGMA user_version` found in the file.
        found: i64,
        /// The newest schema this build can use.
        known: i64,
    },
    /// Any other SQLite failure (disk full, permission denied ...).
    #[error("manuals store {}: {source}", path.display())]
    Store {
        /// The database file.
        path: PathBuf,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// A file could not be read (an import file, the config).
    #[error("cannot read {}: {source}", path.display())]
    ReadFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A file could not be written (the config, an agent guide, the store's folder).
    #[error("cannot write {}: {source}", path.display())]
    WriteFile {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An import file that is not an areas document.
    #[error("{source_name} is not an areas file: {reason}")]
    BadImport {
        /// The file (or `-` / a label for in-memory text).
        source_name: String,
        /// What is wrong.
        reason: String,
    },
    /// `manual <SITE>` for a site the store has no area of.
    #[error("no manual for site '{site}'")]
    SiteNotFound {
        /// The site asked for, normalised.
        site: String,
        /// Sites that do have manuals.
        available: Vec<String>,
    },
    /// `manual <SITE> <GROUP>` for a group the site does not have.
    #[error("site '{site}' has no group '{group}'")]
    GroupNotFound {
        /// The site.
        site: String,
        /// The group asked for.
        group: String,
        /// The site's groups.
        available: Vec<String>,
    },
    /// `manual <SITE> <GROUP> <ACTION>` for an action the group does not have.
    #[error("group '{group}' of site '{site}' has no action '{action}'")]
    ActionNotFound {
        /// The site.
        site: String,
        /// The group.
        group: String,
        /// The action asked for.
        action: String,
        /// The group's actions.
        available: Vec<String>,
    },
    /// A page that cannot become an area (no host, `about:blank`, a `data:` URL ...).
    #[error("the page {url} cannot be recorded: {reason}")]
    UnrecordablePage {
        /// The page URL.
        url: String,
        /// Why.
        reason: &'static str,
    },
    /// `config.toml` does not parse or has a value of the wrong type.
    #[error("invalid config file {}: {reason}", path.display())]
    BadConfig {
        /// The config file.
        path: PathBuf,
        /// The parser's message.
        reason: String,
    },
    /// `setup --browser X` where X is neither an executable file nor a program on `PATH`.
    #[error("browser '{given}' is not an executable file nor a program on PATH")]
    BrowserNotFound {
        /// The value given.
        given: String,
    },
    /// The remote manuals API failed and nothing local could answer instead.
    #[error("the actionbook API at {url} failed: {reason}")]
    Remote {
        /// The request URL (without the API key).
        url: String,
        /// What went wrong.
        reason: String,
    },
}

/// How to get a working store back, shown as the hint of store failures.
const REBUILD_HINT: &str = "move the file aside (or delete it) and run the command again: a fresh \
store with the bundled manuals is created; `actionbook areas import <file>` restores an export";

impl ManualsError {
    /// The envelope error code.
    pub fn code(&self) -> ErrorCode {
        use ManualsError as E;
        match self {
            E::AreaNotFound { .. }
            | E::SiteNotFound { .. }
            | E::GroupNotFound { .. }
            | E::ActionNotFound { .. } => ErrorCode::ElementNotFound,
            E::InvalidAreaId { .. }
            | E::InvalidArgument { .. }
            | E::EmptyQuery { .. }
            | E::BadImport { .. }
            | E::ReadFile { .. }
            | E::BadConfig { .. } => ErrorCode::InvalidArgument,
            E::UnrecordablePage { .. } => ErrorCode::UnsupportedOperation,
            E::BrowserNotFound { .. } => ErrorCode::BrowserNotFound,
            E::WriteFile { .. } => ErrorCode::ArtifactWriteFailed,
            E::Remote { .. } => ErrorCode::ApiError,
            E::StoreCorrupt { .. }
            | E::StoreLocked { .. }
            | E::StoreTooNew { .. }
            | E::Store { .. } => ErrorCode::InternalError,
        }
    }

    /// Whether running the same command again may succeed (a lock is released, a server recovers).
    pub fn retryable(&self) -> bool {
        matches!(
            self,
            ManualsError::StoreLocked { .. } | ManualsError::Remote { .. }
        )
    }

    /// Structured details for `error.details`.
    pub fn details(&self) -> Option<Value> {
        use ManualsError as E;
        Some(match self {
            E::AreaNotFound { area_id } | E::InvalidAreaId { area_id, .. } => {
                json!({ "area_id": area_id })
            }
            E::InvalidArgument {
                argument, value, ..
            } => json!({ "argument": argument, "value": value }),
            E::EmptyQuery { query } => json!({ "query": query }),
            E::StoreCorrupt { path, .. } | E::StoreLocked { path } | E::Store { path, .. } => {
                json!({ "path": path })
            }
            E::StoreTooNew { path, found, known } => {
                json!({ "path": path, "found": found, "known": known })
            }
            E::ReadFile { path, .. } | E::WriteFile { path, .. } | E::BadConfig { path, .. } => {
                json!({ "path": path })
            }
            E::BadImport { source_name, .. } => json!({ "path": source_name }),
            E::SiteNotFound { site, available } => json!({ "site": site, "available": available }),
            E::GroupNotFound {
                site,
                group,
                available,
            } => json!({ "site": site, "group": group, "available": available }),
            E::ActionNotFound {
                site,
                group,
                action,
                available,
            } => json!({ "site": site, "group": group, "action": action, "available": available }),
            E::UnrecordablePage { url, .. } => json!({ "url": url }),
            E::BrowserNotFound { given } => json!({ "browser": given }),
            E::Remote { url, .. } => json!({ "url": url }),
        })
    }

    /// A suggestion for the caller (`error.hint`).
    pub fn hint(&self) -> Option<String> {
        use ManualsError as E;
        Some(match self {
            E::AreaNotFound { .. } => {
                "find area ids with `actionbook search <words>` (or `actionbook areas list`)".into()
            }
            E::InvalidAreaId { .. } => {
                "an area id is <host>:<path>:<name>, e.g. google.com:/login:default".into()
            }
            E::EmptyQuery { .. } => "search for words, e.g. `actionbook search login`".into(),
            E::StoreCorrupt { .. } | E::StoreTooNew { .. } => REBUILD_HINT.into(),
            E::StoreLocked { .. } => {
                "another actionbook process is writing the store; retry in a moment".into()
            }
            E::SiteNotFound { available, .. } if !available.is_empty() => {
                format!("sites with manuals: {}", available.join(", "))
            }
            E::SiteNotFound { .. } => {
                "record a page with `actionbook areas record --session S --tab T` first".into()
            }
            E::GroupNotFound { available, .. } | E::ActionNotFound { available, .. } => {
                format!("available: {}", available.join(", "))
            }
            E::BrowserNotFound { .. } => {
                "pass the full path of a Chromium or Chrome executable, e.g. --browser /usr/bin/chromium"
                    .into()
            }
            E::BadConfig { .. } => "fix the file, or rewrite it with `actionbook setup --reset`".into(),
            E::UnrecordablePage { .. } => "navigate the tab to an http(s) or file page first".into(),
            _ => return None,
        })
    }

    /// The complete envelope error: code, message, retryable, details and hint.
    pub fn to_error_info(&self) -> ErrorInfo {
        let mut info =
            ErrorInfo::new(self.code(), self.to_string()).with_retryable(self.retryable());
        if let Some(d) = self.details() {
            info = info.with_details(d);
        }
        if let Some(h) = self.hint() {
            info = info.with_hint(h);
        }
        info
    }
}

/// `Result` with [`ManualsError`].
pub type Result<T, E = ManualsError> = std::result::Result<T, E>;
