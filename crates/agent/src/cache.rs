//! The action cache: what a successful `perform` (or `ai` step) did, keyed by the instruction
//! and the page it acted on, so the same instruction on the same page runs again with no model
//! call. An entry replays only when its element is found again in a fresh snapshot (same role
//! and accessible name, exactly one such element); otherwise the model is asked and the entry
//! replaced. Stored in `$ACTIONBOOK_HOME/agent-cache.json`; values of variables are never in it
//! (actions keep their `<<name>>`s, names are masked).
//!
//! Commands of one daemon run at once, so the file changes only through [`Cache::update`]: under
//! the process's one cache lock it reads the file as the last writer left it, applies the
//! command's change and writes it whole; two `perform`s recording at once both keep their entry.
//! A replay's hit count is written after the command answers ([`Cache::count_hit`]): it holds
//! the lock until written, so the next read of the cache sees it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use serde::{Deserialize, Serialize};

use crate::actions::Action;
use crate::error::{AgentError, Result};
use crate::page::PageView;

/// The cache file's name under the home.
pub const FILE: &str = "agent-cache.json";
/// Entries kept (the oldest go first).
const MAX_ENTRIES: usize = 1000;

/// The process's one writer of cache files (held from a read to its write).
static WRITER: LazyLock<Arc<tokio::sync::Mutex<()>>> =
    LazyLock::new(|| Arc::new(tokio::sync::Mutex::new(())));

/// One cached action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The instruction as given (with `<<name>>`s, never values).
    pub instruction: String,
    /// The page: its URL without query and fragment.
    pub page: String,
    /// The action as the model gave it.
    pub action: Action,
    /// The element's role, when the action has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The element's accessible name (masked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The element's XPath in its document when it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xpath: Option<String>,
    /// Whether that document was the page's top one (an entry from before this was kept says
    /// false: it replays through a snapshot).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub top_document: bool,
    /// The element's signature when it was recorded (tag, type, id, name, labels, text; masked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// How often it replayed.
    #[serde(default)]
    pub hits: u64,
}

/// One action of a cached `ai` step, with the element it acted on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepAction {
    /// The action as the model gave it.
    pub action: Action,
    /// The element's role, when the action has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The element's accessible name (masked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A step of `ai` a model decided that ran whole without ending the task: on the same task's
/// same step on the same page, it replays with no model call (the step that says `done` is
/// always the model's: its result is read from the page).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepEntry {
    /// The task as given (with `<<name>>`s).
    pub task: String,
    /// The step's number (1-based).
    pub step: u32,
    /// The page the step saw: its URL without query and fragment.
    pub page: String,
    /// Its actions, in order.
    pub actions: Vec<StepAction>,
    /// How often it replayed.
    #[serde(default)]
    pub hits: u64,
}

/// The cache file's content.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Cache {
    /// Entries, oldest first.
    pub entries: Vec<Entry>,
    /// `ai` steps, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepEntry>,
}

/// The page part of a key: the URL without query and fragment (a search's terms or a session
/// token in the URL do not make another page).
pub fn page_key(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            u.set_query(None);
            u.set_fragment(None);
            u.to_string()
        }
        Err(_) => url.to_string(),
    }
}

/// The cache file of `home`.
pub fn path(home: &Path) -> PathBuf {
    home.join(FILE)
}

fn file_error(path: &Path, source: std::io::Error) -> AgentError {
    AgentError::File {
        path: path.display().to_string(),
        source,
    }
}

impl Cache {
    /// Reads the cache (none yet: empty; a file that does not decode: empty, it is rewritten on
    /// the next record).
    pub async fn load(path: &Path) -> Result<Cache> {
        let _held = WRITER.lock().await;
        Cache::read(path).await
    }

    /// Applies `change` to the cache as the file holds it now and writes it (see the module's
    /// doc). The file is not written when `change` says nothing changed (`false`).
    pub async fn update(path: &Path, change: impl FnOnce(&mut Cache) -> bool) -> Result<()> {
        let _held = WRITER.lock().await;
        let mut cache = Cache::read(path).await?;
        match change(&mut cache) {
            true => cache.write(path).await,
            false => Ok(()),
        }
    }

    /// Counts a replay of the entry of this key, written after the caller goes on (a count is
    /// no reason to keep an answer waiting for the disk); the lock is taken before this returns,
    /// so whatever reads the cache next sees the count.
    pub async fn count_hit(path: &Path, instruction: &str, page: &str) {
        let held = Arc::clone(&WRITER).lock_owned().await;
        let (path, instruction, page) = (
            path.to_path_buf(),
            instruction.to_string(),
            page.to_string(),
        );
        tokio::spawn(async move {
            let _held = held;
            if let Ok(mut cache) = Cache::read(&path).await
                && cache.hit(&instruction, &page)
            {
                // A count that could not be written is lost, nothing else: the entry stays.
                let _ = cache.write(&path).await;
            }
        });
    }

    /// Reads the file (the caller holds [`WRITER`]).
    async fn read(path: &Path) -> Result<Cache> {
        match tokio::fs::read(path).await {
            Ok(bytes) => Ok(serde_json::from_slice(&bytes).unwrap_or_default()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Cache::default()),
            Err(e) => Err(file_error(path, e)),
        }
    }

    /// Writes the cache whole (a temporary file beside it, then a rename; the caller holds
    /// [`WRITER`]).
    async fn write(&self, path: &Path) -> Result<()> {
        let bytes = serde_json::to_vec_pretty(self).map_err(|e| file_error(path, e.into()))?;
        if let Some(dir) = path.parent() {
            tokio::fs::create_dir_all(dir)
                .await
                .map_err(|e| file_error(dir, e))?;
        }
        // A name of its own per write: two commands saving at once never share a temporary file
        // (the later rename wins whole).
        static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = path.with_extension(format!("json.{}-{n}.tmp", std::process::id()));
        tokio::fs::write(&tmp, bytes)
            .await
            .map_err(|e| file_error(&tmp, e))?;
        tokio::fs::rename(&tmp, path)
            .await
            .map_err(|e| file_error(path, e))
    }

    /// The entry of `instruction` on `page`.
    pub fn find(&self, instruction: &str, page: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.instruction == instruction && e.page == page)
    }

    /// The entry of `instruction` recorded last, on whichever page.
    pub fn newest(&self, instruction: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .rev()
            .find(|e| e.instruction == instruction)
    }

    /// Records `entry`, replacing the one of its key.
    pub fn record(&mut self, entry: Entry) {
        self.entries
            .retain(|e| !(e.instruction == entry.instruction && e.page == entry.page));
        self.entries.push(entry);
        if self.entries.len() > MAX_ENTRIES {
            let extra = self.entries.len() - MAX_ENTRIES;
            self.entries.drain(..extra);
        }
    }

    /// The `ai` step `step` of `task` on `page`.
    pub fn find_step(&self, task: &str, step: u32, page: &str) -> Option<&StepEntry> {
        self.steps
            .iter()
            .find(|e| e.task == task && e.step == step && e.page == page)
    }

    /// Records an `ai` step, replacing the one of its key.
    pub fn record_step(&mut self, entry: StepEntry) {
        self.steps
            .retain(|e| !(e.task == entry.task && e.step == entry.step && e.page == entry.page));
        self.steps.push(entry);
        if self.steps.len() > MAX_ENTRIES {
            let extra = self.steps.len() - MAX_ENTRIES;
            self.steps.drain(..extra);
        }
    }

    /// Counts a replay of the `ai` step of this key (false: there is no such step).
    pub fn hit_step(&mut self, task: &str, step: u32, page: &str) -> bool {
        match self
            .steps
            .iter_mut()
            .find(|e| e.task == task && e.step == step && e.page == page)
        {
            Some(e) => {
                e.hits += 1;
                true
            }
            None => false,
        }
    }

    /// Counts a replay of the entry of this key (false: there is no such entry).
    pub fn hit(&mut self, instruction: &str, page: &str) -> bool {
        match self
            .entries
            .iter_mut()
            .find(|e| e.instruction == instruction && e.page == page)
        {
            Some(e) => {
                e.hits += 1;
                true
            }
            None => false,
        }
    }
}

/// What a replay with no snapshot aims at: the element at the entry's XPath in the top
/// document, to be checked for the entry's signature before it is acted on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuickAim<'a> {
    /// The XPath.
    pub xpath: &'a str,
    /// The signature it must have (masked).
    pub signature: &'a str,
    /// Its role when recorded.
    pub role: &'a str,
    /// Its (masked) name when recorded.
    pub name: &'a str,
}

impl Entry {
    /// Where a replay with no snapshot aims; `None` when the entry cannot replay that way (an
    /// element in a frame, inside a shadow root, or recorded without its place).
    pub fn quick_aim(&self) -> Option<QuickAim<'_>> {
        match (&self.xpath, &self.signature, &self.role, &self.name) {
            (Some(xpath), Some(signature), Some(role), Some(name)) if self.top_document => {
                Some(QuickAim {
                    xpath,
                    signature,
                    role,
                    name,
                })
            }
            _ => None,
        }
    }

    /// The action to replay on `view`: on the one element with the entry's role and name (its
    /// ref may have changed), or the action as it was when it names no element. `None` when
    /// the element is gone or is no longer the only one.
    pub fn replay_on(&self, view: &PageView, mask: impl Fn(&str) -> String) -> Option<Action> {
        found_again(
            &self.action,
            self.role.as_deref(),
            self.name.as_deref(),
            view,
            &mask,
        )
    }
}

impl StepEntry {
    /// The step's actions to replay on `view`, each on its element found again; `None` when
    /// one of them is not.
    pub fn replay_on(&self, view: &PageView, mask: impl Fn(&str) -> String) -> Option<Vec<Action>> {
        self.actions
            .iter()
            .map(|a| found_again(&a.action, a.role.as_deref(), a.name.as_deref(), view, &mask))
            .collect()
    }
}

/// `action` on the one element of `view` with this role and (masked) name, or as it was when it
/// names no element.
fn found_again(
    action: &Action,
    role: Option<&str>,
    name: Option<&str>,
    view: &PageView,
    mask: &dyn Fn(&str) -> String,
) -> Option<Action> {
    let Some(old_ref) = action.reference() else {
        return Some(action.clone());
    };
    let (role, name) = (role?, name?);
    let fits: Vec<&str> = view
        .nodes
        .iter()
        .filter(|n| n.role == role && mask(&n.name) == name)
        .map(|n| n.ref_id.as_str())
        .collect();
    match fits.as_slice() {
        [one] => Some(action.clone().on(one)),
        // Several alike: the same ref, if it is one of them, is the same element.
        many if many.contains(&old_ref) => Some(action.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_key_leaves_query_and_fragment_out() {
        assert_eq!(
            page_key("http://127.0.0.1:8000/login?next=/a#top"),
            "http://127.0.0.1:8000/login"
        );
    }

    #[test]
    fn a_record_replaces_its_key_and_the_oldest_go() {
        let entry = |i: usize| click(&format!("click {i}"));
        let mut cache = Cache::default();
        for i in 0..MAX_ENTRIES + 5 {
            cache.record(entry(i));
        }
        cache.record(entry(MAX_ENTRIES + 4));
        assert_eq!(cache.entries[0].quick_aim(), None, "no place, no quick aim");
        assert_eq!(cache.entries.len(), MAX_ENTRIES);
        assert!(cache.find("click 0", "p").is_none());
        assert!(cache.find("click 5", "p").is_some());
        assert_eq!(
            cache.entries.last().map(|e| e.instruction.as_str()),
            Some(format!("click {}", MAX_ENTRIES + 4).as_str())
        );
    }

    #[test]
    fn only_an_element_placed_in_the_top_document_replays_without_a_snapshot() {
        let mut e = Entry {
            instruction: "click go".into(),
            page: "p".into(),
            action: Action::Click {
                reference: "e1".into(),
            },
            role: Some("button".into()),
            name: Some("Go".into()),
            xpath: Some("/html/body/button".into()),
            top_document: true,
            signature: Some("button|||||||Go".into()),
            hits: 0,
        };
        assert_eq!(
            e.quick_aim(),
            Some(QuickAim {
                xpath: "/html/body/button",
                signature: "button|||||||Go",
                role: "button",
                name: "Go"
            })
        );
        // An entry written before `top_document` was kept reads as false.
        let old: Entry = serde_json::from_str(
            r#"{"instruction":"click go","page":"p","action":{"name":"click","arguments":{"ref":"e1"}},"role":"button","name":"Go","xpath":"/html/body/button","signature":"button|||||||Go"}"#,
        )
        .unwrap_or_else(|err| panic!("old entry: {err}"));
        assert_eq!(old.quick_aim(), None);
        e.top_document = false;
        assert_eq!(e.quick_aim(), None);
    }

    fn click(instruction: &str) -> Entry {
        Entry {
            instruction: instruction.into(),
            page: "p".into(),
            action: Action::Click {
                reference: "e1".into(),
            },
            role: Some("button".into()),
            name: Some("Go".into()),
            xpath: None,
            top_document: false,
            signature: None,
            hits: 0,
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn commands_recording_at_once_all_keep_their_entry_and_counts() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let file = dir.path().join(FILE);
        let records: Vec<_> = (0..16)
            .map(|i| {
                let file = file.clone();
                tokio::spawn(async move {
                    Cache::update(&file, |c| {
                        c.record(click(&format!("click {i}")));
                        true
                    })
                    .await
                })
            })
            .collect();
        for record in records {
            record
                .await
                .unwrap_or_else(|e| panic!("task: {e}"))
                .unwrap_or_else(|e| panic!("update: {e}"));
        }
        for _ in 0..3 {
            Cache::count_hit(&file, "click 7", "p").await;
        }
        // Read at once: the counts written after their commands went on are there all the same.
        let cache = Cache::load(&file)
            .await
            .unwrap_or_else(|e| panic!("load: {e}"));
        assert_eq!(
            cache.entries.len(),
            16,
            "no record lost: {:?}",
            cache.entries
        );
        assert_eq!(cache.find("click 7", "p").map(|e| e.hits), Some(3));
        assert_eq!(cache.find("click 8", "p").map(|e| e.hits), Some(0));
        // A change that says nothing changed writes nothing.
        let before = std::fs::metadata(&file).and_then(|m| m.modified()).ok();
        Cache::update(&file, |_| false)
            .await
            .unwrap_or_else(|e| panic!("update: {e}"));
        assert_eq!(
            std::fs::metadata(&file).and_then(|m| m.modified()).ok(),
            before
        );
        assert!(
            std::fs::read_dir(dir.path())
                .map(|d| d.count())
                .unwrap_or_default()
                == 1,
            "no temporary file left"
        );
    }
}
