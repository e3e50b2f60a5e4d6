//! Semantic comparison of JSON text with a JSON value: key order ignored, 3 == 3.0.
//!
//! The text is compared while it is parsed, without building a tree of either side, so a
//! mirror of a million-node structuredContent costs one parse (allocating only a key map for
//! objects of many members, and a key with escapes).

use std::fmt;

use std::{borrow::Cow, collections::HashMap};

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

use super::error_kind::count_noun;
use crate::json_doc::{JsonDoc, JsonKind, JsonRef};
use crate::json_pointer::pointer_escape;
use crate::text_util::{clip_chars, json_shape_phrase};

/// Where a text's JSON first differs from the expected value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Difference {
    /// JSON Pointer into the expected value.
    pub pointer: String,
    /// Plain words, e.g. "expected 3, the text has 4".
    pub detail: String,
}

/// Outcome of comparing one text with one value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TextCompare {
    Equal,
    NotJson,
    Differs(Difference),
}

/// What the two sides are called in a difference's words.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sides {
    /// The side being parsed, e.g. "the text".
    pub actual: &'static str,
    /// The side it is compared against, e.g. "structuredContent".
    pub expected: &'static str,
}

/// A text block compared with structuredContent.
const TEXT_AGAINST_STRUCTURED: Sides = Sides {
    actual: "the text",
    expected: "structuredContent",
};

/// Parses `text` as JSON and compares it with `expected` in the same pass.
pub(crate) fn compare_text(expected: JsonRef<'_>, text: &str) -> TextCompare {
    compare_json(expected, text, TEXT_AGAINST_STRUCTURED)
}

/// Parses `text` as JSON and compares it with `expected`, naming the sides as `sides` says.
pub(crate) fn compare_json(expected: JsonRef<'_>, text: &str, sides: Sides) -> TextCompare {
    let mut state = State {
        path: Vec::new(),
        diff: None,
        missing_keys_at: None,
        sides,
    };
    let mut de = serde_json::Deserializer::from_str(text);
    // Text of any depth: no recursion limit, and the stack grows on the heap as needed.
    de.disable_recursion_limit();
    let parsed = Cmp {
        expected,
        state: &mut state,
    }
    .deserialize(serde_stacker::Deserializer::new(&mut de))
    .and_then(|()| de.end());
    if parsed.is_err() {
        return TextCompare::NotJson;
    }
    match (state.diff, state.missing_keys_at) {
        (Some(d), _) => TextCompare::Differs(d),
        (None, Some(pointer)) => {
            TextCompare::Differs(name_missing_key(expected, text, pointer, sides))
        }
        (None, None) => TextCompare::Equal,
    }
}

/// Rare path: which key is missing needs a set of seen keys, so parse the text for real.
fn name_missing_key(
    expected: JsonRef<'_>,
    text: &str,
    pointer: String,
    sides: Sides,
) -> Difference {
    let parsed = JsonDoc::parse(text.to_owned()).ok();
    let missing = expected
        .pointer(&pointer)
        .filter(|object| object.is_object())
        .zip(
            parsed
                .as_ref()
                .and_then(|p| p.root().pointer(&pointer))
                .filter(|object| object.is_object()),
        )
        .and_then(|(exp, got)| {
            exp.entries()
                .map(|(key, _)| key)
                .find(|key| got.get(key).is_none())
        });
    match missing {
        Some(key) => Difference {
            pointer: format!("{pointer}/{}", pointer_escape(&key)),
            detail: format!("missing from {}", sides.actual),
        },
        None => Difference {
            pointer,
            detail: format!("{} has repeated or missing keys", sides.actual),
        },
    }
}

enum Seg<'e> {
    Key(Cow<'e, str>),
    Index(usize),
}

struct State<'e> {
    path: Vec<Seg<'e>>,
    diff: Option<Difference>,
    /// An object whose text lacked keys; named later (see `name_missing_key`).
    missing_keys_at: Option<String>,
    sides: Sides,
}

impl State<'_> {
    fn pointer(&self) -> String {
        let mut out = String::new();
        for seg in &self.path {
            out.push('/');
            match seg {
                Seg::Key(k) => out.push_str(&pointer_escape(k)),
                Seg::Index(i) => out.push_str(&i.to_string()),
            }
        }
        out
    }

    /// Records the first difference only; later ones are ignored.
    fn mismatch(&mut self, detail: String) {
        if self.diff.is_none() {
            self.diff = Some(Difference {
                pointer: self.pointer(),
                detail,
            });
        }
    }

    fn type_mismatch(&mut self, expected: JsonRef<'_>, actual: &str) {
        let side = self.sides.actual;
        self.mismatch(format!("expected {}, {side} has {actual}", short(expected)));
    }
}

/// Compares one JSON value of the text against `expected`.
struct Cmp<'e, 's> {
    expected: JsonRef<'e>,
    state: &'s mut State<'e>,
}

impl<'de> DeserializeSeed<'de> for Cmp<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        if self.state.diff.is_some() {
            // Already different: only check that the rest is well-formed JSON.
            deserializer.deserialize_ignored_any(IgnoredAny).map(|_| ())
        } else {
            deserializer.deserialize_any(self)
        }
    }
}

impl<'de> Visitor<'de> for Cmp<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        if !self.expected.is_null() {
            self.state.type_mismatch(self.expected, "null");
        }
        Ok(())
    }

    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        if self.expected.as_bool() != Some(v) {
            self.state.type_mismatch(self.expected, &v.to_string());
        }
        Ok(())
    }

    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.number(Number::from(v));
        Ok(())
    }

    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.number(Number::from(v));
        Ok(())
    }

    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        match Number::from_f64(v) {
            Some(n) => self.number(n),
            None => self
                .state
                .type_mismatch(self.expected, "a non-finite number"),
        }
        Ok(())
    }

    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        if self.expected.as_str().as_deref() != Some(v) {
            let shown = clip_chars(&serde_json::to_string(v).unwrap_or_default(), 40);
            self.state.type_mismatch(self.expected, &shown);
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if !self.expected.is_array() {
            self.state.type_mismatch(self.expected, "an array");
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(());
        }
        let mut items = self.expected.items();
        let expected_count = self.expected.len();
        let mut count = 0;
        loop {
            let more = match items.next() {
                Some(item) => {
                    self.state.path.push(Seg::Index(count));
                    let more = seq.next_element_seed(Cmp {
                        expected: item,
                        state: &mut *self.state,
                    })?;
                    self.state.path.pop();
                    more.is_some()
                }
                None => seq.next_element::<IgnoredAny>()?.is_some(),
            };
            if !more {
                break;
            }
            count += 1;
        }
        if count != expected_count {
            self.state.mismatch(format!(
                "expected {}, {} has {count}",
                count_noun(expected_count, "item", "items"),
                self.state.sides.actual
            ));
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        if !self.expected.is_object() {
            self.state.type_mismatch(self.expected, "an object");
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            return Ok(());
        }
        let fields = ExpectedObject::new(self.expected);
        let mut matched = 0;
        while let Some(key) = map.next_key_seed(KeyLookup(&fields))? {
            match key {
                Key::Found(name, value) => {
                    matched += 1;
                    self.state.path.push(Seg::Key(name));
                    map.next_value_seed(Cmp {
                        expected: value,
                        state: &mut *self.state,
                    })?;
                    self.state.path.pop();
                }
                Key::Extra(name) => {
                    if self.state.diff.is_none() {
                        let at = format!("{}/{}", self.state.pointer(), pointer_escape(&name));
                        self.state.diff = Some(Difference {
                            pointer: at,
                            detail: format!(
                                "present in {} but not in {}",
                                self.state.sides.actual, self.state.sides.expected
                            ),
                        });
                    }
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if matched != fields.distinct_keys() && self.state.missing_keys_at.is_none() {
            self.state.missing_keys_at = Some(self.state.pointer());
        }
        Ok(())
    }
}

impl Cmp<'_, '_> {
    fn number(self, n: Number) {
        let equal = self
            .expected
            .as_number()
            .is_some_and(|e| numbers_equal(&e, &n));
        if !equal {
            self.state.type_mismatch(self.expected, &n.to_string());
        }
    }
}

enum Key<'e> {
    Found(Cow<'e, str>, JsonRef<'e>),
    Extra(String),
}

/// Members small enough to scan; a bigger object gets a map for its lookups.
const SCANNED_MEMBERS: usize = 16;

/// The expected object's members, looked up by key (a repeated key reads as its last value).
struct ExpectedObject<'e> {
    object: JsonRef<'e>,
    map: Option<HashMap<Cow<'e, str>, JsonRef<'e>>>,
}

impl<'e> ExpectedObject<'e> {
    fn new(object: JsonRef<'e>) -> Self {
        let map = (object.len() > SCANNED_MEMBERS).then(|| object.entries().collect());
        Self { object, map }
    }

    fn get(&self, key: &str) -> Option<(Cow<'e, str>, JsonRef<'e>)> {
        match &self.map {
            Some(map) => map
                .get_key_value(key)
                .map(|(name, value)| (name.clone(), *value)),
            None => self
                .object
                .members()
                .find(|(name, _)| name.is(key))
                .map(|(name, value)| (name.text(), value)),
        }
    }

    /// Keys it has, each counted once (a repeated key in the document is one key).
    fn distinct_keys(&self) -> usize {
        self.object.len()
    }
}

/// Looks a text key up in the expected object without allocating it.
struct KeyLookup<'a, 'e>(&'a ExpectedObject<'e>);

impl<'de, 'e> DeserializeSeed<'de> for KeyLookup<'_, 'e> {
    type Value = Key<'e>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key<'e>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de, 'e> Visitor<'de> for KeyLookup<'_, 'e> {
    type Value = Key<'e>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E>(self, v: &str) -> Result<Key<'e>, E> {
        Ok(match self.0.get(v) {
            Some((name, value)) => Key::Found(name, value),
            None => Key::Extra(v.to_owned()),
        })
    }
}

/// Integers compare exactly; anything involving a float compares as f64 (so 3 == 3.0).
pub(crate) fn numbers_equal(a: &Number, b: &Number) -> bool {
    if let (Some(x), Some(y)) = (a.as_i64(), b.as_i64()) {
        return x == y;
    }
    if let (Some(x), Some(y)) = (a.as_u64(), b.as_u64()) {
        return x == y;
    }
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// A value for a one-line message: scalars shown (clipped), containers summarised.
pub(crate) fn short(v: JsonRef<'_>) -> String {
    match v.kind() {
        JsonKind::Array | JsonKind::Object => json_shape_phrase(&v),
        _ => v.one_line(40),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn compare(expected: &Value, text: &str) -> TextCompare {
        compare_text(JsonDoc::from_value(expected).root(), text)
    }

    fn diff(expected: Value, text: &str) -> (String, String) {
        match compare(&expected, text) {
            TextCompare::Differs(d) => (d.pointer, d.detail),
            other => panic!("expected a difference, got {other:?}"),
        }
    }

    #[test]
    fn equal_ignoring_key_order_and_number_form() {
        let eq = |v: Value, t: &str| compare(&v, t) == TextCompare::Equal;
        assert!(eq(
            json!({"a": 1, "b": [1.0, 2]}),
            r#"{"b": [1, 2.0], "a": 1.0}"#
        ));
        assert!(eq(json!(null), " null "));
        assert!(eq(json!("a\"b"), r#""a\"b""#));
        assert!(eq(json!(u64::MAX), &u64::MAX.to_string()));
        assert!(eq(json!(-5), "-5.0"));
        assert!(!eq(json!(1), "\"1\""));
        assert!(!eq(json!(-1), &u64::MAX.to_string()));
    }

    #[test]
    fn not_json() {
        assert_eq!(compare(&json!(1), "one"), TextCompare::NotJson);
        assert_eq!(compare(&json!(1), "1 2"), TextCompare::NotJson);
        // A difference found early does not hide a syntax error later.
        assert_eq!(compare(&json!([1, 2]), "[9, 2"), TextCompare::NotJson);
    }

    #[test]
    fn first_difference_is_located() {
        let d = diff(json!({"count": 3, "x": 1}), r#"{"x": 1, "count": 4}"#);
        assert_eq!(d, ("/count".into(), "expected 3, the text has 4".into()));
        let d = diff(json!({"a/b": [1, {"c": 1}]}), r#"{"a/b": [1, {}]}"#);
        assert_eq!(d, ("/a~1b/1/c".into(), "missing from the text".into()));
        let d = diff(json!({"a": 1}), r#"{"a": 1, "z": 2}"#);
        assert_eq!(
            d,
            (
                "/z".into(),
                "present in the text but not in structuredContent".into()
            )
        );
        let d = diff(json!([1, 2]), "[1]");
        assert_eq!(d, ("".into(), "expected 2 items, the text has 1".into()));
        let d = diff(json!({"a": [1]}), r#"{"a": {"x": true}}"#);
        assert_eq!(
            d,
            (
                "/a".into(),
                "expected an array of 1 item, the text has an object".into()
            )
        );
    }
}
