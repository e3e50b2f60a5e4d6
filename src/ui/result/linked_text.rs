//! Linked views: the value selected in the structuredContent tree is highlighted where it
//! appears in the text blocks, when the analysis found that the text mirrors the structured
//! data. Strings are found as written; numbers and booleans only as whole words (the 3 in
//! "13" is not the 3 selected). The other way: a word double-clicked in the text is searched
//! for in the tree.

use egui::{Color32, FontId, TextFormat, text::LayoutJob};

use toolscope_core::json_doc::{JsonKind, JsonRef};

/// Longest selected string looked for (a longer one is not a useful highlight).
const MAX_NEEDLE: usize = 2_000;

/// What to look for in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needle {
    text: String,
    /// Numbers and booleans: only where not part of a longer word or number.
    whole_word: bool,
}

impl Needle {
    /// The needle for a selected value; containers and null are not looked for.
    pub fn for_value(value: JsonRef<'_>) -> Option<Self> {
        match value.kind() {
            // Read no further than a useful needle: the string may be megabytes long.
            JsonKind::String => match value.str_prefix(MAX_NEEDLE)? {
                (text, false) if !text.is_empty() => Some(Self {
                    text,
                    whole_word: false,
                }),
                _ => None,
            },
            JsonKind::Number | JsonKind::Bool => Some(Self {
                text: value.raw().to_owned(),
                whole_word: true,
            }),
            _ => None,
        }
    }

    /// Byte ranges of the needle in `haystack`.
    pub fn find_in(&self, haystack: &str) -> Vec<std::ops::Range<usize>> {
        let word = |c: char| c.is_alphanumeric() || c == '.' || c == '_' || c == '-';
        haystack
            .match_indices(&self.text)
            .map(|(start, found)| start..start + found.len())
            .filter(|range| {
                !self.whole_word
                    || (!haystack[..range.start]
                        .chars()
                        .next_back()
                        .is_some_and(word)
                        && !haystack[range.end..].chars().next().is_some_and(word))
            })
            .collect()
    }
}

/// The word (or number) around character `at` of `text`, to look for in the tree.
pub fn word_at(text: &str, at: usize) -> Option<String> {
    let part = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '@' | '+');
    let chars: Vec<char> = text.chars().collect();
    let at = at.min(chars.len().checked_sub(1)?);
    if !part(chars[at]) {
        return None;
    }
    let start = (0..=at).rev().take_while(|&i| part(chars[i])).last()?;
    let end = (at..chars.len()).take_while(|&i| part(chars[i])).last()?;
    let word: String = chars[start..=end].iter().collect();
    let word = word.trim_matches(|c| c == '.' || c == '-').to_owned();
    (!word.is_empty()).then_some(word)
}

/// `text` laid out in `font` and `color`, with `highlight` behind the ranges.
pub fn highlighted(
    text: &str,
    ranges: &[std::ops::Range<usize>],
    font: FontId,
    color: Color32,
    highlight: Color32,
) -> LayoutJob {
    let mut job = LayoutJob::default();
    let plain = TextFormat::simple(font.clone(), color);
    let marked = TextFormat {
        background: highlight,
        ..TextFormat::simple(font, color)
    };
    let mut at = 0;
    for range in ranges {
        if range.start < at {
            continue;
        }
        job.append(&text[at..range.start], 0.0, plain.clone());
        job.append(&text[range.clone()], 0.0, marked.clone());
        at = range.end;
    }
    job.append(&text[at..], 0.0, plain);
    job
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn needle(value: &serde_json::Value) -> Option<Needle> {
        Needle::for_value(toolscope_core::json_doc::JsonDoc::from_value(value).root())
    }

    #[test]
    fn numbers_match_whole_words_and_strings_anywhere() {
        let three = needle(&json!(3)).unwrap();
        assert_eq!(
            three.find_in("3 and 13 and 3.5 and [3]"),
            vec![0..1, 22..23]
        );
        let city = needle(&json!("London")).unwrap();
        assert_eq!(city.find_in(r#"{"city":"London"}"#), vec![9..15]);
        assert!(needle(&json!({"a": 1})).is_none());
        assert!(needle(&serde_json::Value::Null).is_none());
        let job = highlighted(
            "a 3 b",
            &three.find_in("a 3 b"),
            FontId::default(),
            Color32::WHITE,
            Color32::RED,
        );
        assert_eq!(job.sections.len(), 3);
        assert_eq!(job.text, "a 3 b");
    }

    #[test]
    fn the_word_under_a_double_click() {
        let text = r#"{"value":"three","n":-2.5}. End."#;
        assert_eq!(word_at(text, 12).as_deref(), Some("three"));
        assert_eq!(word_at(text, 23).as_deref(), Some("2.5"));
        assert_eq!(word_at(text, 1), None, "a quote is not a word");
        assert_eq!(word_at(text, 28).as_deref(), Some("End"));
        assert_eq!(word_at("", 0), None);
    }
}
