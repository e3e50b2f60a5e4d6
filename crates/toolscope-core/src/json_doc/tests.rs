use serde_json::{Value, json};

use super::{DocJson, JsonDoc, JsonKind};

fn doc(text: &str) -> JsonDoc {
    JsonDoc::parse(text.to_owned()).unwrap_or_else(|error| panic!("{text}: {error}"))
}

/// Accepts and reads exactly like serde_json (with preserve_order).
fn same_as_serde(text: &str) {
    let serde: Result<Value, _> = serde_json::from_str(text);
    let ours = JsonDoc::parse(text.to_owned());
    match (serde, ours) {
        (Ok(expected), Ok(ours)) => assert_eq!(ours.root().to_value(), expected, "{text}"),
        (Err(_), Err(_)) => {}
        (Ok(_), Err(error)) => panic!("{text:?}: serde accepts it, we refuse it: {error}"),
        (Err(error), Ok(_)) => panic!("{text:?}: serde refuses it ({error}), we accept it"),
    }
}

#[test]
fn accepts_and_refuses_what_serde_json_does() {
    for text in [
        "null",
        "true",
        "false",
        "0",
        "-0",
        "12",
        "-12",
        "1.5",
        "1e3",
        "1E+3",
        "2.5e-3",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "123456789012345678901234567890",
        "1e308",
        "1e309",
        "-1e400",
        "0.000001",
        r#""""#,
        r#""plain""#,
        r#""tab\there""#,
        r#""quote \" and \\ and \/""#,
        r#""\u00e9\u0041""#,
        r#""\ud83d\ude00""#,
        r#""\ud83d""#,
        r#""\ude00""#,
        r#""\ud83dx""#,
        r#""\u12""#,
        r#""\x""#,
        "\"raw\ttab\"",
        "\"é ☃ 😀\"",
        "[]",
        "{}",
        "[1,2,3]",
        r#"{"a":1,"b":[true,null,{"c":"d"}]}"#,
        r#"{"a":1,"a":2}"#,
        r#"{"b":1,"a":2}"#,
        " [ 1 , 2 ] ",
        "[1,]",
        "[,1]",
        "{\"a\":1,}",
        "{\"a\" 1}",
        "{1:2}",
        "[1 2]",
        "01",
        "1.",
        ".5",
        "-",
        "+1",
        "1e",
        "tru",
        "nul",
        "[",
        "{",
        "\"open",
        "",
        "   ",
        "[1]]",
        "{}x",
        r#"{"k\"ey":"v","é":1}"#,
        "[1.0, 100, -0.0]",
        "[[[[[]]]]]",
    ] {
        same_as_serde(text);
    }
}

#[test]
fn a_leading_byte_order_mark_is_allowed() {
    // RFC 8259 lets a parser ignore it (rmcp skips it too); serde_json alone refuses it.
    assert_eq!(doc("\u{feff}[1]").root().to_value(), json!([1]));
}

#[test]
fn reads_values_in_place() {
    let d = doc(r#"{"name":"Ada","age":36,"tags":["a","b\nc"],"nested":{"x":null},"ok":true}"#);
    let root = d.root();
    assert_eq!(root.kind(), JsonKind::Object);
    assert_eq!(root.len(), 5);
    assert_eq!(root.get("name").and_then(|v| v.as_plain_str()), Some("Ada"));
    assert_eq!(root.get("age").and_then(|v| v.as_u64()), Some(36));
    let tags = root.get("tags").unwrap();
    assert_eq!(tags.len(), 2);
    assert_eq!(tags.at_index(1).unwrap().as_str().unwrap(), "b\nc");
    assert_eq!(tags.at_index(1).unwrap().as_plain_str(), None);
    assert_eq!(tags.at_index(1).unwrap().raw(), r#""b\nc""#);
    assert!(root.pointer("/nested/x").unwrap().is_null());
    assert_eq!(root.pointer("/tags/0").unwrap().as_str().unwrap(), "a");
    assert!(root.pointer("/tags/2").is_none());
    assert_eq!(root.get("ok").unwrap().as_bool(), Some(true));
    let keys: Vec<String> = root.entries().map(|(k, _)| k.into_owned()).collect();
    assert_eq!(keys, ["name", "age", "tags", "nested", "ok"]);
    assert_eq!(root.depth(), 2);
    assert_eq!(root.node_count(), 9);
    let again = d.by_id(tags.id()).unwrap();
    assert_eq!(again, tags);
}

#[test]
fn a_repeated_key_reads_as_its_last_value_in_its_first_place_like_serde_json() {
    let d = doc(r#"{"a":1,"b":2,"a":3}"#);
    let root = d.root();
    assert!(root.has_repeated_key());
    assert_eq!(root.get("a").unwrap().as_u64(), Some(3));
    assert_eq!(root.len(), 2);
    let read: Vec<(String, u64)> = root
        .entries()
        .map(|(k, v)| (k.into_owned(), v.as_u64().unwrap()))
        .collect();
    assert_eq!(read, [("a".to_owned(), 3), ("b".to_owned(), 2)]);
    assert_eq!(root.members_as_sent().count(), 3);
    assert_eq!(
        root.to_value(),
        serde_json::from_str::<Value>(d.text()).unwrap()
    );
    // Written differently, the same key.
    let d = doc(r#"{"a":1,"\u0061":2}"#);
    assert!(d.root().has_repeated_key());
    assert_eq!(d.root().len(), 1);
    assert_eq!(d.root().get("a").unwrap().as_u64(), Some(2));
    // Many keys: found through a set.
    let many: Vec<String> = (0..40).map(|n| format!(r#""k{n}":{n}"#)).collect();
    let d = doc(&format!("{{{},\"k7\":0}}", many.join(",")));
    assert!(d.root().has_repeated_key());
    assert_eq!(d.root().len(), 40);
    let d = doc(&format!("{{{}}}", many.join(",")));
    assert!(!d.root().has_repeated_key());
}

#[test]
fn escaped_keys_are_found() {
    let d = doc(r#"{"a\/b":1,"\u00e9":2}"#);
    assert_eq!(d.root().get("a/b").unwrap().as_u64(), Some(1));
    assert_eq!(d.root().get("é").unwrap().as_u64(), Some(2));
    assert_eq!(d.root().pointer("/a~1b").unwrap().as_u64(), Some(1));
}

#[test]
fn any_depth_parses_walks_and_converts_without_recursion() {
    // A small stack: nothing here may recurse per level.
    std::thread::Builder::new()
        .stack_size(128 * 1024)
        .spawn(|| {
            let levels = 200_000;
            let text = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
            let d = doc(&text);
            assert_eq!(d.root().depth(), levels);
            assert_eq!(d.root().node_count(), levels + 1);
            let value = d.root().to_value();
            crate::deep_json::drop_value(value);
            let objects = format!("{}1{}", r#"{"a":"#.repeat(levels), "}".repeat(levels));
            let d = doc(&objects);
            assert_eq!(d.root().depth(), levels);
            assert!(d.root().pointer("/a/a/a").is_some());
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn from_value_round_trips() {
    let value = json!({"z": [1, 2.5, "x", null, {"y": false}], "a": {}});
    let d = JsonDoc::from_value(&value);
    assert_eq!(d.root().to_value(), value);
}

#[test]
fn a_long_string_with_many_escapes_is_one_entry() {
    let inner = r#"{\"id\":1,\"label\":\"x\"}"#.repeat(10_000);
    let text = format!(r#"{{"text":"{inner}"}}"#);
    let d = doc(&text);
    assert_eq!(d.entry_count(), 3);
    let read = d.root().get("text").unwrap().as_str().unwrap();
    assert_eq!(read.len(), inner.len() - 6 * 10_000);
}

#[test]
fn validates_in_place_like_the_serde_representation() {
    let schema = json!({
        "type": "object",
        "properties": {
            "count": {"type": "integer", "minimum": 0},
            "items": {"type": "array", "items": {"$ref": "#/$defs/item"}, "maxItems": 3},
            "name": {"type": "string", "minLength": 2, "pattern": "^[a-z]+$"}
        },
        "required": ["count", "items"],
        "additionalProperties": false,
        "propertyNames": {"maxLength": 5},
        "$defs": {"item": {
            "type": "object",
            "properties": {"id": {"type": "integer"}, "tags": {"uniqueItems": true}},
            "required": ["id"]
        }}
    });
    let serde_validator = jsonschema::options().build(&schema).unwrap();
    let doc_validator = jsonschema::options_for::<DocJson>().build(&schema).unwrap();
    for instance in [
        json!({"count": 1, "items": []}),
        json!({"count": -1, "items": [{"id": 1.5}]}),
        json!({"count": 1.0, "items": [{"id": 1}, {"tags": [1, 1]}, {}, {}]}),
        json!({"count": 1, "items": [], "name": "é"}),
        json!({"count": 1, "items": [], "toolongname": 1}),
        json!({"count": 1, "items": [], "name": 1}),
        json!({"items": "no"}),
        json!([1, 2]),
        json!("text"),
    ] {
        let d = JsonDoc::from_value(&instance);
        let expected: Vec<(String, String)> = serde_validator
            .iter_errors(&instance)
            .map(|e| (e.instance_path().to_string(), e.to_string()))
            .collect();
        let got: Vec<(String, String)> = doc_validator
            .iter_errors(d.root())
            .map(|e| (e.instance_path().to_string(), e.to_string()))
            .collect();
        assert_eq!(got, expected, "{instance}");
    }
}

#[test]
fn a_string_prefix_reads_only_what_it_needs() {
    let d = doc(r#"["plain text", "a\nb\u00e9\ud83d\ude00xyz", "short"]"#);
    let items: Vec<_> = d.root().items().collect();
    assert_eq!(items[0].str_prefix(5), Some(("plain".to_owned(), true)));
    assert_eq!(items[1].str_prefix(4), Some(("a\nbé".to_owned(), true)));
    assert_eq!(items[1].str_prefix(5), Some(("a\nbé😀".to_owned(), true)));
    assert_eq!(
        items[1].str_prefix(99),
        Some(("a\nbé😀xyz".to_owned(), false))
    );
    assert_eq!(items[2].str_prefix(99), Some(("short".to_owned(), false)));
    let long = format!(r#""{}""#, r#"\"x"#.repeat(1_000_000));
    let d = doc(&long);
    let (head, more) = d.root().str_prefix(3).unwrap();
    assert_eq!((head.as_str(), more), ("\"x\"", true));
}

#[test]
fn serializes_like_the_value_it_holds() {
    let value = json!({"a": [1, -2, 2.5, "x\ny", null, true], "é": {"b": {}}});
    let d = JsonDoc::from_value(&value);
    assert_eq!(serde_json::to_string(&d.root()).unwrap(), value.to_string());
    assert_eq!(
        serde_json::to_string_pretty(&d.root()).unwrap(),
        serde_json::to_string_pretty(&value).unwrap()
    );
}

/// Random edits of valid JSON (a small xorshift, so a failure replays): whatever serde_json
/// accepts reads the same here, and whatever it refuses is refused.
#[test]
fn mutated_texts_are_accepted_and_read_exactly_like_serde_json() {
    let corpus = [
        r#"{"a":[1,-2.5e3,true,null,"x\"y\\u00e9"],"b":{"c":{}},"d":[]}"#,
        r#"[0,1e-2,"\ud83d\ude00",{"k":"v","k2":[false]}]"#,
        r#"{"content":[{"type":"text","text":"{\"result\": 3}"}],"structuredContent":{"result":3}}"#,
    ];
    let alphabet: &[u8] = br#"{}[]":,\\u0123456789.-+eEtrufalsn abcdef/"#;
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..20_000 {
        let mut bytes = corpus[round % corpus.len()].as_bytes().to_vec();
        for _ in 0..=(next() % 3) {
            let at = (next() as usize) % (bytes.len() + 1);
            let byte = alphabet[(next() as usize) % alphabet.len()];
            match next() % 3 {
                0 if at < bytes.len() => bytes[at] = byte,
                1 if at < bytes.len() => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, byte),
            }
        }
        // The alphabet is ASCII, but a removal may split a multi-byte character.
        if let Ok(text) = String::from_utf8(bytes) {
            same_as_serde(&text);
        }
    }
}

#[test]
fn a_repeated_key_validates_as_serde_json_reads_it() {
    let schema = json!({"properties": {"n": {"type": "integer"}}, "maxProperties": 1});
    let validator = jsonschema::options_for::<DocJson>().build(&schema).unwrap();
    let d = doc(r#"{"n":"x","n":1}"#);
    assert!(validator.is_valid(d.root()));
    let d = doc(r#"{"n":1,"n":"x"}"#);
    assert_eq!(validator.iter_errors(d.root()).count(), 1);
}

#[test]
fn a_deep_document_serializes_through_deep_json_on_a_worker_stack() {
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let levels = 100_000;
            let text = format!(r#"{}"leaf"{}"#, "[".repeat(levels), "]".repeat(levels));
            let d = doc(&text);
            let mut out = Vec::new();
            crate::deep_json::serialize_to_writer(&d.root(), &mut out, false).unwrap();
            assert_eq!(out, text.as_bytes());
        })
        .unwrap()
        .join()
        .unwrap();
}
