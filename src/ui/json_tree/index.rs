//! Flat arena index of a `serde_json::Value`, built once per value.
//!
//! Children of a node are stored contiguously so a node's children are a plain
//! index range, and object keys live in one shared `String` so building the index
//! does not allocate per key. Scalar values are not copied: previews are made lazily
//! from the caller's `Value` for the few rows on screen.

use std::ops::Range;

use serde_json::Value;

use crate::json_pointer::{parse_array_index, pointer_escape};

/// Parent of the root.
pub(super) const NO_PARENT: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

impl Kind {
    pub(super) fn of(value: &Value) -> Self {
        match value {
            Value::Object(_) => Self::Object,
            Value::Array(_) => Self::Array,
            Value::String(_) => Self::String,
            Value::Number(_) => Self::Number,
            Value::Bool(_) => Self::Bool,
            Value::Null => Self::Null,
        }
    }

    pub(super) fn is_container(self) -> bool {
        matches!(self, Self::Object | Self::Array)
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Node {
    pub(super) parent: u32,
    pub(super) first_child: u32,
    pub(super) child_count: u32,
    /// Byte range of the object key in [`JsonIndex::keys`]; unused for array items.
    key_start: u32,
    key_len: u32,
    pub(super) depth: u32,
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
    pub(super) fn build(value: &Value) -> Self {
        let mut nodes = vec![Node {
            parent: NO_PARENT,
            first_child: 0,
            child_count: 0,
            key_start: 0,
            key_len: 0,
            depth: 0,
            kind: Kind::of(value),
        }];
        let mut keys = String::new();
        let mut stack: Vec<(u32, &Value)> = vec![(0, value)];

        while let Some((idx, value)) = stack.pop() {
            let depth = nodes[idx as usize].depth + 1;
            let first = nodes.len() as u32;
            match value {
                Value::Object(map) => {
                    for (key, child) in map {
                        let key_start = keys.len() as u32;
                        keys.push_str(key);
                        nodes.push(Node {
                            parent: idx,
                            first_child: 0,
                            child_count: 0,
                            key_start,
                            key_len: key.len() as u32,
                            depth,
                            kind: Kind::of(child),
                        });
                    }
                    stack.extend(map.values().enumerate().filter_map(|(i, child)| {
                        Kind::of(child)
                            .is_container()
                            .then_some((first + i as u32, child))
                    }));
                    let node = &mut nodes[idx as usize];
                    node.first_child = first;
                    node.child_count = map.len() as u32;
                }
                Value::Array(items) => {
                    nodes.extend(items.iter().map(|child| Node {
                        parent: idx,
                        first_child: 0,
                        child_count: 0,
                        key_start: 0,
                        key_len: 0,
                        depth,
                        kind: Kind::of(child),
                    }));
                    stack.extend(items.iter().enumerate().filter_map(|(i, child)| {
                        Kind::of(child)
                            .is_container()
                            .then_some((first + i as u32, child))
                    }));
                    let node = &mut nodes[idx as usize];
                    node.first_child = first;
                    node.child_count = items.len() as u32;
                }
                _ => {}
            }
        }
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

    /// Finds the `Value` of `node` inside `root` (the value this index was built from).
    ///
    /// Walks down from the root: O(depth), with hashed lookups for object keys.
    pub(super) fn resolve<'v>(&self, root: &'v Value, node: u32) -> Option<&'v Value> {
        let mut value = root;
        for n in self.path(node) {
            value = match (self.key(n), value) {
                (KeyRef::Index(i), Value::Array(items)) => items.get(i)?,
                (KeyRef::Name(k), Value::Object(map)) => map.get(k)?,
                _ => return None,
            };
        }
        Some(value)
    }
}
