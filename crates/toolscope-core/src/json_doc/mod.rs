//! A compact JSON document: the text exactly as it arrived, plus a tape of 16 bytes per value
//! and key with offsets into that text. Strings, keys and numbers are read from the text on
//! demand, so a 1M-node result costs its text and ~25 MB of tape, where a `serde_json::Value`
//! tree (with `preserve_order`) costs ~7× the text. Parsing, walking, converting and dropping
//! never recurse, so any depth is safe; serializing (`impl Serialize`) recurses once per
//! level like any serde value, so deep documents go through `deep_json::serialize_to_writer`.
//!
//! Results are kept as a `JsonDoc`; small parts that code reads as `serde_json::Value`
//! (content blocks, `_meta`, a tool list) are materialised with [`JsonRef::to_value`].

mod entry;
mod parse;
mod schema_node;
mod serialize;
mod text;
mod to_value;

#[cfg(test)]
mod tests;

use std::borrow::Cow;

use entry::{COUNT_SATURATED, Entry, EntryKind};
pub use parse::{MAX_TEXT_CHARS, ParseError};
pub use schema_node::DocJson;

/// A parsed JSON text. Cheap to share behind an `Arc`; immutable.
pub struct JsonDoc {
    text: Box<str>,
    entries: Box<[Entry]>,
}

impl std::fmt::Debug for JsonDoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonDoc")
            .field("bytes", &self.text.len())
            .field("entries", &self.entries.len())
            .finish()
    }
}

/// The kind of a JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonKind {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

impl JsonKind {
    pub fn is_container(self) -> bool {
        matches!(self, JsonKind::Object | JsonKind::Array)
    }
}

impl JsonDoc {
    /// Parses `text` (a leading byte order mark and surrounding whitespace are allowed). The
    /// text is kept as it is; nothing is copied.
    pub fn parse(text: String) -> Result<Self, ParseError> {
        Self::try_parse(text).map_err(|(error, _)| error)
    }

    /// [`Self::parse`], giving the text back when it is not JSON.
    pub fn try_parse(text: String) -> Result<Self, (ParseError, String)> {
        match parse::parse(&text) {
            Ok(entries) => Ok(Self {
                text: text.into_boxed_str(),
                entries: entries.into_boxed_slice(),
            }),
            Err(error) => Err((error, text)),
        }
    }

    /// The document of a `serde_json::Value` (its compact text, parsed).
    pub fn from_value(value: &serde_json::Value) -> Self {
        let text = crate::deep_json::to_string(value);
        Self::parse(text).unwrap_or_else(|_| Self::null())
    }

    /// The document `null`.
    pub fn null() -> Self {
        Self::parse("null".to_owned()).unwrap_or_else(|_| unreachable!("null is JSON"))
    }

    /// Gives the text back, dropping the tape (a document kept small; parse it again to read).
    pub fn into_text(self) -> String {
        self.text.into_string()
    }

    /// The whole text, as it arrived.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn root(&self) -> JsonRef<'_> {
        JsonRef { doc: self, at: 0 }
    }

    /// Values and keys on the tape.
    pub fn entry_count(&self) -> usize {
        self.entries.len()
    }

    fn entry(&self, at: u32) -> Entry {
        self.entries[at as usize]
    }

    /// The value whose tape position is `id` (from [`JsonRef::id`]); `None` for a key.
    pub fn by_id(&self, id: u32) -> Option<JsonRef<'_>> {
        let entry = self.entries.get(id as usize)?;
        (entry.kind() != EntryKind::Key).then_some(JsonRef { doc: self, at: id })
    }
}

/// One value in a [`JsonDoc`]. `Copy`, two words.
#[derive(Clone, Copy)]
pub struct JsonRef<'d> {
    doc: &'d JsonDoc,
    at: u32,
}

impl std::fmt::Debug for JsonRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let raw = self.raw();
        let shown = crate::text_util::clip_chars(raw, 80);
        write!(f, "JsonRef({shown})")
    }
}

impl PartialEq for JsonRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.doc, other.doc) && self.at == other.at
    }
}

impl<'d> JsonRef<'d> {
    fn entry(self) -> Entry {
        self.doc.entry(self.at)
    }

    pub fn doc(self) -> &'d JsonDoc {
        self.doc
    }

    /// Its position on the tape: unique within the document, stable for its lifetime.
    pub fn id(self) -> u32 {
        self.at
    }

    pub fn kind(self) -> JsonKind {
        match self.entry().kind() {
            EntryKind::Null | EntryKind::Key => JsonKind::Null,
            EntryKind::False | EntryKind::True => JsonKind::Bool,
            EntryKind::Number => JsonKind::Number,
            EntryKind::String => JsonKind::String,
            EntryKind::Array => JsonKind::Array,
            EntryKind::Object => JsonKind::Object,
        }
    }

    pub fn is_object(self) -> bool {
        self.kind() == JsonKind::Object
    }

    pub fn is_array(self) -> bool {
        self.kind() == JsonKind::Array
    }

    pub fn is_string(self) -> bool {
        self.kind() == JsonKind::String
    }

    pub fn is_number(self) -> bool {
        self.kind() == JsonKind::Number
    }

    pub fn is_null(self) -> bool {
        self.kind() == JsonKind::Null
    }

    pub fn is_container(self) -> bool {
        self.kind().is_container()
    }

    /// The exact text of this value (a string with its quotes and escapes).
    pub fn raw(self) -> &'d str {
        &self.doc.text[self.entry().span()]
    }

    pub fn as_bool(self) -> Option<bool> {
        match self.entry().kind() {
            EntryKind::True => Some(true),
            EntryKind::False => Some(false),
            _ => None,
        }
    }

    /// A string's value, borrowed from the text unless it has escapes.
    pub fn as_str(self) -> Option<Cow<'d, str>> {
        let entry = self.entry();
        (entry.kind() == EntryKind::String).then(|| self.doc.string_at(entry))
    }

    /// A string's value if it has no escapes (the common case), without allocating.
    pub fn as_plain_str(self) -> Option<&'d str> {
        let entry = self.entry();
        (entry.kind() == EntryKind::String && !entry.escaped()).then(|| {
            let raw = &self.doc.text[entry.span()];
            &raw[1..raw.len() - 1]
        })
    }

    /// The first `max_chars` characters of a string's value and whether it goes on, reading
    /// no further than that (a 50 MB string previews as fast as a short one).
    pub fn str_prefix(self, max_chars: usize) -> Option<(String, bool)> {
        let entry = self.entry();
        (entry.kind() == EntryKind::String).then(|| {
            let raw = &self.doc.text[entry.span()];
            text::unescape_prefix(&raw[1..raw.len() - 1], entry.escaped(), max_chars)
        })
    }

    /// A number's text, exactly as sent.
    pub fn number_text(self) -> Option<&'d str> {
        (self.entry().kind() == EntryKind::Number).then(|| self.raw())
    }

    pub fn as_u64(self) -> Option<u64> {
        self.number_text()?.parse().ok()
    }

    pub fn as_i64(self) -> Option<i64> {
        self.number_text()?.parse().ok()
    }

    pub fn as_f64(self) -> Option<f64> {
        self.number_text()?.parse().ok()
    }

    /// The number as serde_json reads it (an integer when it fits, else a float).
    pub fn as_number(self) -> Option<serde_json::Number> {
        to_value::number(self.number_text()?)
    }

    /// Members of an object or items of an array; 0 for a scalar.
    pub fn len(self) -> usize {
        let entry = self.entry();
        if !matches!(entry.kind(), EntryKind::Array | EntryKind::Object) {
            return 0;
        }
        if entry.has_repeated_key() {
            return self.members().count();
        }
        match entry.count() {
            COUNT_SATURATED => match entry.kind() {
                EntryKind::Object => self.members().count(),
                _ => self.items().count(),
            },
            count => count as usize,
        }
    }

    /// Whether this is an object in which a key appears more than once (readers then see each
    /// key once, with its last value, as serde_json does).
    pub fn has_repeated_key(self) -> bool {
        self.entry().has_repeated_key()
    }

    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The tape range of this value's children when it is a container of `kind` (else empty).
    fn children(self, kind: EntryKind) -> (u32, u32) {
        let entry = self.entry();
        if entry.kind() == kind {
            (self.at + 1, entry.next())
        } else {
            (0, 0)
        }
    }

    /// The items of an array (nothing for anything else).
    pub fn items(self) -> Items<'d> {
        let (first, end) = self.children(EntryKind::Array);
        Items {
            doc: self.doc,
            at: first,
            end,
        }
    }

    /// The members of an object in document order, each key once: a repeated key keeps its
    /// first place and its last value, as serde_json reads it.
    pub fn members(self) -> Members<'d> {
        let mut members = self.members_as_sent();
        if !self.entry().has_repeated_key() {
            return members;
        }
        let mut order: Vec<(u32, u32)> = Vec::new();
        let mut place: std::collections::HashMap<Cow<'d, str>, usize> =
            std::collections::HashMap::new();
        while let Some((key, value)) = members.next_raw() {
            let name = KeyRef {
                doc: self.doc,
                at: key,
            }
            .text();
            match place.get(&name) {
                Some(&at) => order[at].1 = value,
                None => {
                    place.insert(name, order.len());
                    order.push((key, value));
                }
            }
        }
        Members {
            doc: self.doc,
            at: 0,
            end: 0,
            listed: Some(order.into_iter()),
        }
    }

    /// The members exactly as written, a repeated key as often as it was sent.
    pub fn members_as_sent(self) -> Members<'d> {
        let (first, end) = self.children(EntryKind::Object);
        Members {
            doc: self.doc,
            at: first,
            end,
            listed: None,
        }
    }

    /// The value of `key` in an object. With a repeated key the last one counts, as in
    /// serde_json.
    pub fn get(self, key: &str) -> Option<JsonRef<'d>> {
        let mut members = self.members_as_sent().filter(|(name, _)| name.is(key));
        if self.entry().has_repeated_key() {
            members.last()
        } else {
            members.next()
        }
        .map(|(_, value)| value)
    }

    /// The members of an object with their keys read (borrowed unless escaped).
    pub fn entries(self) -> impl Iterator<Item = (Cow<'d, str>, JsonRef<'d>)> + 'd {
        self.members().map(|(key, value)| (key.text(), value))
    }

    /// The item at `index` of an array.
    pub fn at_index(self, index: usize) -> Option<JsonRef<'d>> {
        self.items().nth(index)
    }

    /// The value at an RFC 6901 JSON Pointer ("" is this value).
    pub fn pointer(self, pointer: &str) -> Option<JsonRef<'d>> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        let mut current = self;
        for token in rest.split('/') {
            let token = token.replace("~1", "/").replace("~0", "~");
            current = match current.kind() {
                JsonKind::Object => current.get(&token)?,
                JsonKind::Array => {
                    current.at_index(crate::json_pointer::parse_array_index(&token)?)?
                }
                _ => return None,
            };
        }
        Some(current)
    }

    /// This value as a `serde_json::Value` (built without recursion; a deep one must be
    /// dropped with [`crate::deep_json::drop_value`]).
    pub fn to_value(self) -> serde_json::Value {
        to_value::to_value(self)
    }

    /// Nesting depth: 0 for a scalar, 1 for a flat container.
    pub fn depth(self) -> usize {
        self.nesting(usize::MAX)
    }

    /// The deepest nesting in this value, walking the tape once; stops as soon as it passes
    /// `stop_past` (the result is then `stop_past + 1`).
    fn nesting(self, stop_past: usize) -> usize {
        let end = self.entry().next();
        let mut open: Vec<u32> = Vec::new();
        let mut deepest = 0;
        for at in self.at..end {
            while open.last().is_some_and(|&next| next <= at) {
                open.pop();
            }
            let entry = self.doc.entry(at);
            if matches!(entry.kind(), EntryKind::Array | EntryKind::Object) {
                open.push(entry.next());
                deepest = deepest.max(open.len());
                if deepest > stop_past {
                    break;
                }
            }
        }
        deepest
    }

    /// Values in this subtree, this one included (keys not counted).
    pub fn node_count(self) -> usize {
        let end = self.entry().next();
        (self.at..end)
            .filter(|&at| self.doc.entry(at).kind() != EntryKind::Key)
            .count()
    }
}

/// An object key on the tape.
#[derive(Clone, Copy)]
pub struct KeyRef<'d> {
    doc: &'d JsonDoc,
    at: u32,
}

impl<'d> KeyRef<'d> {
    /// The key's text, borrowed unless it has escapes.
    pub fn text(self) -> Cow<'d, str> {
        self.doc.string_at(self.doc.entry(self.at))
    }

    /// Whether the key is `name`, without allocating for an unescaped key.
    pub fn is(self, name: &str) -> bool {
        let entry = self.doc.entry(self.at);
        let raw = &self.doc.text[entry.span()];
        let inner = &raw[1..raw.len() - 1];
        if entry.escaped() {
            text::unescape(inner) == name
        } else {
            inner == name
        }
    }
}

impl JsonDoc {
    fn string_at(&self, entry: Entry) -> Cow<'_, str> {
        let raw = &self.text[entry.span()];
        let inner = &raw[1..raw.len() - 1];
        if entry.escaped() {
            Cow::Owned(text::unescape(inner))
        } else {
            Cow::Borrowed(inner)
        }
    }
}

/// The items of an array.
#[derive(Clone)]
pub struct Items<'d> {
    doc: &'d JsonDoc,
    at: u32,
    end: u32,
}

impl<'d> Iterator for Items<'d> {
    type Item = JsonRef<'d>;

    fn next(&mut self) -> Option<JsonRef<'d>> {
        if self.at >= self.end {
            return None;
        }
        let item = JsonRef {
            doc: self.doc,
            at: self.at,
        };
        self.at = self.doc.entry(self.at).next();
        Some(item)
    }
}

/// The members of an object: keys unread (comparing one costs nothing unless it has
/// escapes) and values.
#[derive(Clone)]
pub struct Members<'d> {
    doc: &'d JsonDoc,
    at: u32,
    end: u32,
    /// For an object with a repeated key: each key once, listed in advance.
    listed: Option<std::vec::IntoIter<(u32, u32)>>,
}

impl Members<'_> {
    /// Tape positions of the next key and its value.
    fn next_raw(&mut self) -> Option<(u32, u32)> {
        if let Some(listed) = &mut self.listed {
            return listed.next();
        }
        if self.at >= self.end {
            return None;
        }
        let key = self.at;
        let value = key + 1;
        self.at = self.doc.entry(value).next();
        Some((key, value))
    }
}

impl<'d> Iterator for Members<'d> {
    type Item = (KeyRef<'d>, JsonRef<'d>);

    fn next(&mut self) -> Option<Self::Item> {
        let (key, value) = self.next_raw()?;
        Some((
            KeyRef {
                doc: self.doc,
                at: key,
            },
            JsonRef {
                doc: self.doc,
                at: value,
            },
        ))
    }
}

impl<'d> JsonRef<'d> {
    /// Whether this value nests more than `limit` levels (`[]` is 1); stops at the first
    /// container past the limit.
    pub fn deeper_than(self, limit: usize) -> bool {
        self.nesting(limit) > limit
    }

    /// This value's text on one line for a message: whitespace between tokens dropped, cut
    /// to `max_chars` with "…". Reads only the start of a huge value.
    pub fn one_line(self, max_chars: usize) -> String {
        let mut out = String::new();
        let mut chars = 0;
        let (mut in_string, mut escaped) = (false, false);
        for ch in self.raw().chars() {
            if !in_string && ch.is_ascii_whitespace() {
                continue;
            }
            if chars == max_chars {
                out.push('…');
                return out;
            }
            if in_string {
                if escaped {
                    escaped = false;
                } else if ch == '\\' {
                    escaped = true;
                } else if ch == '"' {
                    in_string = false;
                }
            } else if ch == '"' {
                in_string = true;
            }
            out.push(ch);
            chars += 1;
        }
        out
    }
}

/// What messages say about a value's shape, for serde values and document values alike.
pub trait JsonShape {
    fn json_kind(&self) -> JsonKind;
    /// Members of an object or items of an array; 0 for a scalar.
    fn child_count(&self) -> usize;
}

impl JsonShape for serde_json::Value {
    fn json_kind(&self) -> JsonKind {
        use serde_json::Value;
        match self {
            Value::Null => JsonKind::Null,
            Value::Bool(_) => JsonKind::Bool,
            Value::Number(_) => JsonKind::Number,
            Value::String(_) => JsonKind::String,
            Value::Array(_) => JsonKind::Array,
            Value::Object(_) => JsonKind::Object,
        }
    }

    fn child_count(&self) -> usize {
        match self {
            serde_json::Value::Array(items) => items.len(),
            serde_json::Value::Object(map) => map.len(),
            _ => 0,
        }
    }
}

impl JsonShape for JsonRef<'_> {
    fn json_kind(&self) -> JsonKind {
        self.kind()
    }

    fn child_count(&self) -> usize {
        self.len()
    }
}
