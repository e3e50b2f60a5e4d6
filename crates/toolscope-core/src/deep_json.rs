//! JSON of any nesting depth, from any layer. A server may send a value nested 10,000 levels
//! deep: it is valid JSON, but serde_json refuses it past 128 levels, and the recursive
//! `Drop`, `Clone`, `Display` and serializer of `Value` overflow the stack of a worker thread
//! long before that depth is a problem for memory. Parse, print and drop such values here.

use serde::{Deserialize as _, Serialize as _};
use serde_json::Value;

/// Nesting beyond which views and checks stop descending and say so (the value itself is kept
/// whole; only what is drawn or compared stops here).
pub const SHOWN_DEPTH: usize = 256;

/// Parses JSON text of any depth (the stack grows on the heap as needed).
pub fn parse(text: &str) -> serde_json::Result<Value> {
    parse_slice(text.as_bytes())
}

/// Parses JSON bytes of any depth.
pub fn parse_slice(bytes: &[u8]) -> serde_json::Result<Value> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    deserializer.disable_recursion_limit();
    let value = Value::deserialize(serde_stacker::Deserializer::new(&mut deserializer))?;
    deserializer.end()?;
    Ok(value)
}

/// Reads JSON text of any depth as a `T` (a type whose deep parts are `Value`s: drop those
/// with [`drop_value`]).
pub fn parse_as<T: serde::de::DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    deserializer.disable_recursion_limit();
    let value = T::deserialize(serde_stacker::Deserializer::new(&mut deserializer))?;
    deserializer.end()?;
    Ok(value)
}

/// Compact JSON text of a value of any depth.
pub fn to_string(value: &Value) -> String {
    let mut out = Vec::new();
    write(value, &mut out, false);
    String::from_utf8(out).unwrap_or_default()
}

/// Pretty JSON text (two-space indent) of a value of any depth; levels below
/// [`INDENTED_DEPTH`] are written compact, so its size grows linearly with the depth.
pub fn to_string_pretty(value: &Value) -> String {
    let mut out = Vec::new();
    write(value, &mut out, true);
    String::from_utf8(out).unwrap_or_default()
}

/// Writes a value of any depth; an error of `writer` stops the serializer (a capped writer
/// may use that to keep only the start).
pub fn write(value: &Value, writer: impl std::io::Write, pretty: bool) -> bool {
    serialize_to_writer(&Deep(value), writer, pretty).is_ok()
}

/// A `Value` that serializes at any depth under `serde_stacker`: `Value`'s own `Serialize`
/// writes objects with `serialize_map`, where serde_stacker does not grow the stack; this
/// uses `collect_seq` and `collect_map`, where it does. Wrap server-sent values in it (or use
/// it with `#[serde(serialize_with = "deep_json::serialize_deep")]`) inside a report.
#[derive(Debug, Clone, Copy)]
pub struct Deep<'a>(pub &'a Value);

impl serde::Serialize for Deep<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Value::Array(items) => serializer.collect_seq(items.iter().map(Deep)),
            Value::Object(map) => serializer.collect_map(map.iter().map(|(k, v)| (k, Deep(v)))),
            scalar => scalar.serialize(serializer),
        }
    }
}

/// `serialize_with` for a `Value` field that may nest any depth (see [`Deep`]).
pub fn serialize_deep<S: serde::Serializer>(
    value: &Value,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    Deep(value).serialize(serializer)
}

/// `serialize_with` for an optional `Value` field that may nest any depth (see [`Deep`]).
pub fn serialize_deep_option<S: serde::Serializer>(
    value: &Option<Value>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    value.as_ref().map(Deep).serialize(serializer)
}

/// Serializes any `Serialize` type (for example a report that borrows a deep value) to
/// compact or pretty text without overflowing the stack.
pub fn serialize_to_writer<T: serde::Serialize + ?Sized>(
    value: &T,
    writer: impl std::io::Write,
    pretty: bool,
) -> serde_json::Result<()> {
    if pretty {
        let mut serializer =
            serde_json::Serializer::with_formatter(writer, CappedPretty::default());
        value.serialize(serde_stacker::Serializer::new(&mut serializer))
    } else {
        let mut serializer = serde_json::Serializer::new(writer);
        value.serialize(serde_stacker::Serializer::new(&mut serializer))
    }
}

/// Levels indented in pretty JSON; deeper ones are written compact. Indentation makes pretty
/// text grow with the square of the depth: 10,000 levels would be 300 MB of spaces.
pub const INDENTED_DEPTH: usize = 64;

/// serde_json's pretty formatter (two spaces), compact below [`INDENTED_DEPTH`] levels.
#[derive(Default)]
struct CappedPretty {
    level: usize,
    has_value: bool,
}

impl CappedPretty {
    fn indented(&self) -> bool {
        self.level <= INDENTED_DEPTH
    }

    fn new_line(&self, writer: &mut (impl std::io::Write + ?Sized)) -> std::io::Result<()> {
        writer.write_all(b"\n")?;
        for _ in 0..self.level {
            writer.write_all(b"  ")?;
        }
        Ok(())
    }

    fn open(
        &mut self,
        writer: &mut (impl std::io::Write + ?Sized),
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.level += 1;
        self.has_value = false;
        writer.write_all(bracket)
    }

    fn close(
        &mut self,
        writer: &mut (impl std::io::Write + ?Sized),
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.level -= 1;
        // The closing bracket goes on a line of its own when the values before it did.
        if self.has_value && self.level < INDENTED_DEPTH {
            self.new_line(writer)?;
        }
        writer.write_all(bracket)
    }

    fn item(
        &mut self,
        writer: &mut (impl std::io::Write + ?Sized),
        first: bool,
    ) -> std::io::Result<()> {
        if !first {
            writer.write_all(b",")?;
        }
        if self.indented() {
            self.new_line(writer)?;
        }
        Ok(())
    }
}

impl serde_json::ser::Formatter for CappedPretty {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.open(writer, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.close(writer, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(writer, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.open(writer, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.close(writer, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.item(writer, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(if self.indented() { b": " } else { b":" })
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

/// The first `max_bytes` of `value` as pretty JSON (ending on a whole character), and whether
/// there was more. The serializer is stopped once the prefix is full, so a huge value costs no
/// more.
pub fn pretty_prefix<T: serde::Serialize + ?Sized>(value: &T, max_bytes: usize) -> (String, bool) {
    let mut head = Head::new(max_bytes);
    let cut = serialize_to_writer(value, &mut head, true).is_err();
    (head.into_text(), cut)
}

/// A writer that keeps the first `limit` bytes written to it, then refuses the rest (which
/// stops a serializer): the one capped writer for prefixes of big values.
pub(crate) struct Head {
    bytes: Vec<u8>,
    limit: usize,
}

impl Head {
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            bytes: Vec::new(),
            limit,
        }
    }

    /// What was kept, as text ending on a whole character (a cut may split one).
    pub(crate) fn into_text(self) -> String {
        match String::from_utf8(self.bytes) {
            Ok(text) => text,
            Err(error) => {
                let valid = error.utf8_error().valid_up_to();
                let mut bytes = error.into_bytes();
                bytes.truncate(valid);
                String::from_utf8(bytes).unwrap_or_default()
            }
        }
    }
}

impl std::io::Write for Head {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let room = self.limit.saturating_sub(self.bytes.len());
        if room == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        let taken = bytes.len().min(room);
        self.bytes.extend_from_slice(&bytes[..taken]);
        Ok(taken)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A copy of a value of any depth (`Value::clone` recurses once per level).
pub fn clone_value(value: &Value) -> Value {
    Value::deserialize(serde_stacker::Deserializer::new(value)).unwrap_or_default()
}

/// How deeply a value nests (a scalar is 0, `[]` is 1, `[[1]]` is 2), without recursion.
pub fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((value, level)) = stack.pop() {
        match value {
            Value::Array(items) => {
                deepest = deepest.max(level + 1);
                stack.extend(items.iter().map(|item| (item, level + 1)));
            }
            Value::Object(map) => {
                deepest = deepest.max(level + 1);
                stack.extend(map.values().map(|item| (item, level + 1)));
            }
            _ => {}
        }
    }
    deepest
}

/// Drops a value of any depth without recursion. `Value`'s own `Drop` recurses once per level
/// and overflows a 2 MiB worker stack at a few tens of thousands of levels.
pub fn drop_value(value: Value) {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, item)| item)),
            _ => {}
        }
    }
}

/// A `Value` that drops, clones, serializes and prints without recursion: hold server-sent
/// values in this. (Its `==` is `Value`'s own: compare deep values as text.)
#[derive(Default, PartialEq)]
pub struct DeepValue(pub Value);

impl Clone for DeepValue {
    fn clone(&self) -> Self {
        Self(clone_value(&self.0))
    }
}

impl std::fmt::Debug for DeepValue {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(&to_string(&self.0))
    }
}

/// Serializes as [`Deep`] does: at any depth under `serde_stacker` (see
/// [`serialize_to_writer`]).
impl serde::Serialize for DeepValue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Deep(&self.0).serialize(serializer)
    }
}

impl DeepValue {
    pub fn into_inner(mut self) -> Value {
        std::mem::take(&mut self.0)
    }
}

impl std::ops::Deref for DeepValue {
    type Target = Value;
    fn deref(&self) -> &Value {
        &self.0
    }
}

impl Drop for DeepValue {
    fn drop(&mut self) {
        drop_value(std::mem::take(&mut self.0));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn pretty_text_stops_indenting_deep_down_and_stays_json() {
        let shallow = serde_json::json!({"a": [1, {"b": true}], "c": {}});
        // Shallow values are exactly serde_json's pretty text.
        assert_eq!(
            to_string_pretty(&shallow),
            serde_json::to_string_pretty(&shallow).unwrap()
        );
        // 10,000 levels: linear, not quadratic, and parses back to the same value.
        let compact = format!("{}1{}", "{\"x\":".repeat(10_000), "}".repeat(10_000));
        let deep = parse(&compact).unwrap();
        let text = to_string_pretty(&deep);
        drop_value(deep);
        let size = text.len();
        let back = parse(&text).unwrap();
        let again = to_string(&back);
        drop_value(back);
        assert!(size < 200_000, "{size} bytes");
        assert_eq!(again, compact);
    }

    use super::*;

    fn nested_arrays(levels: usize) -> String {
        let mut text = "[".repeat(levels);
        text.push('1');
        text.push_str(&"]".repeat(levels));
        text
    }

    #[test]
    fn deep_values_parse_print_and_drop_on_a_small_stack() {
        // A 256 KiB stack: far less than a tokio worker's 2 MiB.
        let worker = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let text = nested_arrays(100_000);
                let value = parse(&text).unwrap();
                assert_eq!(depth(&value), 100_000);
                assert_eq!(to_string(&value), text);
                // Pretty text stops indenting past INDENTED_DEPTH, so it grows linearly.
                let shallow = parse(&nested_arrays(1_000)).unwrap();
                assert!(to_string_pretty(&shallow).len() < 20 * 1_000);
                // Objects too: `Value`'s own serializer would recurse on the worker's stack.
                let objects = "{\"a\":".repeat(20_000) + "1" + &"}".repeat(20_000);
                let deep_objects = parse(&objects).unwrap();
                assert_eq!(to_string(&deep_objects), objects);
                drop_value(deep_objects);
                let copy = clone_value(&value);
                assert_eq!(to_string(&copy), text);
                drop_value(copy);
                let object = serde_json::json!({"a": [1, {"b": null}], "c": "d"});
                assert_eq!(clone_value(&object), object);
                drop(DeepValue(value));
            })
            .unwrap();
        worker.join().unwrap();
    }

    #[test]
    fn depth_counts_levels() {
        assert_eq!(depth(&serde_json::json!(1)), 0);
        assert_eq!(depth(&serde_json::json!([])), 1);
        assert_eq!(depth(&serde_json::json!({"a": [1, {"b": 2}]})), 3);
        assert!(parse("[1] trailing").is_err());
    }
}
