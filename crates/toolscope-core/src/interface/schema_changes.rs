//! What changed between two JSON Schemas of one tool (its input or its output), each change
//! weighed by who reads the schema: a client sends arguments that must keep validating (an
//! input may only accept more), and reads results it relied on (an output may only promise
//! more). Schemas come from servers and may be hostile: the walk is a loop with a work list,
//! bounded in depth and in the number of subschemas compared, never a recursion.

use std::collections::{HashSet, VecDeque};

use serde_json::{Map, Value};

use super::change::{Change, ChangeKind, Severity};
use crate::{json_pointer::push_token, text_util::clip_chars};

/// Nested schema levels compared (properties in properties, items…); a difference below is
/// reported as one change at the level where the comparison stopped.
pub const MAX_COMPARED_DEPTH: usize = 64;
/// Pairs of subschemas compared in one schema (recursive `$ref`s and wide schemas end here).
const MAX_COMPARED_PAIRS: usize = 20_000;
/// `$ref` hops followed from one subschema (a ref to a ref to…).
const MAX_REF_HOPS: usize = 8;

/// Which side of a tool a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaRole {
    /// `inputSchema`: what a client sends.
    Input,
    /// `outputSchema`: what a client receives.
    Output,
}

impl SchemaRole {
    /// The severity of a change that makes the schema accept fewer values.
    fn tightened(self) -> Severity {
        match self {
            Self::Input => Severity::Breaking,
            Self::Output => Severity::Compatible,
        }
    }

    /// The severity of a change that makes the schema accept more values.
    fn loosened(self) -> Severity {
        match self {
            Self::Input => Severity::Compatible,
            Self::Output => Severity::Breaking,
        }
    }

    /// "argument `a.b`", "the arguments object", "output property `x`", "the output".
    fn subject(self, name: &str) -> String {
        match (self, name.is_empty()) {
            (Self::Input, true) => "the arguments object".to_owned(),
            (Self::Input, false) => format!("argument `{name}`"),
            (Self::Output, true) => "the output".to_owned(),
            (Self::Output, false) => format!("output property `{name}`"),
        }
    }
}

/// The changes found, and what could not be compared.
#[derive(Debug, Default)]
pub struct SchemaComparison {
    pub changes: Vec<Change>,
    pub notes: Vec<String>,
}

/// One pair of subschemas still to compare.
struct Pending<'a> {
    old: &'a Value,
    new: &'a Value,
    /// JSON Pointer of the subschema inside the tool (`/inputSchema/properties/a`).
    location: String,
    /// Dotted path of the value it describes (`a.b`, `list[]`; empty for the root).
    name: String,
    depth: usize,
}

/// Compares two schemas of one role; `base` is their location in the tool (`/inputSchema`).
pub fn compare_schemas(old: &Value, new: &Value, role: SchemaRole, base: &str) -> SchemaComparison {
    let mut comparison = SchemaComparison::default();
    let mut queue = VecDeque::from([Pending {
        old,
        new,
        location: base.to_owned(),
        name: String::new(),
        depth: 0,
    }]);
    let mut seen: HashSet<(*const Value, *const Value)> = HashSet::new();
    let mut compared = 0usize;
    while let Some(pending) = queue.pop_front() {
        let (Some(old_schema), Some(new_schema)) =
            (resolve(old, pending.old), resolve(new, pending.new))
        else {
            continue;
        };
        // A recursive schema reaches the same pair again through its `$ref`s.
        if !seen.insert((
            std::ptr::from_ref(old_schema),
            std::ptr::from_ref(new_schema),
        )) {
            continue;
        }
        compared += 1;
        if compared > MAX_COMPARED_PAIRS {
            comparison.notes.push(format!(
                "only the first {MAX_COMPARED_PAIRS} subschemas of {base} were compared; \
                 check the rest by hand"
            ));
            break;
        }
        if pending.depth >= MAX_COMPARED_DEPTH {
            if !deep_equal(old_schema, new_schema) {
                comparison.changes.push(Change::breaking(
                    ChangeKind::KeywordChanged,
                    pending.location,
                    format!(
                        "{} differs below this point, nested deeper than Toolscope compares \
                         ({MAX_COMPARED_DEPTH} levels), so it counts as breaking",
                        role.subject(&pending.name)
                    ),
                ));
            }
            continue;
        }
        compare_one(
            old_schema,
            new_schema,
            role,
            &pending,
            &mut comparison.changes,
            &mut queue,
        );
    }
    comparison
}

/// Follows local `$ref`s from `schema` inside `root`; `None` only for a ref chain that loops
/// or is too long. A ref that does not resolve is compared as it is.
fn resolve<'a>(root: &'a Value, schema: &'a Value) -> Option<&'a Value> {
    crate::json_pointer::follow_refs(root, schema, MAX_REF_HOPS)
}

static NO_KEYWORDS: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);

/// The keywords of a schema (`true` and `false` have none; their types say what they accept).
fn keywords(schema: &Value) -> &Map<String, Value> {
    schema.as_object().unwrap_or(&NO_KEYWORDS)
}

fn compare_one<'a>(
    old: &'a Value,
    new: &'a Value,
    role: SchemaRole,
    at: &Pending<'a>,
    changes: &mut Vec<Change>,
    queue: &mut VecDeque<Pending<'a>>,
) {
    compare_types(old, new, role, at, changes);
    let (old_keys, new_keys) = (keywords(old), keywords(new));
    compare_properties(old_keys, new_keys, role, at, changes, queue);
    let mut keys: Vec<&String> = old_keys.keys().collect();
    keys.extend(new_keys.keys().filter(|key| !old_keys.contains_key(*key)));
    for key in keys {
        let (before, after) = (old_keys.get(key), new_keys.get(key));
        if HANDLED.contains(&key.as_str()) {
            continue;
        }
        let location = child_location(&at.location, key);
        if key == "items" {
            compare_items(before, after, role, at, location, changes, queue);
            continue;
        }
        if before.zip(after).is_some_and(|(a, b)| deep_equal(a, b)) {
            continue;
        }
        let subject = role.subject(&at.name);
        let change = match key.as_str() {
            "enum" | "const" => compare_enum(key, before, after, role, &subject, location),
            "additionalProperties" => compare_additional(before, after, role, &subject, location),
            key if LOWER_BOUNDS.contains(&key) || UPPER_BOUNDS.contains(&key) => {
                compare_bound(key, before, after, role, &subject, location)
            }
            key if DOC_KEYWORDS.contains(&key) || key.starts_with("x-") => {
                Some(Change::compatible(
                    ChangeKind::SchemaDocChanged,
                    location,
                    format!("`{key}` of {subject} {}", changed_words(before, after)),
                ))
            }
            _ => Some(Change::breaking(
                ChangeKind::KeywordChanged,
                location,
                format!(
                    "`{key}` of {subject} {}; Toolscope cannot tell whether that accepts \
                     fewer values, so it counts as breaking",
                    changed_words(before, after)
                ),
            )),
        };
        changes.extend(change);
    }
}

/// Keywords compared elsewhere (`type`, `properties`, `required`), or through the refs that
/// point into them (`$defs`).
const HANDLED: &[&str] = &[
    "type",
    "properties",
    "required",
    "$defs",
    "definitions",
    "$ref",
];
/// Keywords that document and do not constrain.
const DOC_KEYWORDS: &[&str] = &[
    "title",
    "description",
    "examples",
    "default",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$schema",
    "$id",
    "$anchor",
];
/// Numbers a value must reach: a higher one accepts fewer values.
const LOWER_BOUNDS: &[&str] = &[
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
];
/// Numbers a value must not pass: a lower one accepts fewer values.
const UPPER_BOUNDS: &[&str] = &[
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
];

fn child_location(location: &str, token: &str) -> String {
    let mut location = location.to_owned();
    push_token(&mut location, token);
    location
}

fn child_name(name: &str, property: &str) -> String {
    if name.is_empty() {
        property.to_owned()
    } else {
        format!("{name}.{property}")
    }
}

/// "changed from 1 to 5", "was added (5)", "was removed (was 1)".
fn changed_words(before: Option<&Value>, after: Option<&Value>) -> String {
    match (before, after) {
        (Some(before), Some(after)) => {
            format!("changed from {} to {}", short(before), short(after))
        }
        (None, Some(after)) => format!("was added ({})", short(after)),
        (Some(before), None) => format!("was removed (was {})", short(before)),
        (None, None) => "did not change".to_owned(),
    }
}

/// A value in a sentence: compact JSON, at most 60 characters.
fn short(value: &Value) -> String {
    clip_chars(&crate::deep_json::to_string(value), 60)
}

// ---- types -------------------------------------------------------------------------------

const TYPE_NAMES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "integer", "string",
];
const ALL_TYPES: u8 = 0b111_1111;
const NUMBER: u8 = 1 << 4;
const INTEGER: u8 = 1 << 5;

/// The JSON types a schema allows, as bits of [`TYPE_NAMES`]: no `type` (or `true`) allows
/// all, `false` none; names that are not JSON types are ignored.
fn type_set(schema: &Value) -> u8 {
    match schema {
        Value::Bool(false) => 0,
        Value::Object(map) => match map.get("type") {
            Some(Value::String(name)) => type_bit(name),
            Some(Value::Array(names)) => names
                .iter()
                .filter_map(Value::as_str)
                .fold(0, |set, name| set | type_bit(name)),
            _ => ALL_TYPES,
        },
        _ => ALL_TYPES,
    }
}

fn type_bit(name: &str) -> u8 {
    TYPE_NAMES
        .iter()
        .position(|known| *known == name)
        .map_or(0, |at| 1 << at)
}

/// Whether every value of types `inner` is also of types `outer` (integer ⊂ number).
fn covers(outer: u8, inner: u8) -> bool {
    let outer = if outer & NUMBER != 0 {
        outer | INTEGER
    } else {
        outer
    };
    inner & !outer == 0
}

/// "any type", "no value", "string", "string or null".
fn type_words(set: u8) -> String {
    match set {
        ALL_TYPES => "any type".to_owned(),
        0 => "no value at all".to_owned(),
        _ => TYPE_NAMES
            .iter()
            .enumerate()
            .filter(|(at, _)| set & (1 << at) != 0)
            .map(|(_, name)| *name)
            .collect::<Vec<_>>()
            .join(" or "),
    }
}

fn compare_types(
    old: &Value,
    new: &Value,
    role: SchemaRole,
    at: &Pending<'_>,
    changes: &mut Vec<Change>,
) {
    let (before, after) = (type_set(old), type_set(new));
    let (wider, narrower) = (covers(after, before), covers(before, after));
    if wider && narrower {
        return;
    }
    let subject = role.subject(&at.name);
    let words = format!("from {} to {}", type_words(before), type_words(after));
    let location = child_location(&at.location, "type");
    changes.push(if wider {
        Change::new(
            role.loosened(),
            ChangeKind::TypeWidened,
            location,
            match role {
                SchemaRole::Input => format!("the type of {subject} widened {words}"),
                SchemaRole::Output => format!(
                    "the type of {subject} widened {words}: clients may receive values they \
                     do not expect"
                ),
            },
        )
    } else if narrower {
        Change::new(
            role.tightened(),
            ChangeKind::TypeNarrowed,
            location,
            match role {
                SchemaRole::Input => format!(
                    "the type of {subject} narrowed {words}: values that were accepted are now \
                     rejected"
                ),
                SchemaRole::Output => format!("the type of {subject} narrowed {words}"),
            },
        )
    } else {
        Change::breaking(
            ChangeKind::TypeChanged,
            location,
            format!("the type of {subject} changed {words}"),
        )
    });
}

// ---- properties --------------------------------------------------------------------------

/// The names `required` lists, in its order.
fn required_list(keys: &Map<String, Value>) -> Vec<&str> {
    keys.get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn compare_properties<'a>(
    old: &'a Map<String, Value>,
    new: &'a Map<String, Value>,
    role: SchemaRole,
    at: &Pending<'a>,
    changes: &mut Vec<Change>,
    queue: &mut VecDeque<Pending<'a>>,
) {
    let (old_props, new_props) = (
        old.get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&NO_KEYWORDS),
        new.get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&NO_KEYWORDS),
    );
    let (old_list, new_list) = (required_list(old), required_list(new));
    let old_required: HashSet<&str> = old_list.iter().copied().collect();
    let new_required: HashSet<&str> = new_list.iter().copied().collect();
    // Every name either side declares or requires, in the old order, then the new one.
    let mut names: Vec<&str> = Vec::new();
    let mut listed = HashSet::new();
    let declared = old_props
        .keys()
        .map(String::as_str)
        .chain(old_list)
        .chain(new_props.keys().map(String::as_str))
        .chain(new_list);
    for name in declared {
        if listed.insert(name) {
            names.push(name);
        }
    }
    let properties_location = child_location(&at.location, "properties");
    for name in names {
        let location = child_location(&properties_location, name);
        let path = child_name(&at.name, name);
        let subject = role.subject(&path);
        let was = old_props.contains_key(name) || old_required.contains(name);
        let is = new_props.contains_key(name) || new_required.contains(name);
        let (was_required, is_required) =
            (old_required.contains(name), new_required.contains(name));
        match (was, is) {
            (true, false) => changes.push(Change::breaking(
                ChangeKind::PropertyRemoved,
                location,
                match role {
                    SchemaRole::Input => format!(
                        "{subject} was removed: calls that send it may be rejected, and it no \
                         longer does what it did"
                    ),
                    SchemaRole::Output => {
                        format!("{subject} was removed: clients that read it will not find it")
                    }
                },
            )),
            (false, true) => changes.push(match (role, is_required) {
                (SchemaRole::Input, true) => Change::breaking(
                    ChangeKind::PropertyAdded,
                    location,
                    format!("new required {subject}: calls without it are rejected"),
                ),
                (SchemaRole::Input, false) => Change::compatible(
                    ChangeKind::PropertyAdded,
                    location,
                    format!("new optional {subject}"),
                ),
                (SchemaRole::Output, _) => Change::compatible(
                    ChangeKind::PropertyAdded,
                    location,
                    format!("new {subject}"),
                ),
            }),
            (true, true) => {
                if was_required != is_required {
                    changes.push(required_change(
                        role,
                        is_required,
                        &subject,
                        location.clone(),
                    ));
                }
                if let (Some(old_schema), Some(new_schema)) =
                    (old_props.get(name), new_props.get(name))
                {
                    queue.push_back(Pending {
                        old: old_schema,
                        new: new_schema,
                        location,
                        name: path,
                        depth: at.depth + 1,
                    });
                }
            }
            (false, false) => {}
        }
    }
}

fn required_change(
    role: SchemaRole,
    now_required: bool,
    subject: &str,
    location: String,
) -> Change {
    match (role, now_required) {
        (SchemaRole::Input, true) => Change::breaking(
            ChangeKind::RequiredAdded,
            location,
            format!("{subject} became required: calls without it are rejected"),
        ),
        (SchemaRole::Input, false) => Change::compatible(
            ChangeKind::RequiredRemoved,
            location,
            format!("{subject} became optional"),
        ),
        (SchemaRole::Output, true) => Change::compatible(
            ChangeKind::RequiredAdded,
            location,
            format!("{subject} became required: it is now always there"),
        ),
        (SchemaRole::Output, false) => Change::breaking(
            ChangeKind::RequiredRemoved,
            location,
            format!("{subject} became optional: clients that rely on it may not get it"),
        ),
    }
}

fn compare_items<'a>(
    before: Option<&'a Value>,
    after: Option<&'a Value>,
    role: SchemaRole,
    at: &Pending<'a>,
    location: String,
    changes: &mut Vec<Change>,
    queue: &mut VecDeque<Pending<'a>>,
) {
    let name = format!("{}[]", at.name);
    match (before, after) {
        (Some(old), Some(new)) if !old.is_array() && !new.is_array() => queue.push_back(Pending {
            old,
            new,
            location,
            name,
            depth: at.depth + 1,
        }),
        (Some(old), Some(new)) if deep_equal(old, new) => {}
        (None, None) => {}
        (None, Some(_)) => changes.push(Change::new(
            role.tightened(),
            ChangeKind::ConstraintTightened,
            location,
            format!(
                "the items of {} are now constrained by a schema",
                role.subject(&at.name)
            ),
        )),
        (Some(_), None) => changes.push(Change::new(
            role.loosened(),
            ChangeKind::ConstraintLoosened,
            location,
            format!(
                "the items of {} are no longer constrained",
                role.subject(&at.name)
            ),
        )),
        (Some(old), Some(new)) => changes.push(Change::breaking(
            ChangeKind::KeywordChanged,
            location,
            format!(
                "`items` of {} changed from {} to {}; Toolscope cannot tell whether that \
                 accepts fewer values, so it counts as breaking",
                role.subject(&at.name),
                short(old),
                short(new)
            ),
        )),
    }
}

// ---- enum, const, additionalProperties, bounds -----------------------------------------

/// The values `enum` (or `const`) allows, as compact JSON text.
fn allowed_values(keyword: &str, value: &Value) -> Vec<String> {
    match (keyword, value) {
        ("enum", Value::Array(values)) => values.iter().map(crate::deep_json::to_string).collect(),
        _ => vec![crate::deep_json::to_string(value)],
    }
}

fn compare_enum(
    keyword: &str,
    before: Option<&Value>,
    after: Option<&Value>,
    role: SchemaRole,
    subject: &str,
    location: String,
) -> Option<Change> {
    let words = |values: &[String]| clip_chars(&values.join(", "), 120);
    match (before, after) {
        (None, Some(after)) => Some(Change::new(
            role.tightened(),
            ChangeKind::EnumAdded,
            location,
            format!(
                "{subject} is now limited to {}",
                words(&allowed_values(keyword, after))
            ),
        )),
        (Some(_), None) => Some(Change::new(
            role.loosened(),
            ChangeKind::EnumRemoved,
            location,
            format!("{subject} is no longer limited to a list of values (`{keyword}` removed)"),
        )),
        (Some(before), Some(after)) => {
            let (old_values, new_values) = (
                allowed_values(keyword, before),
                allowed_values(keyword, after),
            );
            let removed: Vec<String> = old_values
                .iter()
                .filter(|v| !new_values.contains(v))
                .cloned()
                .collect();
            let added: Vec<String> = new_values
                .iter()
                .filter(|v| !old_values.contains(v))
                .cloned()
                .collect();
            // Both at once is one change: the severest reading of it.
            match (removed.is_empty(), added.is_empty()) {
                (true, true) => None,
                (false, true) => Some(Change::new(
                    role.tightened(),
                    ChangeKind::EnumValuesRemoved,
                    location,
                    format!("{subject} no longer allows {}", words(&removed)),
                )),
                (true, false) => Some(Change::new(
                    role.loosened(),
                    ChangeKind::EnumValuesAdded,
                    location,
                    match role {
                        SchemaRole::Input => format!("{subject} now also allows {}", words(&added)),
                        SchemaRole::Output => format!(
                            "{subject} may now also be {}: clients that handle each value may \
                             meet one they do not know",
                            words(&added)
                        ),
                    },
                )),
                (false, false) => Some(Change::breaking(
                    ChangeKind::EnumValuesRemoved,
                    location,
                    format!(
                        "{subject} no longer allows {} and now allows {}",
                        words(&removed),
                        words(&added)
                    ),
                )),
            }
        }
        (None, None) => None,
    }
}

fn compare_additional(
    before: Option<&Value>,
    after: Option<&Value>,
    role: SchemaRole,
    subject: &str,
    location: String,
) -> Option<Change> {
    let closed = |value: Option<&Value>| value == Some(&Value::Bool(false));
    let open = |value: Option<&Value>| value.is_none_or(|value| value == &Value::Bool(true));
    if open(before) && open(after) {
        None
    } else if open(before) && closed(after) {
        Some(Change::new(
            role.tightened(),
            ChangeKind::AdditionalPropertiesClosed,
            location,
            format!("{subject} no longer allows properties it does not list"),
        ))
    } else if closed(before) && open(after) {
        // A client that reads an output ignores members it does not know.
        Some(Change::compatible(
            ChangeKind::AdditionalPropertiesOpened,
            location,
            format!("{subject} now allows properties it does not list"),
        ))
    } else {
        Some(Change::breaking(
            ChangeKind::KeywordChanged,
            location,
            format!(
                "`additionalProperties` of {subject} {}; Toolscope cannot tell whether that \
                 accepts fewer values, so it counts as breaking",
                changed_words(before, after)
            ),
        ))
    }
}

fn compare_bound(
    keyword: &str,
    before: Option<&Value>,
    after: Option<&Value>,
    role: SchemaRole,
    subject: &str,
    location: String,
) -> Option<Change> {
    let number = |value: Option<&Value>| value.map(Value::as_f64);
    let lower = LOWER_BOUNDS.contains(&keyword);
    let tighter = match (number(before), number(after)) {
        (None, Some(Some(_))) => true,
        (Some(Some(_)), None) => false,
        (Some(Some(old)), Some(Some(new))) if lower => new > old,
        (Some(Some(old)), Some(Some(new))) => new < old,
        // Not a number on one side: nothing to weigh.
        _ => {
            return Some(Change::breaking(
                ChangeKind::KeywordChanged,
                location,
                format!(
                    "`{keyword}` of {subject} {}, and is not a number",
                    changed_words(before, after)
                ),
            ));
        }
    };
    let words = format!("`{keyword}` of {subject} {}", changed_words(before, after));
    Some(if tighter {
        Change::new(
            role.tightened(),
            ChangeKind::ConstraintTightened,
            location,
            format!("{words}: fewer values are allowed"),
        )
    } else {
        Change::new(
            role.loosened(),
            ChangeKind::ConstraintLoosened,
            location,
            format!("{words}: more values are allowed"),
        )
    })
}

// ---- equality ----------------------------------------------------------------------------

/// Whether two values are equal, at any depth, without recursion (objects regardless of key
/// order; numbers as serde_json compares them).
pub fn deep_equal(a: &Value, b: &Value) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        match (a, b) {
            (Value::Array(a), Value::Array(b)) => {
                if a.len() != b.len() {
                    return false;
                }
                stack.extend(a.iter().zip(b));
            }
            (Value::Object(a), Value::Object(b)) => {
                if a.len() != b.len() {
                    return false;
                }
                for (key, value) in a {
                    let Some(other) = b.get(key) else {
                        return false;
                    };
                    stack.push((value, other));
                }
            }
            (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => {
                return false;
            }
            (a, b) => {
                if a != b {
                    return false;
                }
            }
        }
    }
    true
}

#[cfg(test)]
#[path = "schema_changes_tests.rs"]
mod tests;
