//! Flat arena index of a value in a [`JsonDoc`](toolscope_core::json_doc::JsonDoc), built once per value.
//!
//! Children of a node are stored contiguously so a node's children are a plain
//! index range, and object keys live in one shared `String` so building the index
//! does not allocate per key. Scalar values are not copied: each node knows its place in the
//! document, and previews are read from there for the few rows on screen.

use std::ops::Range;

use toolscope_core::json_doc::{JsonKind, JsonRef};
use toolscope_core::json_pointer::{parse_array_index, pointer_escape};

/// Parent of the root.
pub(super) const NO_PARENT: u32 = u32::MAX;

/// A node's kind: the document's own.
pub(super) use toolscope_core::json_doc::JsonKind as Kind;

#[derive(Clone, Copy, Debug)]
pub(super) struct Node {
    pub(super) parent: u32,
    pub(super) first_child: u32,
    pub(super) child_count: u32,
    /// Byte range of the object key in [`JsonIndex::keys`]; unused for array items.
    key_start: u32,
    key_len: u32,
    pub(super) depth: u32,
    /// Where the value is in its document ([`JsonRef::id`]).
    doc_id: u32,
    pub(super) kind: Kind,
}

/// How a node is reached from its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KeyRef<'a> {
    Root,
    Index(usize),
    Name(&'a str),
}

#[derive(Debug, Default)]
pub(super) struct JsonIndex {
    nodes: Vec<Node>,
    keys: String,
}

impl JsonIndex {
    /// Builds the arena iteratively: deep values must not overflow the stack.
    pub(super) fn build(value: JsonRef<'_>) -> Self {
        let node =
            |parent: u32, key_start: u32, key_len: u32, depth: u32, child: JsonRef<'_>| Node {
                parent,
                first_child: 0,
                child_count: 0,
                key_start,
                key_len,
                depth,
                doc_id: child.id(),
                kind: child.kind(),
            };
        let mut nodes = vec![node(NO_PARENT, 0, 0, 0, value)];
        let mut keys = String::new();
        let mut stack: Vec<(u32, JsonRef<'_>)> = vec![(0, value)];

        while let Some((idx, value)) = stack.pop() {
            let depth = nodes[idx as usize].depth + 1;
            let first = nodes.len() as u32;
            match value.kind() {
                JsonKind::Object => {
                    for (key, child) in value.entries() {
                        let key_start = keys.len() as u32;
                        keys.push_str(&key);
                        nodes.push(node(idx, key_start, key.len() as u32, depth, child));
                    }
                }
                JsonKind::Array => {
                    nodes.extend(value.items().map(|child| node(idx, 0, 0, depth, child)));
                }
                _ => continue,
            }
            let count = nodes.len() as u32 - first;
            let containers = (first..first + count).filter_map(|at| {
                let child = value.doc().by_id(nodes[at as usize].doc_id)?;
                child.is_container().then_some((at, child))
            });
            let containers: Vec<(u32, JsonRef<'_>)> = containers.collect();
            stack.extend(containers);
            let node = &mut nodes[idx as usize];
            node.first_child = first;
            node.child_count = count;
        }
        nodes.shrink_to_fit();
        keys.shrink_to_fit();
        Self { nodes, keys }
    }

    pub(super) fn len(&self) -> usize {
        self.nodes.len()
    }

    pub(super) fn get(&self, node: u32) -> Option<&Node> {
        self.nodes.get(node as usize)
    }

    pub(super) fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    pub(super) fn children(&self, node: u32) -> Range<u32> {
        self.get(node).map_or(0..0, |n| {
            if n.kind.is_container() {
                n.first_child..n.first_child + n.child_count
            } else {
                0..0
            }
        })
    }

    pub(super) fn parent(&self, node: u32) -> Option<u32> {
        self.get(node).map(|n| n.parent).filter(|&p| p != NO_PARENT)
    }

    pub(super) fn key(&self, node: u32) -> KeyRef<'_> {
        let Some(n) = self.get(node) else {
            return KeyRef::Root;
        };
        let Some(parent) = self.get(n.parent) else {
            return KeyRef::Root;
        };
        match parent.kind {
            Kind::Array => KeyRef::Index(node.saturating_sub(parent.first_child) as usize),
            _ => {
                let start = n.key_start as usize;
                let end = start + n.key_len as usize;
                KeyRef::Name(self.keys.get(start..end).unwrap_or_default())
            }
        }
    }

    /// Iterates the strict ancestors, nearest first.
    pub(super) fn ancestors(&self, node: u32) -> impl Iterator<Item = u32> + '_ {
        std::iter::successors(self.parent(node), |&n| self.parent(n))
    }

    /// Path from the root (excluded) down to `node` (included).
    fn path(&self, node: u32) -> Vec<u32> {
        let mut path: Vec<u32> = Vec::new();
        if node != 0 && self.get(node).is_some() {
            path.push(node);
            path.extend(self.ancestors(node).filter(|&a| a != 0));
        }
        path.reverse();
        path
    }

    /// RFC 6901 pointer of `node` ("" for the root).
    pub(super) fn pointer(&self, node: u32) -> String {
        let mut out = String::new();
        for n in self.path(node) {
            out.push('/');
            match self.key(n) {
                KeyRef::Root => {}
                KeyRef::Index(i) => out.push_str(&i.to_string()),
                KeyRef::Name(k) => out.push_str(&pointer_escape(k)),
            }
        }
        out
    }

    /// The child of `node` reached by an (unescaped) pointer token.
    pub(super) fn child_by_token(&self, node: u32, token: &str) -> Option<u32> {
        let n = self.get(node)?;
        match n.kind {
            Kind::Array => {
                let i = parse_array_index(token)?;
                (i < n.child_count as usize).then(|| n.first_child + i as u32)
            }
            Kind::Object => self
                .children(node)
                .find(|&c| self.key(c) == KeyRef::Name(token)),
            _ => None,
        }
    }

    /// The value of `node` in the document of `root` (the value this index was built from).
    pub(super) fn resolve<'v>(&self, root: JsonRef<'v>, node: u32) -> Option<JsonRef<'v>> {
        root.doc().by_id(self.get(node)?.doc_id)
    }
}
