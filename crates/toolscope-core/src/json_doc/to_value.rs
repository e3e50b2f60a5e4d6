//! Materialising part of a document as a `serde_json::Value`, without recursion.

use serde_json::{Map, Number, Value};

use super::{JsonRef, entry::EntryKind};

enum Building {
    Array(Vec<Value>),
    Object(Map<String, Value>, Option<String>),
}

pub(super) fn to_value(root: JsonRef<'_>) -> Value {
    let doc = root.doc;
    let end = root.entry().next();
    // Open containers with the tape position their subtree ends at.
    let mut open: Vec<(Building, u32)> = Vec::new();
    let mut done: Option<Value> = None;
    let place = |open: &mut Vec<(Building, u32)>, done: &mut Option<Value>, value: Value| match open
        .last_mut()
    {
        None => *done = Some(value),
        Some((Building::Array(items), _)) => items.push(value),
        Some((Building::Object(map, key), _)) => {
            map.insert(key.take().unwrap_or_default(), value);
        }
    };
    for at in root.at..end {
        close_finished(&mut open, &mut done, at, &place);
        let entry = doc.entry(at);
        let value = match entry.kind() {
            EntryKind::Array => {
                open.push((
                    Building::Array(Vec::with_capacity(entry.count() as usize)),
                    entry.next(),
                ));
                continue;
            }
            EntryKind::Object => {
                open.push((
                    Building::Object(Map::with_capacity(entry.count() as usize), None),
                    entry.next(),
                ));
                continue;
            }
            EntryKind::Key => {
                if let Some((Building::Object(_, key), _)) = open.last_mut() {
                    *key = Some(doc.string_at(entry).into_owned());
                }
                continue;
            }
            EntryKind::Null => Value::Null,
            EntryKind::False => Value::Bool(false),
            EntryKind::True => Value::Bool(true),
            EntryKind::String => Value::String(doc.string_at(entry).into_owned()),
            EntryKind::Number => number(&doc.text[entry.span()]).map_or(Value::Null, Value::Number),
        };
        place(&mut open, &mut done, value);
    }
    close_finished(&mut open, &mut done, u32::MAX, &place);
    done.unwrap_or(Value::Null)
}

fn close_finished(
    open: &mut Vec<(Building, u32)>,
    done: &mut Option<Value>,
    at: u32,
    place: &impl Fn(&mut Vec<(Building, u32)>, &mut Option<Value>, Value),
) {
    while open.last().is_some_and(|(_, next)| *next <= at) {
        let Some((building, _)) = open.pop() else {
            break;
        };
        let value = match building {
            Building::Array(items) => Value::Array(items),
            Building::Object(map, _) => Value::Object(map),
        };
        place(open, done, value);
    }
}

/// A number's text as serde_json reads it: an integer when it fits, else a float.
pub(super) fn number(text: &str) -> Option<Number> {
    let integer = !text.contains(['.', 'e', 'E']);
    // serde_json reads "-0" as the float -0.0.
    if integer && text != "-0" {
        if let Ok(n) = text.parse::<u64>() {
            return Some(n.into());
        }
        if let Ok(n) = text.parse::<i64>() {
            return Some(n.into());
        }
    }
    Number::from_f64(text.parse().ok()?)
}
