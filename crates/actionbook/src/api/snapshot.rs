//! [`Snapshot`]: a tab's accessibility snapshot as typed data, its nodes' [`Ref`]s passed back to
//! any call that takes a [`Selector`].

use std::fmt;

use envelope::{SnapshotData, SnapshotDiff};

/// A snapshot ref (`@e3`): names one element of the tab in any frame, out-of-process ones too,
/// and stays the same while the element does.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ref(String);

impl Ref {
    /// The ref as a selector (`@e3`).
    pub fn as_selector(&self) -> String {
        format!("@{}", self.0)
    }
}

impl fmt::Display for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}", self.0)
    }
}

/// One ref'd node of a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Its ref.
    pub r#ref: Ref,
    /// Its role (`button`, `textbox`, ...).
    pub role: String,
    /// Its accessible name.
    pub name: String,
    /// Its value (a text field's text), empty when none.
    pub value: String,
}

/// A tab's snapshot: the text the CLI prints and its ref'd nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// The snapshot's text (a diff's marked lines, for [`crate::api::Tab::snapshot_diff`]).
    pub text: String,
    /// The ref'd nodes, in document order (a diff's: the added and changed ones).
    pub nodes: Vec<Node>,
    /// The tab's snapshot revision this is (diffs and [`crate::api::Tab::snapshot_diff`] only).
    pub revision: Option<u64>,
    /// What a diff compared (diffs only).
    pub diff: Option<SnapshotDiff>,
    /// Where the engine saved the text.
    pub path: String,
}

impl Snapshot {
    pub(crate) fn from_data(data: SnapshotData, text: String) -> Snapshot {
        Snapshot {
            text,
            nodes: data
                .nodes
                .into_iter()
                .map(|n| Node {
                    r#ref: Ref(n.ref_id),
                    role: n.role,
                    name: n.name,
                    value: n.value,
                })
                .collect(),
            revision: data.revision,
            diff: data.diff,
            path: data.path,
        }
    }

    /// The first node with this role whose name is exactly `name`.
    pub fn find(&self, role: &str, name: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.role == role && n.name == name)
    }

    /// The first node whose name is exactly `name`, any role.
    pub fn by_name(&self, name: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.name == name)
    }

    /// Whether the diff found nothing changed (false for a full snapshot).
    pub fn unchanged(&self) -> bool {
        self.diff
            .as_ref()
            .is_some_and(|d| !d.full && d.added == 0 && d.removed == 0 && d.changed == 0)
    }
}

/// What a call acts on, in any form the engine takes: `@eN` refs, CSS (with `query`'s
/// `:visible`, `:has-text()`, ...), XPath (`/...`), `role=button[name="Save"]`, frame paths
/// (`iframe#pay >> #card`). Made from a `&str`, a [`Ref`] or a [`Node`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Selector(pub String);

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Selector {
    fn from(s: &str) -> Selector {
        Selector(s.to_string())
    }
}

impl From<String> for Selector {
    fn from(s: String) -> Selector {
        Selector(s)
    }
}

impl From<&String> for Selector {
    fn from(s: &String) -> Selector {
        Selector(s.clone())
    }
}

impl From<&Ref> for Selector {
    fn from(r: &Ref) -> Selector {
        Selector(r.as_selector())
    }
}

impl From<Ref> for Selector {
    fn from(r: Ref) -> Selector {
        Selector(r.as_selector())
    }
}

impl From<&Node> for Selector {
    fn from(n: &Node) -> Selector {
        Selector(n.r#ref.as_selector())
    }
}
