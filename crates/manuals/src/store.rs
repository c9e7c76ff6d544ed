//! The local store: one SQLite file (normally `$ACTIONBOOK_HOME/manuals.db`) holding areas, with
//! an FTS5 index over their text.
//!
//! Everything here is blocking: the engine calls it from `tokio::task::spawn_blocking` (one
//! [`Store`] behind a `std::sync::Mutex`, locked only inside the blocking closure, is enough; there
//! are no awaits in this module, so no lock is ever held across one).
//!
//! # Schema (version 1, kept in `PRAGMA user_version`)
//!
//! - `areas`: one row per area (`area_id` unique; `host`/`path`/`name` split out for filters;
//!   `elements` as a JSON array; `elements_text` the words the index gets from the elements;
//!   `recorded_at` in ms; `origin` = `recorded` | `imported` | `bundled`).
//! - `areas_fts`: FTS5 over `area_id, title, summary, description, elements_text, host`,
//!   external content from `areas`, kept in step by triggers.
//! - `meta`: key/value (`bundled_version`: which bundled manuals were loaded).
//!
//! A later schema adds one entry to `MIGRATIONS`; opening an older file runs the missing steps in
//! one transaction, and a file newer than this build is refused ([`ManualsError::StoreTooNew`]).

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use std::time::Duration;

use envelope::{AreaElement, SearchItem};
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior, params};
use serde::{Deserialize, Serialize};

use super::area::{Area, normalize_site};
use super::bundled;
use super::error::{ManualsError, Result};
use super::fts;
use super::ranking::Ranking;
use super::time::Timestamp;

/// Schema steps: entry `i` turns version `i` into version `i + 1`.
pub(crate) const MIGRATIONS: &[&str] = &[SCHEMA_V1];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Largest `page_size` a search accepts.
pub const MAX_PAGE_SIZE: u64 = 100;

/// bm25 column weights, in index column order (host is only there for the domain filter: its
/// words already count through area_id). Whole numbers, so that a word's weighted count in a
/// row is exact however it is summed (the in-memory ranking relies on it).
pub(crate) const COLUMN_WEIGHTS: &[(&str, u32)] = &[
    ("area_id", 3),
    ("title", 10),
    ("summary", 4),
    ("description", 2),
    ("elements_text", 1),
    ("host", 0),
];

/// `bm25(areas_fts, <COLUMN_WEIGHTS>)`.
static BM25: LazyLock<String> = LazyLock::new(|| {
    let weights: Vec<String> = COLUMN_WEIGHTS
        .iter()
        .map(|(_, w)| format!("{w}.0"))
        .collect();
    format!("bm25(areas_fts, {})", weights.join(", "))
});

const SCHEMA_V1: &str = "
CREATE TABLE areas (
    id            INTEGER PRIMARY KEY,
    area_id       TEXT NOT NULL UNIQUE,
    host          TEXT NOT NULL,
    path          TEXT NOT NULL,
    name          TEXT NOT NULL,
    title         TEXT NOT NULL,
    summary       TEXT NOT NULL,
    url           TEXT NOT NULL,
    description   TEXT NOT NULL,
    elements      TEXT NOT NULL,
    elements_text TEXT NOT NULL,
    recorded_at   INTEGER NOT NULL,
    recorded_from TEXT NOT NULL,
    origin        TEXT NOT NULL
);
CREATE INDEX areas_host ON areas(host);
CREATE VIRTUAL TABLE areas_fts USING fts5(
    area_id, title, summary, description, elements_text, host,
    content = 'areas', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER areas_ai AFTER INSERT ON areas BEGIN
    INSERT INTO areas_fts(rowid, area_id, title, summary, description, elements_text, host)
    VALUES (new.id, new.area_id, new.title, new.summary, new.description, new.elements_text, new.host);
END;
CREATE TRIGGER areas_ad AFTER DELETE ON areas BEGIN
    INSERT INTO areas_fts(areas_fts, rowid, area_id, title, summary, description, elements_text, host)
    VALUES ('delete', old.id, old.area_id, old.title, old.summary, old.description, old.elements_text, old.host);
END;
CREATE TRIGGER areas_au AFTER UPDATE ON areas BEGIN
    INSERT INTO areas_fts(areas_fts, rowid, area_id, title, summary, description, elements_text, host)
    VALUES ('delete', old.id, old.area_id, old.title, old.summary, old.description, old.elements_text, old.host);
    INSERT INTO areas_fts(rowid, area_id, title, summary, description, elements_text, host)
    VALUES (new.id, new.area_id, new.title, new.summary, new.description, new.elements_text, new.host);
END;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
";

/// Where a stored area came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// `areas record` on a live page.
    Recorded,
    /// `areas import`.
    Imported,
    /// Shipped with actionbook (the demo and fixture pages).
    Bundled,
}

impl Origin {
    fn as_str(self) -> &'static str {
        match self {
            Origin::Recorded => "recorded",
            Origin::Imported => "imported",
            Origin::Bundled => "bundled",
        }
    }

    fn parse(s: &str) -> Origin {
        match s {
            "recorded" => Origin::Recorded,
            "bundled" => Origin::Bundled,
            _ => Origin::Imported,
        }
    }
}

/// Whether an upsert added an area or replaced one with the same id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Upsert {
    /// A new area.
    Created,
    /// An area with this id existed and was replaced.
    Updated,
}

/// One line of [`Store::list`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AreaListItem {
    /// The area id.
    pub area_id: String,
    /// Its title.
    pub title: String,
    /// Its page URL.
    pub url: String,
    /// How many elements it has.
    pub elements: u64,
    /// When it was recorded.
    pub recorded_at: Timestamp,
    /// Where it came from.
    pub origin: Origin,
}

/// A search: words, optional filters, and the page wanted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchQuery {
    /// The user's words (any text; see [`fts`]).
    pub text: String,
    /// Only areas of this host or its subdomains (`-d`).
    pub domain: Option<String>,
    /// Only areas of this page or below it (`-u`): same host, path equal or under it.
    pub url: Option<String>,
    /// 1-based page.
    pub page: u64,
    /// Items per page, 1..=[`MAX_PAGE_SIZE`].
    pub page_size: u64,
}

impl SearchQuery {
    /// Page 1 of 10 items for `text`, unfiltered (the spec's defaults).
    pub fn new(text: impl Into<String>) -> SearchQuery {
        SearchQuery {
            text: text.into(),
            domain: None,
            url: None,
            page: 1,
            page_size: 10,
        }
    }

    /// Refuses page 0 and page sizes outside 1..=[`MAX_PAGE_SIZE`].
    pub fn validate(&self) -> Result<()> {
        if self.page == 0 {
            return Err(ManualsError::InvalidArgument {
                argument: "page",
                value: "0".into(),
                reason: "pages are numbered from 1".into(),
            });
        }
        if self.page_size == 0 || self.page_size > MAX_PAGE_SIZE {
            return Err(ManualsError::InvalidArgument {
                argument: "page_size",
                value: self.page_size.to_string(),
                reason: format!("the page size is 1 to {MAX_PAGE_SIZE}"),
            });
        }
        Ok(())
    }

    fn offset(&self) -> u64 {
        (self.page - 1).saturating_mul(self.page_size)
    }
}

/// One page of local search results.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchPage {
    /// The hits on this page, best first.
    pub items: Vec<SearchItem>,
    /// Hits across all pages.
    pub total: u64,
}

/// Which ranking a search uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ranker {
    /// The in-memory ranking when it is ready, else SQL.
    Any,
    /// FTS5's `bm25()` in SQL (the reference the in-memory one is tested against).
    Sql,
}

/// Options for [`Store::open_with`].
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// How long a write waits for another process's lock before [`ManualsError::StoreLocked`].
    pub busy_timeout: Duration,
    /// Load the bundled manuals into a fresh store (and refresh them when a newer build ships
    /// newer ones).
    pub bundled: bool,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            busy_timeout: Duration::from_secs(2),
            bundled: true,
        }
    }
}

/// An open store. Not `Sync`: share it behind a `Mutex` (see the module docs).
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// The in-memory copy of the index that ranks searches (see [`super::ranking`]).
    ranking: RefCell<Ranking>,
}

const AREA_COLUMNS: &str =
    "area_id, title, summary, url, description, elements, recorded_at, recorded_from";

impl Store {
    /// Opens (creating and migrating as needed) the store at `path`, with the bundled manuals.
    pub fn open(path: &Path) -> Result<Store> {
        Store::open_with(path, &StoreOptions::default())
    }

    /// [`Store::open`] with options.
    pub fn open_with(path: &Path, options: &StoreOptions) -> Result<Store> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| ManualsError::WriteFile {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| classify(path, e))?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
            ranking: RefCell::new(Ranking::new(path, COLUMN_WEIGHTS)),
        };
        store
            .conn
            .busy_timeout(options.busy_timeout)
            .map_err(|e| classify(path, e))?;
        // WAL: readers (search) never wait for a writer (record); also the first read of the
        // file, so a file that is not a database fails here.
        store
            .conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(()))
            .map_err(|e| classify(path, e))?;
        store.migrate(MIGRATIONS)?;
        if options.bundled {
            store.refresh_bundled()?;
        }
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Moves a damaged store (and its `-wal` / `-shm` files) aside as
    /// `<file>.corrupt-<unix ms>`, so the next [`Store::open`] starts fresh; returns the new name.
    pub fn set_aside(path: &Path) -> Result<PathBuf> {
        let stamp = Timestamp::now().as_millis();
        let mut aside = path.as_os_str().to_owned();
        aside.push(format!(".corrupt-{stamp}"));
        let aside = PathBuf::from(aside);
        std::fs::rename(path, &aside).map_err(|source| ManualsError::WriteFile {
            path: path.to_path_buf(),
            source,
        })?;
        for suffix in ["-wal", "-shm"] {
            let mut side = path.as_os_str().to_owned();
            side.push(suffix);
            // Stale WAL/SHM files of the old database must not be applied to the new one.
            let _ = std::fs::remove_file(PathBuf::from(side));
        }
        Ok(aside)
    }

    /// The connection, for tests that tamper with the file.
    #[cfg(test)]
    pub(crate) fn conn_for_tests(&self) -> &Connection {
        &self.conn
    }

    fn err(&self, e: rusqlite::Error) -> ManualsError {
        classify(&self.path, e)
    }

    /// Runs the missing schema steps of `migrations` in one transaction.
    pub(crate) fn migrate(&mut self, migrations: &[&str]) -> Result<()> {
        self.ranking.get_mut().invalidate();
        let known = migrations.len() as i64;
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| classify(&path, e))?;
        let found: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| classify(&path, e))?;
        if found > known {
            return Err(ManualsError::StoreTooNew { path, found, known });
        }
        if found == known {
            return Ok(());
        }
        for step in &migrations[found as usize..] {
            tx.execute_batch(step).map_err(|e| classify(&path, e))?;
        }
        tx.pragma_update(None, "user_version", known)
            .map_err(|e| classify(&path, e))?;
        tx.commit().map_err(|e| classify(&path, e))
    }

    /// The schema version in the file.
    pub fn schema_version(&self) -> Result<i64> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// Loads the bundled manuals when the store has an older set (or none): bundled areas are
    /// added or replaced, areas the user recorded or imported under the same id are kept.
    fn refresh_bundled(&mut self) -> Result<()> {
        self.ranking.get_mut().invalidate();
        let loaded: Option<i64> = self
            .conn
            .query_row(
                "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'bundled_version'",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        if loaded.is_some_and(|v| v >= bundled::BUNDLED_VERSION) {
            return Ok(());
        }
        let areas = bundled::areas()?;
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| classify(&path, e))?;
        // Bundled areas of an older set that this one no longer has (ids that changed) go.
        let keep: Vec<&str> = areas.iter().map(|a| a.area_id.as_str()).collect();
        let stale: Vec<String> = {
            let mut stmt = tx
                .prepare("SELECT area_id FROM areas WHERE origin = ?1")
                .map_err(|e| classify(&path, e))?;
            let ids = stmt
                .query_map([Origin::Bundled.as_str()], |r| r.get::<_, String>(0))
                .map_err(|e| classify(&path, e))?;
            ids.collect::<rusqlite::Result<Vec<String>>>()
                .map_err(|e| classify(&path, e))?
                .into_iter()
                .filter(|id| !keep.contains(&id.as_str()))
                .collect()
        };
        for id in &stale {
            tx.execute("DELETE FROM areas WHERE area_id = ?1", [id])
                .map_err(|e| classify(&path, e))?;
        }
        for area in &areas {
            let origin: Option<String> = tx
                .query_row(
                    "SELECT origin FROM areas WHERE area_id = ?1",
                    [&area.area_id],
                    |r| r.get(0),
                )
                .optional()
                .map_err(|e| classify(&path, e))?;
            if origin.is_none_or(|o| o == Origin::Bundled.as_str()) {
                upsert_row(&tx, &path, area, Origin::Bundled)?;
            }
        }
        tx.execute(
            "INSERT INTO meta(key, value) VALUES ('bundled_version', ?1)
             ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [bundled::BUNDLED_VERSION.to_string()],
        )
        .map_err(|e| classify(&path, e))?;
        tx.commit().map_err(|e| classify(&path, e))
    }

    /// Adds `area`, or replaces the area with the same id (re-recording a page never duplicates
    /// it).
    pub fn upsert(&mut self, area: &Area, origin: Origin) -> Result<Upsert> {
        let outcomes = self.upsert_all(std::slice::from_ref(area), origin)?;
        Ok(outcomes.first().copied().unwrap_or(Upsert::Created))
    }

    /// Adds or replaces every area in one transaction (all or nothing).
    pub fn upsert_all(&mut self, areas: &[Area], origin: Origin) -> Result<Vec<Upsert>> {
        for a in areas {
            a.id()?;
        }
        self.ranking.get_mut().invalidate();
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| classify(&path, e))?;
        let mut outcomes = Vec::with_capacity(areas.len());
        for a in areas {
            outcomes.push(upsert_row(&tx, &path, a, origin)?);
        }
        tx.commit().map_err(|e| classify(&path, e))?;
        Ok(outcomes)
    }

    /// The area with this id, if stored.
    pub fn find(&self, area_id: &str) -> Result<Option<Area>> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {AREA_COLUMNS} FROM areas WHERE area_id = ?1"
            ))
            .map_err(|e| self.err(e))?;
        let raw = stmt
            .query_row([area_id], RawArea::from_row)
            .optional()
            .map_err(|e| self.err(e))?;
        raw.map(|r| r.into_area(&self.path)).transpose()
    }

    /// The area with this id, or [`ManualsError::AreaNotFound`] (a malformed id is
    /// [`ManualsError::InvalidAreaId`]).
    pub fn get(&self, area_id: &str) -> Result<Area> {
        match self.find(area_id)? {
            Some(a) => Ok(a),
            None => {
                area_id.parse::<super::area::AreaId>()?;
                Err(ManualsError::AreaNotFound {
                    area_id: area_id.to_string(),
                })
            }
        }
    }

    /// Removes the area; [`ManualsError::AreaNotFound`] when there is none with this id.
    pub fn delete(&mut self, area_id: &str) -> Result<()> {
        self.ranking.get_mut().invalidate();
        let n = self
            .conn
            .execute("DELETE FROM areas WHERE area_id = ?1", [area_id])
            .map_err(|e| self.err(e))?;
        if n == 0 {
            return Err(ManualsError::AreaNotFound {
                area_id: area_id.to_string(),
            });
        }
        Ok(())
    }

    /// Every area (of `domain` and its subdomains, when given), by id.
    pub fn list(&self, domain: Option<&str>) -> Result<Vec<AreaListItem>> {
        let domain = domain.map(normalize_site);
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT area_id, title, url, json_array_length(elements), recorded_at, origin
                 FROM areas a WHERE ?1 IS NULL OR a.host = ?1 OR substr(a.host, -length(?1) - 1) = '.' || ?1
                 ORDER BY area_id",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([domain], |r| {
                Ok(AreaListItem {
                    area_id: r.get(0)?,
                    title: r.get(1)?,
                    url: r.get(2)?,
                    elements: non_negative(r.get(3)?),
                    recorded_at: Timestamp::from_millis(r.get(4)?),
                    origin: Origin::parse(&r.get::<_, String>(5)?),
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<std::result::Result<_, _>>()
            .map_err(|e| self.err(e))
    }

    /// The areas with these ids, in the order given (every area, by id, when `ids` is empty);
    /// [`ManualsError::AreaNotFound`] for the first unknown id.
    pub fn areas(&self, ids: &[String]) -> Result<Vec<Area>> {
        if ids.is_empty() {
            return self.areas_where("1 = 1", &[]);
        }
        ids.iter().map(|id| self.get(id)).collect()
    }

    /// Every area of `host` exactly (the `manual` site), by id.
    pub fn areas_of_host(&self, host: &str) -> Result<Vec<Area>> {
        self.areas_where("host = ?1", &[host])
    }

    fn areas_where(&self, condition: &str, args: &[&str]) -> Result<Vec<Area>> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {AREA_COLUMNS} FROM areas WHERE {condition} ORDER BY area_id"
            ))
            .map_err(|e| self.err(e))?;
        let raw: Vec<RawArea> = stmt
            .query_map(rusqlite::params_from_iter(args), RawArea::from_row)
            .map_err(|e| self.err(e))?
            .collect::<std::result::Result<_, _>>()
            .map_err(|e| self.err(e))?;
        raw.into_iter().map(|r| r.into_area(&self.path)).collect()
    }

    /// Hosts that have areas, sorted.
    pub fn hosts(&self) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT DISTINCT host FROM areas ORDER BY host")
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map([], |r| r.get(0)).map_err(|e| self.err(e))?;
        rows.collect::<std::result::Result<_, _>>()
            .map_err(|e| self.err(e))
    }

    /// How many areas are stored.
    pub fn count(&self) -> Result<u64> {
        self.conn
            .query_row("SELECT count(*) FROM areas", [], |r| r.get(0))
            .map(non_negative)
            .map_err(|e| self.err(e))
    }

    /// Ranked full-text search: bm25 over title, summary, description, element text and the id's
    /// words, best first, ties by area id. `score` is the hit's bm25 relative to the best hit of
    /// the whole result (the best is 1, every score is in (0, 1]), rounded to two decimals.
    ///
    /// Every hit's bm25 comes from the in-memory copy of the index when it is current (see
    /// `ranking`), else from one FTS5 pass (where a filter adds a host phrase to the
    /// match so that only that host's areas are ranked); both then check the exact host and
    /// path. Sorting, paging and tie-breaking happen here, and only the rows of the page asked
    /// for are read from `areas`.
    pub fn search(&self, q: &SearchQuery) -> Result<SearchPage> {
        q.validate()?;
        let start = usize::try_from(q.offset()).unwrap_or(usize::MAX);
        let count = usize::try_from(q.page_size).unwrap_or(usize::MAX);
        self.search_range(q, start, count)
    }

    /// [`Store::search`] of hits `start..start + count` of the ranked list, whatever `q`'s page
    /// and page size (the catalogue takes the first few hundred to merge with a remote).
    pub(crate) fn search_range(
        &self,
        q: &SearchQuery,
        start: usize,
        count: usize,
    ) -> Result<SearchPage> {
        self.search_range_with(q, start, count, Ranker::Any)
    }

    /// [`Store::search_range`] ranked by `ranker`.
    pub(crate) fn search_range_with(
        &self,
        q: &SearchQuery,
        start: usize,
        count: usize,
        ranker: Ranker,
    ) -> Result<SearchPage> {
        let words = fts::words(&q.text);
        let Some(terms) = fts::match_expression(&q.text) else {
            return Err(ManualsError::EmptyQuery {
                query: q.text.clone(),
            });
        };
        let domain = q.domain.as_deref().map(normalize_site);
        let url_filter = match q.url.as_deref() {
            Some(u) => {
                let (h, p) =
                    super::area::host_and_path(u).map_err(|_| ManualsError::InvalidArgument {
                        argument: "url",
                        value: u.to_string(),
                        reason: "expected an http(s) or file URL".into(),
                    })?;
                Some((h, p.trim_end_matches('/').to_string()))
            }
            None => None,
        };
        // The host phrase narrows the SQL match to (a superset of) the filtered hosts.
        let mut expr = format!("({terms})");
        for host in [
            domain.as_deref(),
            url_filter.as_ref().map(|(h, _)| h.as_str()),
        ]
        .into_iter()
        .flatten()
        {
            match fts::phrase(host) {
                Some(p) => expr = format!("host : {p} AND {expr}"),
                None => {
                    return Ok(SearchPage {
                        items: Vec::new(),
                        total: 0,
                    });
                }
            }
        }
        let keep = |host: &str, path: &str| {
            let domain_ok = domain.as_deref().is_none_or(|d| {
                host == d || host.strip_suffix(d).is_some_and(|s| s.ends_with('.'))
            });
            let url_ok = url_filter.as_ref().is_none_or(|(h, p)| {
                host == h
                    && (p.is_empty()
                        || path == p
                        || path
                            .strip_prefix(p.as_str())
                            .is_some_and(|rest| rest.starts_with('/')))
            });
            domain_ok && url_ok
        };
        let in_memory = match ranker {
            Ranker::Any => self.rank_in_memory(&words, &keep),
            Ranker::Sql => None,
        };
        let mut hits = match in_memory {
            Some(hits) => hits,
            None => self.rank_by_sql(&expr, domain.is_some() || url_filter.is_some(), &keep)?,
        };
        let total = hits.len() as u64;
        hits.sort_by(|a, b| a.0.total_cmp(&b.0));
        let best = hits.first().map_or(0.0, |h| h.0);
        let start = start.min(hits.len());
        let end = start.saturating_add(count).min(hits.len());
        if start == end {
            return Ok(SearchPage {
                items: Vec::new(),
                total,
            });
        }
        // Widen the page to whole groups of equal rank, so ties can be ordered by area id.
        let mut lo = start;
        while lo > 0 && hits[lo - 1].0 == hits[start].0 {
            lo -= 1;
        }
        let mut hi = end;
        while hi < hits.len() && hits[hi].0 == hits[end - 1].0 {
            hi += 1;
        }
        let mut rows = self.items_by_rowid(&hits[lo..hi])?;
        rows.sort_by(|a, b| {
            a.1.total_cmp(&b.1)
                .then_with(|| a.0.area_id.cmp(&b.0.area_id))
        });
        let items = rows
            .into_iter()
            .skip(start - lo)
            .take(end - start)
            .map(|(mut item, rank)| {
                item.score = relative_score(rank, best);
                item
            })
            .collect();
        Ok(SearchPage { items, total })
    }

    /// `(bm25, rowid)` of every hit, ranked by FTS5; with `filtered`, `expr` holds the host
    /// phrase and `keep` decides on the exact host and path.
    fn rank_by_sql(
        &self,
        expr: &str,
        filtered: bool,
        keep: &dyn Fn(&str, &str) -> bool,
    ) -> Result<Vec<(f64, i64)>> {
        let bm25 = &*BM25;
        let sql = if filtered {
            format!(
                "SELECT areas_fts.rowid, {bm25}, a.host, a.path
                 FROM areas_fts JOIN areas a ON a.id = areas_fts.rowid WHERE areas_fts MATCH ?1"
            )
        } else {
            format!("SELECT rowid, {bm25} FROM areas_fts WHERE areas_fts MATCH ?1")
        };
        let mut hits: Vec<(f64, i64)> = Vec::new();
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let mut rows = stmt.query([expr]).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            if filtered {
                let host: String = r.get(2).map_err(|e| self.err(e))?;
                let path: String = r.get(3).map_err(|e| self.err(e))?;
                if !keep(&host, &path) {
                    continue;
                }
            }
            hits.push((
                r.get(1).map_err(|e| self.err(e))?,
                r.get(0).map_err(|e| self.err(e))?,
            ));
        }
        Ok(hits)
    }

    /// The hits ranked from the in-memory index, when it is built for the file as it is now
    /// (else its build starts, and `None`: SQL answers this one).
    fn rank_in_memory(
        &self,
        words: &[fts::QueryWord],
        keep: &dyn Fn(&str, &str) -> bool,
    ) -> Option<Vec<(f64, i64)>> {
        let version = self.data_version().ok()?;
        let mut ranking = self.ranking.borrow_mut();
        let index = ranking.ready(version, None)?;
        let tokens = ranking.tokens(words)?;
        Some(index.rank(&tokens, keep))
    }

    /// Changes whenever another connection committed to the file.
    fn data_version(&self) -> Result<i64> {
        self.conn
            .query_row("PRAGMA data_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// [`Store::search`] ranked by FTS5's `bm25()` in SQL, never by the in-memory copy (for
    /// benches comparing the two).
    #[doc(hidden)]
    pub fn search_by_sql(&self, q: &SearchQuery) -> Result<SearchPage> {
        q.validate()?;
        let start = usize::try_from(q.offset()).unwrap_or(usize::MAX);
        let count = usize::try_from(q.page_size).unwrap_or(usize::MAX);
        self.search_range_with(q, start, count, Ranker::Sql)
    }

    /// Builds the in-memory ranking now, waiting up to `timeout`; whether searches use it
    /// (false: still building, or the store is too large for it). For benches and tests: a
    /// store builds it by itself on its first search.
    #[doc(hidden)]
    pub fn wait_for_ranking(&self, timeout: Duration) -> bool {
        let Ok(version) = self.data_version() else {
            return false;
        };
        self.ranking
            .borrow_mut()
            .ready(version, Some(timeout))
            .is_some()
    }

    /// The search items of these (rank, rowid) hits, with their ranks.
    fn items_by_rowid(&self, hits: &[(f64, i64)]) -> Result<Vec<(SearchItem, f64)>> {
        let rank_of: std::collections::HashMap<i64, f64> =
            hits.iter().map(|(r, id)| (*id, *r)).collect();
        let mut out = Vec::with_capacity(hits.len());
        for chunk in hits.chunks(500) {
            let marks = vec!["?"; chunk.len()].join(",");
            let mut stmt = self
                .conn
                .prepare(&format!(
                    "SELECT id, area_id, title, summary, url FROM areas WHERE id IN ({marks})"
                ))
                .map_err(|e| self.err(e))?;
            let mut rows = stmt
                .query(rusqlite::params_from_iter(chunk.iter().map(|(_, id)| id)))
                .map_err(|e| self.err(e))?;
            while let Some(r) = rows.next().map_err(|e| self.err(e))? {
                let id: i64 = r.get(0).map_err(|e| self.err(e))?;
                out.push((
                    SearchItem {
                        area_id: r.get(1).map_err(|e| self.err(e))?,
                        title: r.get(2).map_err(|e| self.err(e))?,
                        summary: r.get(3).map_err(|e| self.err(e))?,
                        score: 0.0,
                        url: r.get(4).map_err(|e| self.err(e))?,
                    },
                    rank_of.get(&id).copied().unwrap_or(0.0),
                ));
            }
        }
        Ok(out)
    }
}

/// A count from SQLite (an `i64` that is never negative) as `u64`.
fn non_negative(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

/// bm25 ranks are negative, lower is better; the best becomes 1 and the rest their share of it.
fn relative_score(rank: f64, best: f64) -> f64 {
    if best >= 0.0 || best.is_nan() || !rank.is_finite() {
        return 1.0;
    }
    ((rank / best).clamp(0.0, 1.0) * 100.0).round() / 100.0
}

fn upsert_row(
    tx: &rusqlite::Transaction<'_>,
    path: &Path,
    area: &Area,
    origin: Origin,
) -> Result<Upsert> {
    let id = area.id()?;
    let sql_err = |e| classify(path, e);
    let existed: bool = tx
        .query_row(
            "SELECT EXISTS(SELECT 1 FROM areas WHERE area_id = ?1)",
            [&area.area_id],
            |r| r.get(0),
        )
        .map_err(sql_err)?;
    // Serialising plain strings and vectors of strings cannot fail.
    let elements = serde_json::to_string(&area.elements).unwrap_or_else(|_| "[]".into());
    let mut stmt = tx.prepare_cached(
        "INSERT INTO areas(area_id, host, path, name, title, summary, url, description, elements,
                           elements_text, recorded_at, recorded_from, origin)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
         ON CONFLICT(area_id) DO UPDATE SET
            host = excluded.host, path = excluded.path, name = excluded.name,
            title = excluded.title, summary = excluded.summary, url = excluded.url,
            description = excluded.description, elements = excluded.elements,
            elements_text = excluded.elements_text, recorded_at = excluded.recorded_at,
            recorded_from = excluded.recorded_from, origin = excluded.origin",
    ).map_err(sql_err)?;
    stmt.execute(params![
        area.area_id,
        id.host(),
        id.path(),
        id.name(),
        area.title,
        area.summary,
        area.url,
        area.description,
        elements,
        area.elements_text(),
        area.recorded_at.as_millis(),
        area.recorded_from,
        origin.as_str(),
    ])
    .map_err(sql_err)?;
    Ok(if existed {
        Upsert::Updated
    } else {
        Upsert::Created
    })
}

/// A row as read, before the elements JSON is decoded.
struct RawArea {
    area_id: String,
    title: String,
    summary: String,
    url: String,
    description: String,
    elements: String,
    recorded_at: i64,
    recorded_from: String,
}

impl RawArea {
    fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawArea> {
        Ok(RawArea {
            area_id: r.get(0)?,
            title: r.get(1)?,
            summary: r.get(2)?,
            url: r.get(3)?,
            description: r.get(4)?,
            elements: r.get(5)?,
            recorded_at: r.get(6)?,
            recorded_from: r.get(7)?,
        })
    }

    fn into_area(self, path: &Path) -> Result<Area> {
        let elements: Vec<AreaElement> =
            serde_json::from_str(&self.elements).map_err(|e| ManualsError::StoreCorrupt {
                path: path.to_path_buf(),
                reason: format!("the elements of {} do not decode: {e}", self.area_id),
            })?;
        Ok(Area {
            area_id: self.area_id,
            title: self.title,
            summary: self.summary,
            url: self.url,
            description: self.description,
            elements,
            recorded_at: Timestamp::from_millis(self.recorded_at),
            recorded_from: self.recorded_from,
        })
    }
}

/// Sorts SQLite failures into the store errors a user can act on.
fn classify(path: &Path, e: rusqlite::Error) -> ManualsError {
    use rusqlite::ErrorCode as C;
    let path = path.to_path_buf();
    match e.sqlite_error_code() {
        Some(C::NotADatabase | C::DatabaseCorrupt) => ManualsError::StoreCorrupt {
            path,
            reason: e.to_string(),
        },
        Some(C::DatabaseBusy | C::DatabaseLocked) => ManualsError::StoreLocked { path },
        _ => ManualsError::Store { path, source: e },
    }
}
