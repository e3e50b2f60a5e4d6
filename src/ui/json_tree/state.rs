//! Expansion, selection, search and scroll state of one JSON tree.
//!
//! Everything proportional to the tree size (index, expansion flags, visible rows,
//! match list) is rebuilt only when the value, the expansion or the search changes;
//! a frame only reads it.

use std::collections::HashMap;

use super::NodeMark;
use super::index::JsonIndex;
use super::search::{Matcher, find_matches};
use toolscope_core::json_doc::JsonRef;
use toolscope_core::json_pointer::parse_pointer;

/// Expansion level applied when a new value arrives: root and its children open.
const DEFAULT_LEVEL: usize = 2;

#[derive(Default)]
pub struct JsonTreeState {
    pub(super) index: Option<JsonIndex>,
    generation: u64,
    /// One flag per node; meaningless for scalars.
    expanded: Vec<bool>,
    /// Node ids of the rows on screen when fully scrolled, in display order.
    pub(super) visible: Vec<u32>,
    pub(super) selected: Option<u32>,
    /// A `select_pointer` that arrived before any value; applied on the next build.
    pending_select: Option<String>,
    /// Set when `select_pointer` fell back: (requested pointer, selected ancestor pointer).
    pub(super) fallback_note: Option<(String, String)>,
    query: String,
    /// The text in the search box; `query` follows it.
    pub(super) search_input: String,
    search_dirty: bool,
    matches: Vec<u32>,
    is_match: Vec<bool>,
    pub(super) current_match: Option<usize>,
    /// Node to bring into view on the next frame.
    pub(super) scroll_to: Option<u32>,
    /// Vertical offset of the scroll area last frame, to decide whether a row is on screen.
    pub(super) last_scroll_offset: f32,
    /// The caller's marks, for the value of `marks_generation`, and where they landed.
    marks: Vec<NodeMark>,
    marks_generation: Option<u64>,
    marks_by_node: HashMap<u32, Vec<usize>>,
    /// Ghost rows (missing properties) by the object they belong under: indices into `marks`.
    ghosts_by_node: HashMap<u32, Vec<usize>>,
}

/// Ghost rows get ids from the top of the id space, far above any real node.
const GHOST_BASE: u32 = u32::MAX - 1_000_000;
/// The most marks a tree holds (the analysis lists far fewer violations).
const MAX_MARKS: usize = 100_000;

/// Whether a visible row is a ghost (a missing property) rather than a node.
pub(super) fn is_ghost(row_id: u32) -> bool {
    row_id > GHOST_BASE
}

/// Summarised: the per-node vectors hold a million entries on large values.
impl std::fmt::Debug for JsonTreeState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonTreeState")
            .field("generation", &self.generation)
            .field("nodes", &self.index.as_ref().map_or(0, JsonIndex::len))
            .field("visible_rows", &self.visible.len())
            .field("selected", &self.selected_pointer())
            .field("query", &self.query)
            .field("matches", &self.matches.len())
            .finish_non_exhaustive()
    }
}

impl JsonTreeState {
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes the state describe `value`. Cheap when nothing changed: the index is
    /// rebuilt only when `generation` differs, the search only when the query did.
    ///
    /// [`super::json_tree_ui`] calls this; call it yourself to use the state without a UI.
    pub fn sync(&mut self, generation: u64, value: JsonRef<'_>) {
        if self.index.is_none() || self.generation != generation {
            self.rebuild(generation, value);
        }
        if self.search_dirty {
            self.run_search(value);
        }
    }

    /// Pins `marks` (made only when `generation` is new) to their nodes. A mark whose node does
    /// not exist lands on its deepest existing ancestor.
    pub fn set_marks(&mut self, generation: u64, marks: impl FnOnce() -> Vec<NodeMark>) {
        if self.marks_generation == Some(generation) {
            return;
        }
        self.marks = marks();
        // Ghost rows take ids above GHOST_BASE: keep them clear of the top of the id space.
        self.marks.truncate(MAX_MARKS);
        self.marks_generation = Some(generation);
        self.place_marks();
    }

    fn place_marks(&mut self) {
        self.marks_by_node.clear();
        self.ghosts_by_node.clear();
        let Some(index) = &self.index else {
            return;
        };
        for (at, mark) in self.marks.iter().enumerate() {
            let node = deepest_node(index, &mark.pointer);
            let place = if mark.missing_key.is_some() {
                &mut self.ghosts_by_node
            } else {
                &mut self.marks_by_node
            };
            place.entry(node).or_default().push(at);
        }
        self.rebuild_visible();
    }

    /// The mark behind a ghost row.
    pub(super) fn ghost(&self, row_id: u32) -> Option<&NodeMark> {
        self.marks.get((row_id - GHOST_BASE - 1) as usize)
    }

    /// The object a ghost row belongs under.
    pub(super) fn ghost_parent(&self, row_id: u32) -> Option<u32> {
        let at = (row_id - GHOST_BASE - 1) as usize;
        self.ghosts_by_node
            .iter()
            .find(|(_, marks)| marks.contains(&at))
            .map(|(&node, _)| node)
    }

    /// The marks on `node`.
    pub(super) fn marks_of(&self, node: u32) -> impl Iterator<Item = &NodeMark> {
        self.marks_by_node
            .get(&node)
            .into_iter()
            .flatten()
            .filter_map(|&at| self.marks.get(at))
    }

    /// Frees what grows with the value (the index, the flags, the rows, the matches) while the
    /// tree is not drawn (the Raw response tab is shown); the next `sync` builds it again at
    /// the default level, the selected node selected again.
    pub fn release_index(&mut self) {
        if self.index.is_none() {
            return;
        }
        if self.pending_select.is_none() {
            self.pending_select = self.selected_pointer();
        }
        self.index = None;
        self.expanded = Vec::new();
        self.visible = Vec::new();
        self.selected = None;
        self.matches = Vec::new();
        self.is_match = Vec::new();
        self.current_match = None;
        self.scroll_to = None;
        self.marks_by_node.clear();
        self.ghosts_by_node.clear();
        self.search_dirty = true;
    }

    fn rebuild(&mut self, generation: u64, value: JsonRef<'_>) {
        // Keep the user's place across re-runs of the same tool when the node still exists.
        let previous = self.selected_pointer();
        let index = JsonIndex::build(value);
        self.expanded = vec![false; index.len()];
        self.index = Some(index);
        self.generation = generation;
        self.selected = None;
        self.current_match = None;
        self.scroll_to = None;
        self.fallback_note = None;
        self.search_dirty = true;
        self.expand_to_level(DEFAULT_LEVEL);
        self.place_marks();
        if let Some(pointer) = self.pending_select.take() {
            self.select_pointer(&pointer);
        } else if let Some(pointer) = previous {
            self.select_existing(&pointer);
        }
    }

    pub fn expand_all(&mut self) {
        self.expanded.fill(true);
        self.rebuild_visible();
    }

    /// Collapses every node, the root included: only the root row stays visible.
    pub fn collapse_all(&mut self) {
        self.expanded.fill(false);
        self.rebuild_visible();
    }

    /// Opens exactly the nodes shallower than `level`: level 1 shows the root's
    /// children, level 2 their children too, level 0 only the root.
    pub fn expand_to_level(&mut self, level: usize) {
        if let Some(index) = &self.index {
            for (flag, node) in self.expanded.iter_mut().zip(index.nodes()) {
                *flag = (node.depth as usize) < level;
            }
        }
        self.rebuild_visible();
    }

    pub(super) fn is_expanded(&self, node: u32) -> bool {
        self.expanded.get(node as usize).copied().unwrap_or(false)
    }

    pub(super) fn set_expanded(&mut self, node: u32, open: bool) {
        let is_container = self
            .index
            .as_ref()
            .and_then(|i| i.get(node))
            .is_some_and(|n| n.kind.is_container());
        if let Some(flag) = self.expanded.get_mut(node as usize)
            && is_container
            && *flag != open
        {
            *flag = open;
            self.rebuild_visible();
        }
    }

    pub(super) fn toggle(&mut self, node: u32) {
        self.set_expanded(node, !self.is_expanded(node));
    }

    /// Depth-first walk over the open nodes only: O(visible rows).
    fn rebuild_visible(&mut self) {
        self.visible.clear();
        let Some(index) = &self.index else {
            return;
        };
        let mut stack = vec![0_u32];
        while let Some(node) = stack.pop() {
            self.visible.push(node);
            if is_ghost(node) {
                continue;
            }
            if self.expanded.get(node as usize).copied().unwrap_or(false) {
                // Ghosts (missing properties) after the object's real children.
                if let Some(ghosts) = self.ghosts_by_node.get(&node) {
                    stack.extend(ghosts.iter().rev().map(|&at| GHOST_BASE + 1 + at as u32));
                }
                stack.extend(index.children(node).rev());
            }
        }
    }

    /// Opens every ancestor of `node`; returns whether anything changed.
    fn open_ancestors(&mut self, node: u32) -> bool {
        let Some(index) = &self.index else {
            return false;
        };
        let mut changed = false;
        for a in index.ancestors(node) {
            if let Some(flag) = self.expanded.get_mut(a as usize) {
                changed |= !*flag;
                *flag = true;
            }
        }
        changed
    }

    /// Makes `node` visible and asks the next frame to scroll to it.
    pub(super) fn reveal(&mut self, node: u32) {
        if self.open_ancestors(node) {
            self.rebuild_visible();
        }
        self.scroll_to = Some(node);
    }

    /// Selects the node at `pointer`, opening its ancestors and scrolling it into
    /// view on the next frame. When the pointer does not exist, selects its deepest
    /// existing ancestor and returns `false`. Before any value has been shown the
    /// request is kept and applied to the first value (and `true` is returned).
    pub fn select_pointer(&mut self, pointer: &str) -> bool {
        let Some(index) = &self.index else {
            self.pending_select = Some(pointer.to_owned());
            return true;
        };
        // A malformed pointer falls back to the root, like a missing one.
        let (tokens, mut found) = match parse_pointer(pointer) {
            Some(tokens) => (tokens, true),
            None => (Vec::new(), false),
        };
        let mut node = 0_u32;
        for token in &tokens {
            match index.child_by_token(node, token) {
                Some(child) => node = child,
                None => {
                    found = false;
                    break;
                }
            }
        }
        self.fallback_note = (!found).then(|| (pointer.to_owned(), index.pointer(node)));
        self.selected = Some(node);
        self.reveal(node);
        found
    }

    /// Selects `pointer` only if it exists exactly (used to keep the selection across values).
    fn select_existing(&mut self, pointer: &str) {
        let Some(index) = &self.index else {
            return;
        };
        let Some(tokens) = parse_pointer(pointer) else {
            return;
        };
        let mut node = 0_u32;
        for token in &tokens {
            match index.child_by_token(node, token) {
                Some(child) => node = child,
                None => return,
            }
        }
        self.selected = Some(node);
        self.reveal(node);
    }

    /// Whether an index of a value is held (its size grows with the value).
    pub fn is_built(&self) -> bool {
        self.index.is_some()
    }

    pub fn selected_pointer(&self) -> Option<String> {
        let index = self.index.as_ref()?;
        self.selected.map(|n| index.pointer(n))
    }

    /// The selected node's value inside `value` (the value last passed to `sync`).
    pub fn selected_value<'v>(&self, value: JsonRef<'v>) -> Option<JsonRef<'v>> {
        self.index.as_ref()?.resolve(value, self.selected?)
    }

    /// Sets the search query. The match list is recomputed on the next
    /// [`Self::sync`] / [`super::json_tree_ui`], which has the value to search.
    pub fn set_search(&mut self, query: &str) {
        if self.query != query {
            self.query = query.to_owned();
            self.search_dirty = true;
        }
        if self.search_input != query {
            self.search_input = query.to_owned();
        }
    }

    pub fn search_query(&self) -> &str {
        &self.query
    }

    fn run_search(&mut self, value: JsonRef<'_>) {
        self.search_dirty = false;
        self.matches.clear();
        self.is_match.clear();
        self.current_match = None;
        let (Some(index), Some(matcher)) = (&self.index, Matcher::new(&self.query)) else {
            return;
        };
        self.matches = find_matches(index, value, &matcher);
        self.is_match = vec![false; index.len()];
        // Open the ancestors of every match; `seen` stops each upward walk at the
        // first ancestor an earlier match already handled, so this is O(nodes).
        let mut seen = vec![false; index.len()];
        for &m in &self.matches {
            if let Some(flag) = self.is_match.get_mut(m as usize) {
                *flag = true;
            }
            for a in index.ancestors(m) {
                let a = a as usize;
                if seen.get(a).copied().unwrap_or(true) {
                    break;
                }
                seen[a] = true;
                if let Some(flag) = self.expanded.get_mut(a) {
                    *flag = true;
                }
            }
        }
        self.rebuild_visible();
        if let Some(&first) = self.matches.first() {
            self.current_match = Some(0);
            self.scroll_to = Some(first);
        }
    }

    pub fn match_count(&self) -> usize {
        self.matches.len()
    }

    pub(super) fn is_match(&self, node: u32) -> bool {
        self.is_match.get(node as usize).copied().unwrap_or(false)
    }

    pub(super) fn current_match_node(&self) -> Option<u32> {
        self.matches.get(self.current_match?).copied()
    }

    /// Moves to the next (`forward`) or previous match, wrapping around, and scrolls to it.
    pub fn goto_match(&mut self, forward: bool) {
        let len = self.matches.len();
        if len == 0 {
            return;
        }
        let next = match (self.current_match, forward) {
            (None, true) => 0,
            (None, false) => len - 1,
            (Some(i), true) => (i + 1) % len,
            (Some(i), false) => (i + len - 1) % len,
        };
        self.current_match = Some(next);
        if let Some(&node) = self.matches.get(next) {
            self.reveal(node);
        }
    }

    pub fn visible_row_count(&self) -> usize {
        self.visible.len()
    }

    pub(super) fn row_of(&self, node: u32) -> Option<usize> {
        self.visible.iter().position(|&n| n == node)
    }

    /// Up/Down: moves the selection by `delta` visible rows (selects the first row if none).
    pub(super) fn move_selection(&mut self, delta: isize) {
        if self.visible.is_empty() {
            return;
        }
        let mut row = match self.selected.and_then(|n| self.row_of(n)) {
            Some(row) => row.saturating_add_signed(delta).min(self.visible.len() - 1),
            None => 0,
        };
        // A ghost row is not a node: take the nearest real row, onwards first.
        if is_ghost(self.visible[row]) {
            let real = |r: &usize| !is_ghost(self.visible[*r]);
            let onwards = (row..self.visible.len()).find(real);
            let back = (0..row).rev().find(real);
            let nearest = if delta >= 0 {
                onwards.or(back)
            } else {
                back.or(onwards)
            };
            let Some(nearest) = nearest else {
                return;
            };
            row = nearest;
        }
        self.select_node(self.visible[row]);
    }

    /// Left: collapses the selected node, or goes to its parent if it is already closed.
    pub(super) fn collapse_or_parent(&mut self) {
        let Some(node) = self.selected else {
            return;
        };
        if self.is_expanded(node) {
            self.set_expanded(node, false);
        } else if let Some(parent) = self.index.as_ref().and_then(|i| i.parent(node)) {
            self.select_node(parent);
        }
    }

    /// Right: expands the selected container, or goes to its first child if already open.
    pub(super) fn expand_or_child(&mut self) {
        let Some(node) = self.selected else {
            return;
        };
        let Some(index) = &self.index else {
            return;
        };
        let children = index.children(node);
        if children.is_empty() {
            return;
        }
        if self.is_expanded(node) {
            self.select_node(children.start);
        } else {
            self.set_expanded(node, true);
        }
    }

    pub(super) fn select_node(&mut self, node: u32) {
        self.selected = Some(node);
        self.fallback_note = None;
        self.scroll_to = Some(node);
    }
}

/// The node at `pointer`, or its deepest existing ancestor (the root for a malformed pointer).
fn deepest_node(index: &JsonIndex, pointer: &str) -> u32 {
    let mut node = 0_u32;
    for token in parse_pointer(pointer).unwrap_or_default() {
        match index.child_by_token(node, &token) {
            Some(child) => node = child,
            None => break,
        }
    }
    node
}
