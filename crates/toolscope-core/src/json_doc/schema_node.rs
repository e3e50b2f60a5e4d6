//! A [`JsonDoc`] validated in place by `jsonschema` (its custom-representation API): no
//! `serde_json::Value` tree is built for the instance.

use std::borrow::Cow;

use jsonschema::json::{Array, Json, JsonNumber, Node, NodeIdentity, Object};
use jsonschema::types::JsonType;
use jsonschema_value::LazyInstance;
use serde_json::Value;

use super::{Items, JsonDoc, JsonKind, JsonRef, Members};

/// The `jsonschema` representation of a [`JsonDoc`]: build validators with
/// `jsonschema::options_for::<DocJson>()`.
pub struct DocJson;

impl Json for DocJson {
    type Node<'a> = JsonRef<'a>;
    type PreparedKey = Box<str>;
    // A lookup is a scan of the members, so a members pass pays off early.
    const KEYS_PER_LOOKUP: usize = 1;
    const ACYCLIC: bool = true;
    type StringBuffer = Option<JsonDoc>;

    fn prepare_key(key: &str) -> Box<str> {
        key.into()
    }

    fn with_string_node<T>(
        buffer: &mut Option<JsonDoc>,
        string: &str,
        f: impl FnOnce(JsonRef<'_>) -> T,
    ) -> T {
        let text = serde_json::to_string(string).unwrap_or_else(|_| "\"\"".to_owned());
        let doc = buffer.insert(JsonDoc::parse(text).unwrap_or_else(|_| JsonDoc::null()));
        f(doc.root())
    }
}

/// The value of a JSON text taken from a document (so it is valid JSON).
fn value_of_text(bytes: &[u8], _tag: u32) -> Value {
    let text = String::from_utf8_lossy(bytes).into_owned();
    JsonDoc::parse(text).map_or(Value::Null, |doc| doc.root().to_value())
}

/// A number on the tape, read from its text.
#[derive(Clone, Copy)]
pub struct DocNumber<'a>(&'a str);

impl JsonNumber for DocNumber<'_> {
    fn as_u64(&self) -> Option<u64> {
        self.0.parse().ok()
    }

    fn as_i64(&self) -> Option<i64> {
        self.0.parse().ok()
    }

    fn as_f64(&self) -> Option<f64> {
        self.0.parse().ok()
    }

    fn as_str(&self) -> Cow<'_, str> {
        Cow::Borrowed(self.0)
    }

    fn to_number(&self) -> Cow<'_, serde_json::Number> {
        Cow::Owned(super::to_value::number(self.0).unwrap_or_else(|| 0.into()))
    }
}

impl<'a> Node<'a, DocJson> for JsonRef<'a> {
    type Object = JsonRef<'a>;
    type Array = JsonRef<'a>;
    type Number = DocNumber<'a>;

    fn as_object(&self) -> Option<JsonRef<'a>> {
        self.is_object().then_some(*self)
    }

    fn as_array(&self) -> Option<JsonRef<'a>> {
        self.is_array().then_some(*self)
    }

    fn as_string(&self) -> Option<Cow<'a, str>> {
        JsonRef::as_str(*self)
    }

    fn as_number(&self) -> Option<DocNumber<'a>> {
        self.number_text().map(DocNumber)
    }

    fn as_boolean(&self) -> Option<bool> {
        self.as_bool()
    }

    fn is_null(&self) -> bool {
        JsonRef::is_null(*self)
    }

    fn json_type(&self) -> JsonType {
        match self.kind() {
            JsonKind::Null => JsonType::Null,
            JsonKind::Bool => JsonType::Boolean,
            JsonKind::Number => JsonType::Number,
            JsonKind::String => JsonType::String,
            JsonKind::Array => JsonType::Array,
            JsonKind::Object => JsonType::Object,
        }
    }

    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(JsonRef::to_value(*self))
    }

    /// An error's instance is built only if it is read: its own text, parsed then.
    fn lazy_value(&self) -> LazyInstance<'a> {
        LazyInstance::Deferred {
            bytes: self.raw().as_bytes(),
            tag: 0,
            make: value_of_text,
            cell: std::sync::OnceLock::new(),
        }
    }

    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::tagged(
            std::ptr::from_ref(self.doc) as usize,
            self.id(),
        ))
    }
}

/// Members with their names read, for the validator.
pub struct NamedMembers<'a>(Members<'a>);

impl<'a> Iterator for NamedMembers<'a> {
    type Item = (Cow<'a, str>, JsonRef<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(key, value)| (key.text(), value))
    }
}

impl<'a> Object<'a, DocJson> for JsonRef<'a> {
    type Node = JsonRef<'a>;
    type MemberName = Cow<'a, str>;
    type MembersIter = NamedMembers<'a>;

    fn len(&self) -> usize {
        JsonRef::len(*self)
    }

    fn get(&self, key: &Box<str>) -> Option<JsonRef<'a>> {
        JsonRef::get(*self, key)
    }

    fn members(&self) -> NamedMembers<'a> {
        NamedMembers(JsonRef::members(*self))
    }
}

impl<'a> Array<'a, DocJson> for JsonRef<'a> {
    type Node = JsonRef<'a>;
    type ElementsIter = Items<'a>;

    fn len(&self) -> usize {
        JsonRef::len(*self)
    }

    fn elements(&self) -> Items<'a> {
        self.items()
    }
}
