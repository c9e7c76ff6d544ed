//! Exact bm25 ranking from an in-memory copy of the FTS5 index's postings.
//!
//! FTS5's `bm25()` costs about a microsecond per instance of a query word in every hit (it
//! decodes the hit's position lists and looks up its size), which is most of a search's time
//! when a query's words are common: 16 ms for five words over 10,000 areas. This module keeps,
//! per indexed term, the rows it occurs in with its column-weighted count, and each row's size
//! in tokens, read once from FTS5 itself (`fts5vocab`, so the tokens are FTS5's own), and ranks
//! a query with the very formula and operation order of FTS5's `bm25()` (`fts5_aux.c`): the
//! same doubles, so the same order and the same ties as the SQL ranking (a test compares them).
//!
//! The copy is built on a thread of its own with its own read-only connection (about half a
//! second for 10,000 areas); until it is ready, and whenever the file changed since it was
//! built (own writes drop it; other connections' commits show in `PRAGMA data_version`), the
//! store ranks with SQL as before. Stores larger than [`MAX_POSTINGS`] are always ranked by SQL.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::fts::QueryWord;

/// bm25's `k1` and `b`, as FTS5 has them.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Row/term pairs kept in memory at most (8 bytes each): larger stores are ranked by SQL.
pub const MAX_POSTINGS: usize = 2_000_000;

/// The tokenizer of the index (the query's words go through the same one).
pub(crate) const TOKENIZE: &str = "unicode61 remove_diacritics 2";

/// One row a term occurs in, and how often, weighted by column.
#[derive(Debug, Clone, Copy)]
struct Posting {
    doc: u32,
    weight: u32,
}

/// Postings of every term, sizes and filter columns of every row.
#[derive(Debug)]
pub(crate) struct RankingIndex {
    terms: BTreeMap<Box<str>, Vec<Posting>>,
    rowids: Vec<i64>,
    hosts: Vec<Box<str>>,
    paths: Vec<Box<str>>,
    /// `k1 * (1 - b + b * D / avgdl)` of each row, the row-size part of bm25's denominator.
    norm: Vec<f64>,
}

impl RankingIndex {
    /// Reads the index of the store at `path` in one read transaction; `Ok(None)` when it has
    /// more than [`MAX_POSTINGS`] postings or does not agree with `areas`.
    fn build(path: &Path, weights: &[(&str, u32)]) -> rusqlite::Result<Option<RankingIndex>> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = Connection::open_with_flags(path, flags)?;
        conn.busy_timeout(Duration::from_secs(2))?;
        conn.execute_batch(
            "CREATE VIRTUAL TABLE temp.areas_vocab USING fts5vocab(main, areas_fts, instance)",
        )?;
        let tx = conn.transaction()?;
        let mut rowids = Vec::new();
        let mut hosts = Vec::new();
        let mut paths = Vec::new();
        {
            let mut stmt = tx.prepare("SELECT id, host, path FROM areas ORDER BY id")?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                rowids.push(r.get::<_, i64>(0)?);
                hosts.push(r.get::<_, String>(1)?.into_boxed_str());
                paths.push(r.get::<_, String>(2)?.into_boxed_str());
            }
        }
        let mut sizes = vec![0u64; rowids.len()];
        let mut terms: BTreeMap<Box<str>, Vec<Posting>> = BTreeMap::new();
        let mut postings = 0usize;
        {
            let mut stmt = tx.prepare("SELECT term, doc, col FROM temp.areas_vocab")?;
            let mut rows = stmt.query([])?;
            let mut term: Option<(Box<str>, Vec<Posting>)> = None;
            while let Some(r) = rows.next()? {
                let rowid: i64 = r.get(1)?;
                let Ok(doc) = rowids.binary_search(&rowid) else {
                    return Ok(None);
                };
                let col = r.get_ref(2)?.as_str()?;
                let weight = weights.iter().find(|(c, _)| *c == col).map_or(0, |w| w.1);
                sizes[doc] += 1;
                let text = r.get_ref(0)?.as_str()?;
                if term.as_ref().is_none_or(|(t, _)| **t != *text) {
                    if let Some((t, list)) = term.take() {
                        terms.insert(t, list);
                    }
                    term = Some((text.into(), Vec::new()));
                }
                let Some((_, list)) = term.as_mut() else {
                    continue;
                };
                let doc = u32::try_from(doc).unwrap_or(u32::MAX);
                match list.last_mut() {
                    Some(p) if p.doc == doc => p.weight += weight,
                    _ => {
                        postings += 1;
                        if postings > MAX_POSTINGS {
                            return Ok(None);
                        }
                        list.push(Posting { doc, weight });
                    }
                }
            }
            if let Some((t, list)) = term {
                terms.insert(t, list);
            }
        }
        tx.finish()?;
        let total: u64 = sizes.iter().sum();
        let avgdl = total as f64 / rowids.len().max(1) as f64;
        let norm = sizes
            .iter()
            .map(|&d| K1 * (1.0 - B + B * d as f64 / avgdl))
            .collect();
        Ok(Some(RankingIndex {
            terms,
            rowids,
            hosts,
            paths,
            norm,
        }))
    }

    /// `(bm25, rowid)` of every row matching any of `words` (already FTS5 tokens) and `keep`
    /// (given the row's host and path), in rowid order; bm25 exactly as FTS5 computes it.
    pub(crate) fn rank(
        &self,
        words: &[QueryWord],
        keep: impl Fn(&str, &str) -> bool,
    ) -> Vec<(f64, i64)> {
        let n = self.rowids.len();
        let rows = n as i64;
        let mut score = vec![0.0f64; n];
        let mut hit = vec![false; n];
        let mut freq = vec![0.0f64; n];
        let mut seen = vec![false; n];
        let mut touched: Vec<usize> = Vec::new();
        for word in words {
            let lists: Vec<&Vec<Posting>> = if word.prefix {
                self.terms
                    .range::<str, _>((
                        std::ops::Bound::Included(word.text.as_str()),
                        std::ops::Bound::Unbounded,
                    ))
                    .take_while(|(t, _)| t.starts_with(word.text.as_str()))
                    .map(|(_, l)| l)
                    .collect()
            } else {
                self.terms.get(word.text.as_str()).into_iter().collect()
            };
            touched.clear();
            // A row's weighted count can be 0 (a word only in a column of weight 0) and still
            // make the row a hit: `seen`, not the count, says whether it matched.
            for p in lists.into_iter().flatten() {
                let d = p.doc as usize;
                if !seen[d] {
                    seen[d] = true;
                    touched.push(d);
                }
                freq[d] += f64::from(p.weight);
            }
            let matched = touched.len() as i64;
            let mut idf = (((rows - matched) as f64 + 0.5) / (matched as f64 + 0.5)).ln();
            if idf <= 0.0 {
                idf = 1e-6;
            }
            for &d in &touched {
                let f = freq[d];
                score[d] += idf * ((f * (K1 + 1.0)) / (f + self.norm[d]));
                hit[d] = true;
                freq[d] = 0.0;
                seen[d] = false;
            }
        }
        (0..n)
            .filter(|&d| hit[d] && keep(&self.hosts[d], &self.paths[d]))
            .map(|d| (-score[d], self.rowids[d]))
            .collect()
    }
}

/// The query's words as FTS5 tokenizes them, through a private in-memory FTS5 table with the
/// index's tokenizer.
#[derive(Debug)]
struct QueryTokenizer {
    conn: Connection,
}

impl QueryTokenizer {
    fn open() -> rusqlite::Result<QueryTokenizer> {
        let conn = Connection::open_in_memory()?;
        conn.execute_batch(&format!(
            "CREATE VIRTUAL TABLE words USING fts5(w, tokenize = '{TOKENIZE}');
             CREATE VIRTUAL TABLE words_vocab USING fts5vocab(words, instance);"
        ))?;
        Ok(QueryTokenizer { conn })
    }

    /// Each word as the one FTS5 token it is; `None` when one of them is not exactly one token
    /// (FTS5 would make it a phrase of several, or nothing: the SQL ranking handles those).
    fn tokens(&self, words: &[QueryWord]) -> rusqlite::Result<Option<Vec<QueryWord>>> {
        self.conn.execute("DELETE FROM words", [])?;
        for (i, w) in words.iter().enumerate() {
            self.conn.execute(
                "INSERT INTO words(rowid, w) VALUES (?1, ?2)",
                rusqlite::params![i as i64 + 1, w.text],
            )?;
        }
        let mut found: Vec<Vec<String>> = vec![Vec::new(); words.len()];
        {
            let mut stmt = self
                .conn
                .prepare_cached("SELECT doc, term FROM words_vocab ORDER BY doc, offset")?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                let doc: i64 = r.get(0)?;
                if let Some(slot) = usize::try_from(doc - 1).ok().and_then(|i| found.get_mut(i)) {
                    slot.push(r.get(1)?);
                }
            }
        }
        self.conn.execute("DELETE FROM words", [])?;
        let mut out = Vec::with_capacity(words.len());
        for (w, mut tokens) in words.iter().zip(found) {
            if tokens.len() != 1 {
                return Ok(None);
            }
            out.push(QueryWord {
                text: tokens.remove(0),
                prefix: w.prefix,
            });
        }
        Ok(Some(out))
    }
}

/// Where the in-memory ranking stands for a store.
#[derive(Debug)]
enum State {
    /// Not built (or dropped by a write).
    Stale,
    /// Being built at this `data_version`.
    Building {
        version: i64,
        done: Receiver<Option<RankingIndex>>,
    },
    /// Built at this `data_version`; `None` when the store is too large or the build failed.
    Built {
        version: i64,
        index: Option<Arc<RankingIndex>>,
    },
}

/// The in-memory ranking of one store: built in the background, dropped when stale.
#[derive(Debug)]
pub(crate) struct Ranking {
    path: PathBuf,
    weights: &'static [(&'static str, u32)],
    state: State,
    tokenizer: Option<QueryTokenizer>,
}

impl Ranking {
    /// No ranking yet for the store at `path`, whose columns weigh `weights`.
    pub(crate) fn new(path: &Path, weights: &'static [(&'static str, u32)]) -> Ranking {
        Ranking {
            path: path.to_path_buf(),
            weights,
            state: State::Stale,
            tokenizer: None,
        }
    }

    /// The store was written through its own connection: what was built is out of date.
    pub(crate) fn invalidate(&mut self) {
        self.state = State::Stale;
    }

    /// The index, if it is built for `version` (the store's `data_version` now); otherwise
    /// starts building it (unless a build for `version` is under way) and answers `None`.
    /// With `wait`, waits up to that long for a build to finish (tests and benches).
    pub(crate) fn ready(
        &mut self,
        version: i64,
        wait: Option<Duration>,
    ) -> Option<Arc<RankingIndex>> {
        loop {
            match &self.state {
                State::Built { version: v, index } if *v == version => return index.clone(),
                State::Building { version: v, done } if *v == version => {
                    let got = match wait {
                        Some(t) => done.recv_timeout(t).map_err(|e| match e {
                            mpsc::RecvTimeoutError::Timeout => TryRecvError::Empty,
                            mpsc::RecvTimeoutError::Disconnected => TryRecvError::Disconnected,
                        }),
                        None => done.try_recv(),
                    };
                    match got {
                        Ok(index) => {
                            self.state = State::Built {
                                version,
                                index: index.map(Arc::new),
                            }
                        }
                        Err(TryRecvError::Empty) => return None,
                        Err(TryRecvError::Disconnected) => {
                            self.state = State::Built {
                                version,
                                index: None,
                            }
                        }
                    }
                }
                _ => {
                    let (tx, rx) = mpsc::channel();
                    let path = self.path.clone();
                    let weights = self.weights;
                    let spawned = std::thread::Builder::new()
                        .name("manuals-ranking".into())
                        .spawn(move || {
                            let index = RankingIndex::build(&path, weights).ok().flatten();
                            let _ = tx.send(index);
                        });
                    self.state = match spawned {
                        Ok(_) => State::Building { version, done: rx },
                        Err(_) => State::Built {
                            version,
                            index: None,
                        },
                    };
                    // Without a wait, the SQL ranking answers while this one builds.
                    wait?;
                }
            }
        }
    }

    /// `words` as FTS5 tokens (see [`QueryTokenizer::tokens`]); `None` when the SQL ranking
    /// must answer.
    pub(crate) fn tokens(&mut self, words: &[QueryWord]) -> Option<Vec<QueryWord>> {
        if self.tokenizer.is_none() {
            self.tokenizer = QueryTokenizer::open().ok();
        }
        self.tokenizer.as_ref()?.tokens(words).ok().flatten()
    }
}
