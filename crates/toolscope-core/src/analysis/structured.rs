//! The shape of structuredContent, with an era check. The value itself stays in the response
//! (a million-node result is not copied into its analysis).

use serde::Serialize;

use crate::json_doc::JsonRef;

use super::annotations::json_type_phrase;
use super::era::{FIRST_MODERN_VERSION, ProtocolEra};
use crate::text_util::json_shape_phrase;

/// What arrived as `structuredContent`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StructuredView {
    Absent,
    Present {
        /// "an object with 2 keys", "an array of 3 items", "a number"…
        shape: String,
        /// True when a non-object arrives in the Legacy era, where it must be an object.
        not_object_in_legacy_era: bool,
        note: Option<String>,
    },
}

impl StructuredView {
    pub(crate) fn new(value: Option<JsonRef<'_>>, era: ProtocolEra) -> Self {
        let Some(value) = value else {
            return StructuredView::Absent;
        };
        let flagged = era == ProtocolEra::Legacy && !value.is_object();
        let note = flagged.then(|| {
            format!(
                "structuredContent is {}, but before protocol {FIRST_MODERN_VERSION} it must be \
                 a JSON object; clients of that era may reject or ignore it",
                json_type_phrase(&value)
            )
        });
        StructuredView::Present {
            shape: json_shape_phrase(&value),
            not_object_in_legacy_era: flagged,
            note,
        }
    }

    pub fn is_flagged(&self) -> bool {
        matches!(
            self,
            StructuredView::Present {
                not_object_in_legacy_era: true,
                ..
            }
        )
    }

    pub fn describe(&self) -> String {
        match self {
            StructuredView::Absent => "No structuredContent in the result".to_owned(),
            StructuredView::Present { shape, note, .. } => match note {
                Some(n) => format!("structuredContent: {shape}. Problem: {n}"),
                None => format!("structuredContent: {shape}"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_doc::JsonDoc;
    use serde_json::json;

    fn view(value: &serde_json::Value, era: ProtocolEra) -> StructuredView {
        StructuredView::new(Some(JsonDoc::from_value(value).root()), era)
    }

    #[test]
    fn non_object_flagged_only_in_legacy_era() {
        let legacy = view(&json!([1, 2]), ProtocolEra::Legacy);
        assert!(legacy.is_flagged());
        assert!(
            legacy.describe().contains("must be a JSON object"),
            "{}",
            legacy.describe()
        );
        let modern = view(&json!([1, 2]), ProtocolEra::Modern);
        assert!(!modern.is_flagged());
        assert_eq!(modern.describe(), "structuredContent: an array of 2 items");
        let obj = view(&json!({"a": 1}), ProtocolEra::Legacy);
        assert!(!obj.is_flagged());
        assert_eq!(
            StructuredView::new(None, ProtocolEra::Legacy),
            StructuredView::Absent
        );
        let json = serde_json::to_value(&legacy).unwrap();
        assert_eq!(json["kind"], "present");
        assert_eq!(json["not_object_in_legacy_era"], true);
    }
}
