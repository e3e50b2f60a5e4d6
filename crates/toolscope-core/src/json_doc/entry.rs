//! One value (or object key) on the tape: 16 bytes, offsets into the text.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EntryKind {
    Null,
    False,
    True,
    Number,
    String,
    Array,
    Object,
    /// An object member's key; its value is the next entry.
    Key,
}

const KIND_SHIFT: u32 = 29;
/// For a string or key: it has escapes. For an object: a key repeats (the same bit).
const FLAG: u32 = 1 << 28;
const ESCAPED: u32 = FLAG;
/// Child counts are kept up to here; a bigger container is counted by walking it.
pub(super) const COUNT_SATURATED: u32 = ESCAPED - 1;

#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    /// Byte offset of the token's first byte (a string's opening quote, a bracket).
    start: u32,
    /// Byte offset after the token (for a container: after its closing bracket).
    end: u32,
    /// Index of the entry after this one's subtree.
    next: u32,
    /// Kind (3 bits), a flag (1 bit: a string with escapes, an object with a repeated key),
    /// child count (28 bits).
    info: u32,
}

impl Entry {
    pub(super) fn new(kind: EntryKind, start: u32, end: u32, next: u32, escaped: bool) -> Self {
        let kind_bits = (kind as u32) << KIND_SHIFT;
        Self {
            start,
            end,
            next,
            info: kind_bits | if escaped { ESCAPED } else { 0 },
        }
    }

    pub(super) fn close(&mut self, end: u32, next: u32, count: u32) {
        self.end = end;
        self.next = next;
        self.info |= count.min(COUNT_SATURATED);
    }

    pub(super) fn kind(self) -> EntryKind {
        match self.info >> KIND_SHIFT {
            0 => EntryKind::Null,
            1 => EntryKind::False,
            2 => EntryKind::True,
            3 => EntryKind::Number,
            4 => EntryKind::String,
            5 => EntryKind::Array,
            6 => EntryKind::Object,
            _ => EntryKind::Key,
        }
    }

    pub(super) fn escaped(self) -> bool {
        self.info & ESCAPED != 0
    }

    /// An object in which a key appears more than once.
    pub(super) fn has_repeated_key(self) -> bool {
        self.kind() == EntryKind::Object && self.info & FLAG != 0
    }

    pub(super) fn mark_repeated_key(&mut self) {
        self.info |= FLAG;
    }

    pub(super) fn count(self) -> u32 {
        self.info & COUNT_SATURATED
    }

    pub(super) fn span(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    pub(super) fn next(self) -> u32 {
        self.next
    }
}
