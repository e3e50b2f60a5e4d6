//! What happened at each node of one side of a diff, looked up by tape id: what a tree view
//! asks for every row it draws.

use super::structural::ChangeKind;

/// What a diff says about one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    /// The node itself was added, removed or changed (a removed or added container: its whole
    /// subtree; its descendants carry no mark of their own).
    Change(ChangeKind),
    /// A container that is on both sides with changes somewhere below it.
    ChangesInside,
}

/// Not listed among the changes (over the cap).
const UNLISTED: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Entry {
    id: u32,
    /// Index into the diff's listed changes, or [`UNLISTED`].
    change: u32,
    mark: Mark,
}

/// The marked nodes of one side, sorted by tape id (which is document order). Every change is
/// marked, listed or not; lookups are a binary search.
#[derive(Debug, Clone, Default)]
pub struct SideMarks {
    entries: Vec<Entry>,
}

impl SideMarks {
    /// What happened at the node with tape id `id` (`None`: nothing at or below it).
    pub fn at(&self, id: u32) -> Option<Mark> {
        self.find(id).map(|entry| entry.mark)
    }

    /// The index in `StructuralDiff::changes` of the change at node `id`, when it is listed.
    pub fn change_at(&self, id: u32) -> Option<usize> {
        self.find(id)
            .filter(|entry| entry.change != UNLISTED)
            .map(|entry| entry.change as usize)
    }

    /// The first changed node (not one merely containing changes) after `id` in document
    /// order, to step through the changes in a tree.
    pub fn next_change_after(&self, id: u32) -> Option<u32> {
        let from = self.entries.partition_point(|entry| entry.id <= id);
        self.entries[from..]
            .iter()
            .find(|entry| matches!(entry.mark, Mark::Change(_)))
            .map(|entry| entry.id)
    }

    /// The last changed node before `id` in document order.
    pub fn previous_change_before(&self, id: u32) -> Option<u32> {
        let to = self.entries.partition_point(|entry| entry.id < id);
        self.entries[..to]
            .iter()
            .rev()
            .find(|entry| matches!(entry.mark, Mark::Change(_)))
            .map(|entry| entry.id)
    }

    /// Every marked node in document order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, Mark)> + '_ {
        self.entries.iter().map(|entry| (entry.id, entry.mark))
    }

    /// Marked nodes (changed ones and those containing changes).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn find(&self, id: u32) -> Option<&Entry> {
        self.entries
            .binary_search_by_key(&id, |entry| entry.id)
            .ok()
            .map(|at| &self.entries[at])
    }
}

/// Marks collected during a walk, in any order.
#[derive(Debug, Default)]
pub(super) struct SideMarksBuilder {
    entries: Vec<Entry>,
}

impl SideMarksBuilder {
    pub(super) fn mark(&mut self, id: u32, mark: Mark, listed: Option<usize>) {
        let change = listed
            .and_then(|index| u32::try_from(index).ok())
            .unwrap_or(UNLISTED);
        self.entries.push(Entry { id, change, mark });
    }

    pub(super) fn build(mut self) -> SideMarks {
        self.entries.sort_unstable_by_key(|entry| entry.id);
        SideMarks {
            entries: self.entries,
        }
    }
}
