use serde_json::{Value, json};

use super::*;

/// `(severity, kind, location)` of each change, in order.
fn found(old: &Value, new: &Value, role: SchemaRole) -> Vec<(Severity, ChangeKind, String)> {
    let base = match role {
        SchemaRole::Input => "/inputSchema",
        SchemaRole::Output => "/outputSchema",
    };
    compare_schemas(old, new, role, base)
        .changes
        .into_iter()
        .map(|change| (change.severity, change.kind, change.location))
        .collect()
}

fn one(
    severity: Severity,
    kind: ChangeKind,
    location: &str,
) -> Vec<(Severity, ChangeKind, String)> {
    vec![(severity, kind, location.to_owned())]
}

use ChangeKind as K;
use Severity::{Breaking, Compatible};

fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

#[test]
fn identical_schemas_and_equivalent_type_lists_have_no_changes() {
    let schema = object(json!({"a": {"type": "string"}}), &["a"]);
    assert!(found(&schema, &schema, SchemaRole::Input).is_empty());
    let old = object(json!({"n": {"type": ["number", "integer"]}}), &[]);
    let new = object(json!({"n": {"type": "number"}}), &[]);
    assert!(found(&old, &new, SchemaRole::Input).is_empty());
    assert!(found(&old, &new, SchemaRole::Output).is_empty());
}

#[test]
fn an_optional_argument_added_is_compatible_a_required_one_breaking() {
    let old = object(json!({}), &[]);
    let optional = object(json!({"x": {"type": "string"}}), &[]);
    let required = object(json!({"x": {"type": "string"}}), &["x"]);
    assert_eq!(
        found(&old, &optional, SchemaRole::Input),
        one(Compatible, K::PropertyAdded, "/inputSchema/properties/x")
    );
    assert_eq!(
        found(&old, &required, SchemaRole::Input),
        one(Breaking, K::PropertyAdded, "/inputSchema/properties/x")
    );
}

#[test]
fn an_argument_that_became_required_breaks_one_that_became_optional_does_not() {
    let optional = object(json!({"limit": {"type": "integer"}}), &[]);
    let required = object(json!({"limit": {"type": "integer"}}), &["limit"]);
    assert_eq!(
        found(&optional, &required, SchemaRole::Input),
        one(Breaking, K::RequiredAdded, "/inputSchema/properties/limit")
    );
    assert_eq!(
        found(&required, &optional, SchemaRole::Input),
        one(
            Compatible,
            K::RequiredRemoved,
            "/inputSchema/properties/limit"
        )
    );
}

#[test]
fn an_argument_removed_is_breaking() {
    let old = object(json!({"a": {}, "b": {}}), &[]);
    let new = object(json!({"a": {}}), &[]);
    assert_eq!(
        found(&old, &new, SchemaRole::Input),
        one(Breaking, K::PropertyRemoved, "/inputSchema/properties/b")
    );
}

#[test]
fn input_types_may_widen_but_not_narrow_or_change() {
    let of = |t: Value| object(json!({"n": {"type": t}}), &[]);
    let at = "/inputSchema/properties/n/type";
    assert_eq!(
        found(
            &of(json!("number")),
            &of(json!("integer")),
            SchemaRole::Input
        ),
        one(Breaking, K::TypeNarrowed, at)
    );
    assert_eq!(
        found(
            &of(json!("integer")),
            &of(json!("number")),
            SchemaRole::Input
        ),
        one(Compatible, K::TypeWidened, at)
    );
    assert_eq!(
        found(
            &of(json!("string")),
            &of(json!(["string", "null"])),
            SchemaRole::Input
        ),
        one(Compatible, K::TypeWidened, at)
    );
    assert_eq!(
        found(
            &of(json!("string")),
            &of(json!("integer")),
            SchemaRole::Input
        ),
        one(Breaking, K::TypeChanged, at)
    );
    // No `type` accepts anything: adding one narrows.
    let any = object(json!({"n": {}}), &[]);
    let change = &compare_schemas(&any, &of(json!("string")), SchemaRole::Input, "").changes[0];
    assert_eq!((change.severity, change.kind), (Breaking, K::TypeNarrowed));
    assert!(
        change.message.contains("narrowed from any type to string"),
        "{}",
        change.message
    );
}

#[test]
fn output_types_may_narrow_but_not_widen_or_change() {
    let of = |t: Value| object(json!({"n": {"type": t}}), &["n"]);
    let at = "/outputSchema/properties/n/type";
    assert_eq!(
        found(
            &of(json!("number")),
            &of(json!("integer")),
            SchemaRole::Output
        ),
        one(Compatible, K::TypeNarrowed, at)
    );
    assert_eq!(
        found(
            &of(json!("string")),
            &of(json!(["string", "null"])),
            SchemaRole::Output
        ),
        one(Breaking, K::TypeWidened, at)
    );
    assert_eq!(
        found(
            &of(json!("string")),
            &of(json!("integer")),
            SchemaRole::Output
        ),
        one(Breaking, K::TypeChanged, at)
    );
}

#[test]
fn output_properties_removed_or_made_optional_break_added_ones_do_not() {
    let old = object(
        json!({"a": {"type": "string"}, "b": {"type": "string"}}),
        &["a", "b"],
    );
    let removed = object(json!({"a": {"type": "string"}}), &["a"]);
    assert_eq!(
        found(&old, &removed, SchemaRole::Output),
        one(Breaking, K::PropertyRemoved, "/outputSchema/properties/b")
    );
    let optional = object(
        json!({"a": {"type": "string"}, "b": {"type": "string"}}),
        &["a"],
    );
    assert_eq!(
        found(&old, &optional, SchemaRole::Output),
        one(Breaking, K::RequiredRemoved, "/outputSchema/properties/b")
    );
    assert_eq!(
        found(&optional, &old, SchemaRole::Output),
        one(Compatible, K::RequiredAdded, "/outputSchema/properties/b")
    );
    let added = object(
        json!({"a": {"type": "string"}, "b": {"type": "string"}, "c": {}}),
        &["a", "b", "c"],
    );
    assert_eq!(
        found(&old, &added, SchemaRole::Output),
        one(Compatible, K::PropertyAdded, "/outputSchema/properties/c")
    );
}

#[test]
fn enum_values_removed_break_inputs_and_added_ones_break_outputs() {
    let of = |values: Value| object(json!({"mode": {"type": "string", "enum": values}}), &[]);
    let (few, many) = (of(json!(["a"])), of(json!(["a", "b"])));
    let at = "/inputSchema/properties/mode/enum";
    assert_eq!(
        found(&many, &few, SchemaRole::Input),
        one(Breaking, K::EnumValuesRemoved, at)
    );
    assert_eq!(
        found(&few, &many, SchemaRole::Input),
        one(Compatible, K::EnumValuesAdded, at)
    );
    let at = "/outputSchema/properties/mode/enum";
    assert_eq!(
        found(&few, &many, SchemaRole::Output),
        one(Breaking, K::EnumValuesAdded, at)
    );
    assert_eq!(
        found(&many, &few, SchemaRole::Output),
        one(Compatible, K::EnumValuesRemoved, at)
    );
    let free = object(json!({"mode": {"type": "string"}}), &[]);
    assert_eq!(
        found(&free, &few, SchemaRole::Input),
        one(Breaking, K::EnumAdded, "/inputSchema/properties/mode/enum")
    );
    assert_eq!(
        found(&few, &free, SchemaRole::Input),
        one(
            Compatible,
            K::EnumRemoved,
            "/inputSchema/properties/mode/enum"
        )
    );
    // Reordered values are the same list.
    assert!(found(&of(json!(["b", "a"])), &many, SchemaRole::Input).is_empty());
}

#[test]
fn nested_properties_and_array_items_are_compared_at_their_own_location() {
    let old = object(
        json!({"user": {"type": "object", "properties": {"age": {"type": "number"}}},
               "tags": {"type": "array", "items": {"type": "string"}}}),
        &[],
    );
    let new = object(
        json!({"user": {"type": "object", "properties": {"age": {"type": "integer"}}, "required": ["age"]},
               "tags": {"type": "array", "items": {"type": "integer"}}}),
        &[],
    );
    assert_eq!(
        found(&old, &new, SchemaRole::Input),
        vec![
            (
                Breaking,
                K::RequiredAdded,
                "/inputSchema/properties/user/properties/age".to_owned()
            ),
            (
                Breaking,
                K::TypeNarrowed,
                "/inputSchema/properties/user/properties/age/type".to_owned()
            ),
            (
                Breaking,
                K::TypeChanged,
                "/inputSchema/properties/tags/items/type".to_owned()
            ),
        ]
    );
    let comparison = compare_schemas(&old, &new, SchemaRole::Input, "/inputSchema");
    assert!(
        comparison.changes[0]
            .message
            .contains("argument `user.age` became required"),
        "{}",
        comparison.changes[0].message
    );
}

#[test]
fn local_refs_are_followed_and_a_recursive_schema_ends() {
    let of = |t: &str| {
        json!({"type": "object", "properties": {"point": {"$ref": "#/$defs/Point"}},
               "$defs": {"Point": {"type": "object", "properties": {"x": {"type": t}}}}})
    };
    assert_eq!(
        found(&of("number"), &of("integer"), SchemaRole::Input),
        one(
            Breaking,
            K::TypeNarrowed,
            "/inputSchema/properties/point/properties/x/type"
        )
    );
    // A tree whose children are trees: each pair of subschemas is compared once.
    let tree = |t: &str| {
        json!({"$ref": "#/$defs/Node", "$defs": {"Node": {"type": "object", "properties": {
            "value": {"type": t},
            "left": {"$ref": "#/$defs/Node"},
            "right": {"$ref": "#/$defs/Node"}}}}})
    };
    assert_eq!(
        found(&tree("number"), &tree("integer"), SchemaRole::Output),
        one(
            Compatible,
            K::TypeNarrowed,
            "/outputSchema/properties/value/type"
        )
    );
    // A ref that loops on itself is skipped, not followed forever.
    let looping = json!({"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/A"}}});
    assert!(found(&looping, &looping, SchemaRole::Input).is_empty());
}

#[test]
fn documentation_is_compatible_and_unweighed_keywords_count_as_breaking() {
    let old = object(
        json!({"q": {"type": "string", "description": "a", "pattern": "^a"}}),
        &[],
    );
    let new = object(
        json!({"q": {"type": "string", "description": "b", "pattern": "^b"}}),
        &[],
    );
    assert_eq!(
        found(&old, &new, SchemaRole::Input),
        vec![
            (
                Compatible,
                K::SchemaDocChanged,
                "/inputSchema/properties/q/description".to_owned()
            ),
            (
                Breaking,
                K::KeywordChanged,
                "/inputSchema/properties/q/pattern".to_owned()
            ),
        ]
    );
}

#[test]
fn bounds_and_closed_objects_are_weighed_by_direction() {
    let of = |min: u64| object(json!({"n": {"type": "integer", "minimum": min}}), &[]);
    let at = "/inputSchema/properties/n/minimum";
    assert_eq!(
        found(&of(1), &of(5), SchemaRole::Input),
        one(Breaking, K::ConstraintTightened, at)
    );
    assert_eq!(
        found(&of(5), &of(1), SchemaRole::Input),
        one(Compatible, K::ConstraintLoosened, at)
    );
    let of = |max: u64| object(json!({"s": {"type": "string", "maxLength": max}}), &[]);
    assert_eq!(
        found(&of(10), &of(5), SchemaRole::Output),
        one(
            Compatible,
            K::ConstraintTightened,
            "/outputSchema/properties/s/maxLength"
        )
    );
    let open = object(json!({}), &[]);
    let mut closed = open.clone();
    closed["additionalProperties"] = json!(false);
    assert_eq!(
        found(&open, &closed, SchemaRole::Input),
        one(
            Breaking,
            K::AdditionalPropertiesClosed,
            "/inputSchema/additionalProperties"
        )
    );
    assert_eq!(
        found(&closed, &open, SchemaRole::Input),
        one(
            Compatible,
            K::AdditionalPropertiesOpened,
            "/inputSchema/additionalProperties"
        )
    );
    let mut explicit = open.clone();
    explicit["additionalProperties"] = json!(true);
    assert!(found(&open, &explicit, SchemaRole::Input).is_empty());
}

/// `{"type":"object","properties":{"x": … {leaf} …}}`, `levels` deep, parsed without recursion.
fn nested(levels: usize, leaf: &str) -> Value {
    let text =
        "{\"type\":\"object\",\"properties\":{\"x\":".repeat(levels) + leaf + &"}}".repeat(levels);
    crate::deep_json::parse(&text).unwrap()
}

#[test]
fn a_schema_ten_thousand_levels_deep_is_compared_to_the_depth_limit_on_a_small_stack() {
    let worker = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let (old, new) = (
                nested(10_000, "{\"type\":\"string\"}"),
                nested(10_000, "{\"type\":\"number\"}"),
            );
            let same = compare_schemas(&old, &old, SchemaRole::Input, "/inputSchema");
            let differs = compare_schemas(&old, &new, SchemaRole::Input, "/inputSchema");
            let result = (same.changes.len(), differs.changes);
            crate::deep_json::drop_value(old);
            crate::deep_json::drop_value(new);
            result
        })
        .unwrap();
    let (same, differs) = worker.join().unwrap();
    assert_eq!(same, 0);
    assert_eq!(differs.len(), 1, "{differs:?}");
    assert_eq!(
        (differs[0].severity, differs[0].kind),
        (Breaking, K::KeywordChanged)
    );
    assert_eq!(
        differs[0].location,
        format!("/inputSchema{}", "/properties/x".repeat(MAX_COMPARED_DEPTH))
    );
    assert!(
        differs[0]
            .message
            .contains("nested deeper than Toolscope compares")
    );
}

#[test]
fn deep_equal_ignores_key_order_and_sees_any_difference() {
    assert!(deep_equal(
        &json!({"a": 1, "b": [1, {"c": null}]}),
        &json!({"b": [1, {"c": null}], "a": 1})
    ));
    assert!(!deep_equal(&json!({"a": [1, 2]}), &json!({"a": [1, 3]})));
    assert!(!deep_equal(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
    assert!(!deep_equal(&json!([1]), &json!({"0": 1})));
}
