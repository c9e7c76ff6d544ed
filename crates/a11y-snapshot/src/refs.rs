//! The per-tab ref table: (frame, backendNodeId) → `eN`, stable across snapshots.

use serde::{Deserialize, Serialize};

use crate::error::SnapshotError;
use crate::ids::Ref;

/// What the table remembers about a ref'd node: enough to find it again and to check it is still the same
/// element (role and name) when its backendNodeId has gone stale.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefEntry {
    /// The ref (`e7`).
    #[serde(rename = "ref")]
    pub reference: Ref,
    /// CDP frameId of the frame that holds the node.
    pub frame_id: String,
    /// Frame ordinal at the last snapshot that saw the node.
    pub frame_index: u32,
    /// backendNodeId inside that frame.
    pub backend_node_id: i64,
    /// Role at the last snapshot (our role names: `button`, `text`, `iframe`, ...).
    pub role: String,
    /// Cleaned accessible name at the last snapshot.
    pub name: String,
    /// XPath of the node relative to its frame document (this crate's dialect, see [`crate::xpath`]).
    pub xpath: String,
    /// Users act on it: an interactive role, or a cursor-interactive element (`onclick`,
    /// `tabindex`, `contenteditable`, `cursor: pointer`), as `snapshot -i` lists it.
    #[serde(default)]
    pub interactive: bool,
}

/// Refs of one tab. Numbers grow from 1 and are never reused until [`RefTable::reset`] (explicit navigation).
///
/// Serialises as `{"next": N, "entries": [...]}` so the CLI daemon can persist it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(from = "RefTableFile", into = "RefTableFile")]
pub struct RefTable {
    next: u32,
    /// The counter before the last [`RefTable::reset`]: refs below it were handed out for an
    /// earlier page (until numbers are handed out again).
    retired: u32,
    entries: Vec<RefEntry>,
    by_node: crate::fasthash::FastMap<(String, i64), usize>,
    by_ref: crate::fasthash::FastMap<u32, usize>,
}

#[derive(Serialize, Deserialize)]
struct RefTableFile {
    next: u32,
    #[serde(default)]
    retired: u32,
    entries: Vec<RefEntry>,
}

impl From<RefTableFile> for RefTable {
    fn from(f: RefTableFile) -> Self {
        let mut t = RefTable {
            next: f.next.max(1),
            retired: f.retired,
            ..RefTable::default()
        };
        for e in f.entries {
            t.next = t.next.max(e.reference.number().saturating_add(1));
            t.insert_entry(e);
        }
        t
    }
}

impl From<RefTable> for RefTableFile {
    fn from(t: RefTable) -> Self {
        RefTableFile {
            next: t.next.max(1),
            retired: t.retired,
            entries: t.entries,
        }
    }
}

impl RefTable {
    /// An empty table; the first ref handed out is `e1`.
    pub fn new() -> Self {
        RefTable {
            next: 1,
            ..RefTable::default()
        }
    }

    /// Forgets every ref; numbering restarts at `e1`. Call on goto / back / forward / reload.
    pub fn reset(&mut self) {
        let retired = self.next.max(self.retired);
        *self = RefTable {
            retired,
            ..RefTable::new()
        };
    }

    /// Refs below this number that the table does not know were handed out for an earlier page
    /// (before a reset, or a navigation that kept the numbering).
    pub fn earlier_below(&self) -> u32 {
        self.next.max(self.retired)
    }

    /// Forgets every ref but keeps the numbering (after a navigation a click caused): a ref of the
    /// old page is then known to be stale rather than naming a node of the new one.
    pub fn clear_keep_numbering(&mut self) {
        *self = RefTable {
            next: self.next,
            retired: self.retired,
            ..RefTable::new()
        };
    }

    /// The number of the next ref handed out (`e<n>`); refs below it were handed out before.
    pub fn next_number(&self) -> u32 {
        self.next
    }

    /// Number of refs handed out since the last reset.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when no ref was handed out since the last reset.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn insert_entry(&mut self, e: RefEntry) {
        let key = (e.frame_id.clone(), e.backend_node_id);
        if self.by_node.contains_key(&key) || self.by_ref.contains_key(&e.reference.number()) {
            return;
        }
        let i = self.entries.len();
        self.by_node.insert(key, i);
        self.by_ref.insert(e.reference.number(), i);
        self.entries.push(e);
    }

    /// The ref of a node, handing out the next number if the node has none yet. The stored role, name,
    /// XPath and frame index are refreshed from `entry` either way.
    pub fn assign(&mut self, entry: RefEntry) -> Ref {
        let key = (entry.frame_id.clone(), entry.backend_node_id);
        if let Some(&i) = self.by_node.get(&key) {
            let slot = &mut self.entries[i];
            let r = slot.reference;
            *slot = RefEntry {
                reference: r,
                ..entry
            };
            return r;
        }
        let n = self.next.max(1);
        // u32 refs: 4 billion nodes per tab between navigations is far beyond any page.
        self.next = n.saturating_add(1);
        let r = Ref::new(n).unwrap_or(entry.reference);
        self.insert_entry(RefEntry {
            reference: r,
            ..entry
        });
        r
    }

    /// The ref already given to (frame, backendNodeId), if any.
    pub fn get(&self, frame_id: &str, backend_node_id: i64) -> Option<Ref> {
        self.by_node
            .get(&(frame_id.to_string(), backend_node_id))
            .map(|&i| self.entries[i].reference)
    }

    /// What the table knows about a ref.
    pub fn entry(&self, r: Ref) -> Option<&RefEntry> {
        self.by_ref.get(&r.number()).map(|&i| &self.entries[i])
    }

    /// Like [`RefTable::entry`], but an unknown ref is a [`SnapshotError::RefNotFound`].
    pub fn lookup(&self, r: Ref) -> Result<&RefEntry, SnapshotError> {
        self.entry(r).ok_or_else(|| SnapshotError::RefNotFound {
            reference: r.to_string(),
        })
    }

    /// Every entry, in the order the refs were handed out.
    pub fn entries(&self) -> &[RefEntry] {
        &self.entries
    }

    /// Serialises the table to JSON bytes (for the daemon's persistence).
    pub fn to_json(&self) -> Vec<u8> {
        let file = RefTableFile {
            next: self.next.max(1),
            retired: self.retired,
            entries: self.entries.clone(),
        };
        serde_json::to_vec(&file).unwrap_or_default()
    }

    /// Reads a table written by [`RefTable::to_json`].
    pub fn from_json(bytes: &[u8]) -> Result<RefTable, SnapshotError> {
        serde_json::from_slice::<RefTableFile>(bytes)
            .map(RefTable::from)
            .map_err(|source| SnapshotError::Decode {
                what: "ref table".into(),
                source,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::prelude::*;

    fn entry(frame: &str, id: i64) -> RefEntry {
        RefEntry {
            reference: Ref::new(1).unwrap_or_else(|| unreachable!()),
            frame_id: frame.into(),
            frame_index: 0,
            backend_node_id: id,
            role: "button".into(),
            name: format!("b{id}"),
            xpath: "/html[1]".into(),
            interactive: true,
        }
    }

    #[test]
    fn refs_before_a_reset_are_known_as_earlier_ones() {
        let mut t = RefTable::new();
        for id in 1..=5 {
            t.assign(entry("F", id));
        }
        assert_eq!(t.earlier_below(), 6);
        t.reset();
        assert_eq!(t.next_number(), 1);
        assert_eq!(
            t.earlier_below(),
            6,
            "e1..e5 were handed out for the page before"
        );
        let back = RefTable::from_json(&t.to_json()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back.earlier_below(), 6, "kept across a daemon restart");
        t.assign(entry("G", 1));
        t.reset();
        assert_eq!(t.earlier_below(), 6, "never lower than before");
    }
    #[test]
    fn clearing_keeps_the_numbering() {
        let mut t = RefTable::new();
        let a = t.assign(entry("F", 1));
        t.assign(entry("F", 2));
        assert_eq!(t.next_number(), 3);
        t.clear_keep_numbering();
        assert!(t.is_empty());
        assert_eq!(t.get("F", 1), None);
        assert!(t.lookup(a).is_err());
        assert_eq!(t.next_number(), 3);
        let c = t.assign(entry("F", 1));
        assert_eq!(c.number(), 3, "numbering goes on");
    }

    #[test]
    fn numbering_is_stable_and_frame_scoped() {
        let mut t = RefTable::new();
        let a = t.assign(entry("F0", 10));
        let b = t.assign(entry("F1", 10));
        let a2 = t.assign(entry("F0", 10));
        assert_eq!(
            (a.to_string(), b.to_string(), a2),
            ("e1".into(), "e2".into(), a)
        );
        assert_eq!(t.get("F1", 10), Some(b));
        t.reset();
        assert!(t.is_empty());
        assert_eq!(t.assign(entry("F1", 10)).to_string(), "e1");
    }

    proptest! {
        #[test]
        fn persisted_table_keeps_numbers(keys in proptest::collection::vec((0u8..3, 1i64..50), 0..60)) {
            let mut t = RefTable::new();
            let mut seen: std::collections::HashMap<(u8, i64), Ref> = std::collections::HashMap::new();
            for (f, id) in &keys {
                let r = t.assign(entry(&format!("F{f}"), *id));
                let prev = *seen.entry((*f, *id)).or_insert(r);
                prop_assert_eq!(prev, r);
            }
            // Numbers are 1..=distinct, handed out in first-seen order.
            prop_assert_eq!(t.len(), seen.len());
            let back = RefTable::from_json(&t.to_json()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            for ((f, id), r) in &seen {
                prop_assert_eq!(back.get(&format!("F{f}"), *id), Some(*r));
                prop_assert_eq!(back.entry(*r).map(|e| e.backend_node_id), Some(*id));
            }
            let mut back = back;
            let fresh = back.assign(entry("new", 1));
            prop_assert_eq!(fresh.number() as usize, seen.len() + 1);
        }
    }
}
