//! [`Manuals`]: the local store plus the optional remote API, answering each command with its
//! data, its pagination and its warnings ([`Answer`]).
//!
//! Merging with the remote (when one is configured):
//! - `search`: the local hits and the remote's first `page × page_size` hits are merged, a hit
//!   both have becomes one (the local fields, blanks filled from the remote, the higher score),
//!   ordered by score with local first on equal scores, then cut to the page asked for. `total`
//!   is local + remote − duplicates seen; merged results reach [`MERGE_DEPTH`] hits deep.
//! - `get`: the local area, with the remote's elements whose ids it lacks appended; the remote's
//!   area when only it has one.
//! - `manual`: the remote's answer when it has one (level 1 also lists the local groups of the
//!   site), else the local one.
//!
//! A remote that fails or does not answer in time adds one line to `warnings`; the local answer
//! stands.

use std::collections::HashMap;
use std::path::Path;

use envelope::{AreaData, Pagination, RenderText, SearchData, SearchItem, TextBody};
use serde::Serialize;

use super::error::{ManualsError, Result};
use super::manual::{ManualData, ManualRequest, local_manual};
use super::record::Recording;
use super::remote::RemoteApi;
use super::store::{AreaListItem, Origin, SearchQuery, Store, Upsert};
use super::transfer::{AreasDocument, read_areas_file};

/// How deep merged (local + remote) search results go: pages beyond this many hits are empty.
pub const MERGE_DEPTH: u64 = 500;

/// A command's answer: its `data`, its `meta.pagination`, its `meta.warnings`.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer<T> {
    /// `data`.
    pub data: T,
    /// `meta.pagination` (search only).
    pub pagination: Option<Pagination>,
    /// `meta.warnings`.
    pub warnings: Vec<String>,
}

impl<T> Answer<T> {
    fn new(data: T) -> Answer<T> {
        Answer {
            data,
            pagination: None,
            warnings: Vec::new(),
        }
    }
}

/// `areas record` data.
///
/// ```text
/// recorded example.com:/login:default
/// elements: 4
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordData {
    /// The area id.
    pub area_id: String,
    /// `created` or `updated` (a page recorded again replaces its area).
    pub action: Upsert,
    /// Elements stored.
    pub elements: usize,
    /// Elements left out (no selector matched exactly them).
    pub skipped: usize,
}

impl RenderText for RecordData {
    fn is_action(&self) -> bool {
        true
    }
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.field("area_id", &self.area_id);
        body.field(
            "action",
            if self.action == Upsert::Created {
                "created"
            } else {
                "updated"
            },
        );
        body.field("elements", self.elements);
        if self.skipped > 0 {
            body.field("skipped", self.skipped);
        }
    }
}

/// `areas import` data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImportData {
    /// The file read.
    pub path: String,
    /// Areas that were new.
    pub created: usize,
    /// Areas that replaced one with the same id.
    pub updated: usize,
    /// Their ids, in file order.
    pub area_ids: Vec<String>,
}

impl RenderText for ImportData {
    fn is_action(&self) -> bool {
        true
    }
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.count(self.area_ids.len(), "area imported", "areas imported");
        body.field("created", self.created);
        body.field("updated", self.updated);
        for id in &self.area_ids {
            body.line(id);
        }
    }
}

/// `areas list` data.
///
/// ```text
/// 2 areas
/// example.com:/login:default  Sign in  (4 elements, recorded)
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AreaListData {
    /// The areas, by id.
    pub areas: Vec<AreaListItem>,
}

impl RenderText for AreaListData {
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.count(self.areas.len(), "area", "areas");
        for a in &self.areas {
            let origin = match a.origin {
                Origin::Recorded => "recorded",
                Origin::Imported => "imported",
                Origin::Bundled => "bundled",
            };
            body.line(format_args!(
                "{}  {}  ({} elements, {origin} {})",
                a.area_id, a.title, a.elements, a.recorded_at
            ));
        }
    }
}

/// `areas delete` data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DeleteData {
    /// The area removed.
    pub area_id: String,
}

impl RenderText for DeleteData {
    fn is_action(&self) -> bool {
        true
    }
    fn render_body(&self, body: &mut TextBody<'_>) {
        body.field("area_id", &self.area_id);
    }
}

/// `areas export` prints the document itself, so `areas export > file.json` works in text mode.
impl RenderText for AreasDocument {
    fn render_body(&self, body: &mut TextBody<'_>) {
        for line in self.to_json_pretty().lines() {
            body.line(line);
        }
    }
}

/// The store and the optional remote API.
#[derive(Debug)]
pub struct Manuals {
    store: Store,
    remote: Option<RemoteApi>,
}

impl Manuals {
    /// Wraps an open store and an optional remote.
    pub fn new(store: Store, remote: Option<RemoteApi>) -> Manuals {
        Manuals { store, remote }
    }

    /// Opens `store_path` (normally `$ACTIONBOOK_HOME/manuals.db`) with the given remote.
    pub fn open(store_path: &Path, remote: Option<RemoteApi>) -> Result<Manuals> {
        Ok(Manuals::new(Store::open(store_path)?, remote))
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The store, for writing.
    pub fn store_mut(&mut self) -> &mut Store {
        &mut self.store
    }

    /// Replaces the remote (each caller brings its own settings).
    pub fn set_remote(&mut self, remote: Option<RemoteApi>) {
        self.remote = remote;
    }

    /// The remote, if configured.
    pub fn remote(&self) -> Option<&RemoteApi> {
        self.remote.as_ref()
    }

    /// `search`: data exactly as spec 6.1, pagination for `meta.pagination`.
    pub fn search(&self, q: &SearchQuery) -> Result<Answer<SearchData>> {
        q.validate()?;
        let Some(remote) = &self.remote else {
            let page = self.store.search(q)?;
            return Ok(Answer {
                data: SearchData {
                    query: q.text.clone(),
                    items: page.items,
                },
                pagination: Some(Pagination::new(q.page, q.page_size, page.total)),
                warnings: Vec::new(),
            });
        };
        // Enough of both lists to fill the page asked for after merging (at most MERGE_DEPTH).
        let window = q.page.saturating_mul(q.page_size).min(MERGE_DEPTH);
        let mut first = q.clone();
        first.page = 1;
        first.page_size = window;
        let local_page =
            self.store
                .search_range(q, 0, usize::try_from(window).unwrap_or(usize::MAX))?;
        let local = (local_page.items, local_page.total);
        let mut warnings = Vec::new();
        let remote_page = match remote.search(&first) {
            Ok(p) => Some(p),
            Err(f) => {
                warnings.push(f.warning());
                None
            }
        };
        let (items, total) = merge_hits(local, remote_page.map(|p| (p.items, p.total)));
        let start = usize::try_from((q.page - 1).saturating_mul(q.page_size)).unwrap_or(usize::MAX);
        let size = usize::try_from(q.page_size).unwrap_or(usize::MAX);
        let page_items = items.into_iter().skip(start).take(size).collect();
        Ok(Answer {
            data: SearchData {
                query: q.text.clone(),
                items: page_items,
            },
            pagination: Some(Pagination::new(q.page, q.page_size, total)),
            warnings,
        })
    }

    /// `get`: data exactly as spec 6.2; an unknown id is [`ManualsError::AreaNotFound`].
    pub fn get(&self, area_id: &str) -> Result<Answer<AreaData>> {
        let local = self.store.find(area_id)?;
        let Some(remote) = &self.remote else {
            return match local {
                Some(a) => Ok(Answer::new(a.to_data())),
                None => self.store.get(area_id).map(|a| Answer::new(a.to_data())),
            };
        };
        let mut warnings = Vec::new();
        let remote_area = match remote.get(area_id) {
            Ok(a) => a,
            Err(f) => {
                warnings.push(f.warning());
                None
            }
        };
        let data = match (local, remote_area) {
            (Some(l), Some(r)) => {
                let mut data = l.to_data();
                for e in r.elements {
                    if !data.elements.iter().any(|x| x.element_id == e.element_id) {
                        data.elements.push(e);
                    }
                }
                if data.description.is_empty() {
                    data.description = r.description;
                }
                data
            }
            (Some(l), None) => l.to_data(),
            (None, Some(r)) => r,
            (None, None) => {
                return Err(ManualsError::AreaNotFound {
                    area_id: area_id.to_string(),
                });
            }
        };
        Ok(Answer {
            data,
            pagination: None,
            warnings,
        })
    }

    /// `manual SITE [GROUP [ACTION]]`.
    pub fn manual(&self, req: &ManualRequest) -> Result<Answer<ManualData>> {
        let mut warnings = Vec::new();
        let remote_answer = match &self.remote {
            None => None,
            Some(r) => match r.manual(req) {
                Ok(a) => a,
                Err(f) => {
                    warnings.push(f.warning());
                    None
                }
            },
        };
        let data = match remote_answer {
            Some(ManualData::Site(mut site)) => {
                // The site's recorded pages are groups too.
                if let Ok(ManualData::Site(local)) = local_manual(&self.store, req) {
                    site.groups.extend(local.groups);
                }
                ManualData::Site(site)
            }
            Some(other) => other,
            None => local_manual(&self.store, req)?,
        };
        Ok(Answer {
            data,
            pagination: None,
            warnings,
        })
    }

    /// `areas record`: stores the recording (replacing an earlier one of the same page and name);
    /// skipped elements become warnings.
    pub fn record(&mut self, recording: &Recording) -> Result<Answer<RecordData>> {
        let action = self.store.upsert(&recording.area, Origin::Recorded)?;
        let warnings = recording
            .skipped
            .iter()
            .map(|s| format!("{} not recorded: {}", s.description, s.reason))
            .collect();
        Ok(Answer {
            data: RecordData {
                area_id: recording.area.area_id.clone(),
                action,
                elements: recording.area.elements.len(),
                skipped: recording.skipped.len(),
            },
            pagination: None,
            warnings,
        })
    }

    /// `areas import <file>`: all areas of the file or none.
    pub fn import_file(&mut self, path: &Path) -> Result<Answer<ImportData>> {
        let areas = read_areas_file(path)?;
        let outcomes = self.store.upsert_all(&areas, Origin::Imported)?;
        let created = outcomes.iter().filter(|o| **o == Upsert::Created).count();
        Ok(Answer::new(ImportData {
            path: path.display().to_string(),
            created,
            updated: outcomes.len() - created,
            area_ids: areas.into_iter().map(|a| a.area_id).collect(),
        }))
    }

    /// `areas export [area_id…]` (every area when none is named).
    pub fn export(&self, area_ids: &[String]) -> Result<Answer<AreasDocument>> {
        Ok(Answer::new(AreasDocument::new(self.store.areas(area_ids)?)))
    }

    /// `areas list [-d domain]`.
    pub fn list(&self, domain: Option<&str>) -> Result<Answer<AreaListData>> {
        Ok(Answer::new(AreaListData {
            areas: self.store.list(domain)?,
        }))
    }

    /// `areas delete <area_id>`.
    pub fn delete(&mut self, area_id: &str) -> Result<Answer<DeleteData>> {
        self.store.delete(area_id)?;
        Ok(Answer::new(DeleteData {
            area_id: area_id.to_string(),
        }))
    }
}

/// Merges local and remote hits (see the module docs); returns all merged hits, best first, and
/// the combined total.
fn merge_hits(
    local: (Vec<SearchItem>, u64),
    remote: Option<(Vec<SearchItem>, u64)>,
) -> (Vec<SearchItem>, u64) {
    let (local_items, local_total) = local;
    let Some((remote_items, remote_total)) = remote else {
        return (local_items, local_total);
    };
    // (item, source: 0 local / 1 remote, rank within its source)
    let mut merged: Vec<(SearchItem, u8, usize)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for (rank, item) in local_items.into_iter().enumerate() {
        if let std::collections::hash_map::Entry::Vacant(v) = index.entry(item.area_id.clone()) {
            v.insert(merged.len());
            merged.push((item, 0, rank));
        }
    }
    let mut duplicates = 0u64;
    for (rank, item) in remote_items.into_iter().enumerate() {
        match index.get(&item.area_id) {
            Some(&i) => {
                duplicates += 1;
                let (kept, _, _) = &mut merged[i];
                kept.score = kept.score.max(item.score);
                for (mine, theirs) in [
                    (&mut kept.title, item.title),
                    (&mut kept.summary, item.summary),
                    (&mut kept.url, item.url),
                ] {
                    if mine.is_empty() {
                        *mine = theirs;
                    }
                }
            }
            None => {
                index.insert(item.area_id.clone(), merged.len());
                merged.push((item, 1, rank));
            }
        }
    }
    merged.sort_by(|a, b| {
        b.0.score
            .total_cmp(&a.0.score)
            .then(a.1.cmp(&b.1))
            .then(a.2.cmp(&b.2))
    });
    let total = (local_total + remote_total).saturating_sub(duplicates);
    (merged.into_iter().map(|(i, _, _)| i).collect(), total)
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
