//! A document value serialized with serde, so every serde writer (pretty, capped, through
//! `deep_json::serialize_to_writer` at any depth) prints it without building a tree.

use serde::ser::{Serialize, SerializeMap as _, SerializeSeq as _, Serializer};

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
            JsonKind::Array => {
                let mut seq = serializer.serialize_seq(Some(self.len()))?;
                for item in self.items() {
                    seq.serialize_element(&item)?;
                }
                seq.end()
            }
            JsonKind::Object => {
                let mut map = serializer.serialize_map(Some(self.len()))?;
                for (key, value) in self.entries() {
                    map.serialize_entry(key.as_ref(), &value)?;
                }
                map.end()
            }
        }
    }
}
