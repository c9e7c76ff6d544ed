//! What the tree builder reads from a frame's accessibility tree ([`AxInput`]), for Chromium's
//! decoded nodes ([`ChromiumAx`]) and for the compact tree computed from the DOM capture
//! ([`ComputedTree`]).

use crate::dom::FrameDom;
use crate::raw::{AxNode, AxProperty, AxScalar};

/// "No node".
pub(crate) const NIL: u32 = u32::MAX;

/// Read access to one frame's AX tree by dense node index.
pub(crate) trait AxInput {
    /// Number of nodes.
    fn len(&self) -> usize;
    /// The root (the frame's document).
    fn root(&self) -> u32;
    /// A cursor at the first child of `i` (pass it to [`AxInput::advance`]).
    fn first(&self, i: u32) -> u32;
    /// The child at `cursor` (None when its id is unknown) and the next cursor; None when done.
    fn advance(&self, i: u32, cursor: u32) -> Option<(Option<u32>, u32)>;
    /// Chromium's role string ("" when none).
    fn role(&self, i: u32) -> &str;
    /// Chromium considers the node ignored.
    fn ignored(&self, i: u32) -> bool;
    /// backendNodeId (0 when the node has no DOM node).
    fn backend(&self, i: u32) -> i64;
    /// Index of the node's DOM entry in `dom` ([`NIL`] when unknown).
    fn entry(&self, i: u32, dom: &FrameDom) -> u32 {
        match self.backend(i) {
            0 => NIL,
            b => dom.find(b).unwrap_or(NIL),
        }
    }
    /// Moves the name out.
    fn take_name(&mut self, i: u32) -> AxScalar;
    /// Moves the value out.
    fn take_value(&mut self, i: u32) -> AxScalar;
    /// States and link target.
    fn properties(&self, i: u32) -> &[AxProperty];
}

/// Maps ids to positions: a vector when the ids are small, a hash map otherwise.
#[derive(Debug)]
enum IdIndex {
    Dense(Vec<u32>),
    Sparse(crate::fasthash::FastMap<i64, u32>),
}

impl IdIndex {
    fn get(&self, id: i64) -> Option<u32> {
        match self {
            IdIndex::Dense(v) => usize::try_from(id)
                .ok()
                .and_then(|i| v.get(i))
                .copied()
                .filter(|&p| p != NIL),
            IdIndex::Sparse(m) => m.get(&id).copied(),
        }
    }
}

/// Chromium's `getFullAXTree` nodes with their id index.
#[derive(Debug)]
pub(crate) struct ChromiumAx {
    nodes: Vec<AxNode>,
    index: IdIndex,
    root: u32,
}

impl ChromiumAx {
    /// Indexes the nodes by id.
    pub(crate) fn new(nodes: Vec<AxNode>) -> ChromiumAx {
        let max = nodes.iter().map(|n| n.node_id.0).max().unwrap_or(0);
        let min = nodes.iter().map(|n| n.node_id.0).min().unwrap_or(0);
        // Chromium numbers most nodes from 1 up, but not all (nodes without a DOM node can have
        // negative ids): a vector only when every id fits one.
        let index = if min >= 0 && (max as usize) < nodes.len().saturating_mul(4).max(1024) {
            let mut v = vec![NIL; max as usize + 1];
            for (i, n) in nodes.iter().enumerate() {
                if let Ok(id) = usize::try_from(n.node_id.0)
                    && v[id] == NIL
                {
                    v[id] = i as u32;
                }
            }
            IdIndex::Dense(v)
        } else {
            let mut m =
                crate::fasthash::FastMap::with_capacity_and_hasher(nodes.len(), Default::default());
            for (i, n) in nodes.iter().enumerate() {
                m.entry(n.node_id.0).or_insert(i as u32);
            }
            IdIndex::Sparse(m)
        };
        let root = nodes
            .iter()
            .position(|n| n.parent_id.is_none())
            .unwrap_or(0) as u32;
        ChromiumAx { nodes, index, root }
    }
}

impl AxInput for ChromiumAx {
    fn len(&self) -> usize {
        self.nodes.len()
    }
    fn root(&self) -> u32 {
        self.root
    }
    fn first(&self, _i: u32) -> u32 {
        0
    }
    fn advance(&self, i: u32, cursor: u32) -> Option<(Option<u32>, u32)> {
        let id = self.nodes.get(i as usize)?.child_ids.get(cursor as usize)?;
        Some((self.index.get(id.0), cursor + 1))
    }
    fn role(&self, i: u32) -> &str {
        match self.nodes.get(i as usize).and_then(|n| n.role.as_ref()) {
            Some(v) => match &v.value {
                AxScalar::Role(r) => r,
                AxScalar::Str(s) => s,
                _ => "",
            },
            None => "",
        }
    }
    fn ignored(&self, i: u32) -> bool {
        self.nodes.get(i as usize).is_some_and(|n| n.ignored)
    }
    fn backend(&self, i: u32) -> i64 {
        self.nodes
            .get(i as usize)
            .and_then(|n| n.backend_dom_node_id)
            .unwrap_or(0)
    }
    fn take_name(&mut self, i: u32) -> AxScalar {
        self.nodes
            .get_mut(i as usize)
            .and_then(|n| n.name.take())
            .map(|v| v.value)
            .unwrap_or_default()
    }
    fn take_value(&mut self, i: u32) -> AxScalar {
        self.nodes
            .get_mut(i as usize)
            .and_then(|n| n.value.take())
            .map(|v| v.value)
            .unwrap_or_default()
    }
    fn properties(&self, i: u32) -> &[AxProperty] {
        self.nodes
            .get(i as usize)
            .map_or(&[], |n| n.properties.as_slice())
    }
}

/// A frame's accessibility tree computed from its DOM capture, as compact parallel arrays
/// (node 0 is the document). Produced by the capture with [`crate::AxSource::Computed`].
#[derive(Debug, Clone, Default)]
pub struct ComputedTree {
    role: Vec<&'static str>,
    ignored: Vec<bool>,
    backend: Vec<i64>,
    entry: Vec<u32>,
    first_child: Vec<u32>,
    next_sibling: Vec<u32>,
    last_child: Vec<u32>,
    name: Vec<Option<String>>,
    value: Vec<(u32, AxScalar)>,
    props: Vec<(u32, Vec<AxProperty>)>,
}

impl ComputedTree {
    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.role.len()
    }

    /// True when the tree has no nodes.
    pub fn is_empty(&self) -> bool {
        self.role.is_empty()
    }

    /// Appends a node under `parent` (None for the root); returns its index.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push(
        &mut self,
        parent: Option<u32>,
        role: &'static str,
        ignored: bool,
        backend: i64,
        entry: u32,
        name: Option<String>,
        value: Option<AxScalar>,
        props: Vec<AxProperty>,
    ) -> u32 {
        let me = self.role.len() as u32;
        self.role.push(role);
        self.ignored.push(ignored);
        self.backend.push(backend);
        self.entry.push(entry);
        self.first_child.push(NIL);
        self.next_sibling.push(NIL);
        self.last_child.push(NIL);
        self.name.push(name);
        if let Some(v) = value {
            self.value.push((me, v));
        }
        if !props.is_empty() {
            self.props.push((me, props));
        }
        if let Some(p) = parent.map(|p| p as usize)
            && p < self.last_child.len()
        {
            match self.last_child[p] {
                NIL => self.first_child[p] = me,
                l => self.next_sibling[l as usize] = me,
            }
            self.last_child[p] = me;
        }
        me
    }

    /// Drops what building no longer needs and trims capacity.
    pub(crate) fn finish(&mut self) {
        self.last_child = Vec::new();
        self.role.shrink_to_fit();
        self.ignored.shrink_to_fit();
        self.backend.shrink_to_fit();
        self.entry.shrink_to_fit();
        self.first_child.shrink_to_fit();
        self.next_sibling.shrink_to_fit();
        self.name.shrink_to_fit();
    }
}

impl AxInput for ComputedTree {
    fn len(&self) -> usize {
        self.role.len()
    }
    fn root(&self) -> u32 {
        0
    }
    fn first(&self, i: u32) -> u32 {
        self.first_child.get(i as usize).copied().unwrap_or(NIL)
    }
    fn advance(&self, _i: u32, cursor: u32) -> Option<(Option<u32>, u32)> {
        if cursor == NIL {
            return None;
        }
        let next = self
            .next_sibling
            .get(cursor as usize)
            .copied()
            .unwrap_or(NIL);
        Some((Some(cursor), next))
    }
    fn role(&self, i: u32) -> &str {
        self.role.get(i as usize).copied().unwrap_or("")
    }
    fn ignored(&self, i: u32) -> bool {
        self.ignored.get(i as usize).copied().unwrap_or(false)
    }
    fn backend(&self, i: u32) -> i64 {
        self.backend.get(i as usize).copied().unwrap_or(0)
    }
    fn entry(&self, i: u32, dom: &FrameDom) -> u32 {
        match self.entry.get(i as usize).copied().unwrap_or(NIL) {
            NIL => match self.backend(i) {
                0 => NIL,
                b => dom.find(b).unwrap_or(NIL),
            },
            e => e,
        }
    }
    fn take_name(&mut self, i: u32) -> AxScalar {
        self.name
            .get_mut(i as usize)
            .and_then(Option::take)
            .map_or(AxScalar::None, AxScalar::Str)
    }
    fn take_value(&mut self, i: u32) -> AxScalar {
        match self.value.binary_search_by_key(&i, |(k, _)| *k) {
            Ok(k) => std::mem::take(&mut self.value[k].1),
            Err(_) => AxScalar::None,
        }
    }
    fn properties(&self, i: u32) -> &[AxProperty] {
        match self.props.binary_search_by_key(&i, |(k, _)| *k) {
            Ok(k) => &self.props[k].1,
            Err(_) => &[],
        }
    }
}
