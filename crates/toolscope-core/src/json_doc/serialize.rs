//! A document value serialized with serde, so every serde writer (pretty, capped, through
//! `deep_json::serialize_to_writer` at any depth) prints it without building a tree.

use serde::ser::{Serialize, Serializer};

use super::{JsonKind, JsonRef};

impl Serialize for JsonRef<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.kind() {
            JsonKind::Null => serializer.serialize_unit(),
            JsonKind::Bool => serializer.serialize_bool(self.as_bool() == Some(true)),
            JsonKind::Number => match self.as_number() {
                Some(number) => number.serialize(serializer),
                None => serializer.serialize_unit(),
            },
            JsonKind::String => serializer.serialize_str(&self.as_str().unwrap_or_default()),
            // `collect_*` (not `serialize_seq`): serde_stacker grows the stack only there.
            JsonKind::Array => serializer.collect_seq(self.items()),
            JsonKind::Object => serializer.collect_map(self.entries()),
        }
    }
}
