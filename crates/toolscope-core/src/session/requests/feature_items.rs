//! The items of a server's lists (resources, resource templates, prompts) and a prompt's
//! messages, read leniently from what the server sent: a missing or mistyped field is left
//! empty, never a reason to drop the item. List items are read from the page's document as it
//! arrived, field by field (no `Value` tree of a page: 100,000 resources held 20× their JSON
//! when each page was a tree, cloned twice, freed among the items kept).

use serde_json::Value;

use crate::json_doc::JsonRef;

/// A string member of a list item, `None` when missing, empty or not a string.
fn field(item: JsonRef<'_>, key: &str) -> Option<String> {
    item.get(key)
        .and_then(JsonRef::as_str)
        .filter(|text| !text.is_empty())
        .map(std::borrow::Cow::into_owned)
}

/// One resource of `resources/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceItem {
    pub uri: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    pub size: Option<u64>,
    /// How long the listing stays valid (a 2026-07-28 server's caching hint).
    pub ttl_ms: Option<u64>,
    /// Who may share a cached copy (`public`, `private`), from a 2026-07-28 server.
    pub cache_scope: Option<String>,
}

impl ResourceItem {
    pub fn from_ref(item: JsonRef<'_>) -> Self {
        Self {
            uri: field(item, "uri").unwrap_or_default(),
            name: field(item, "name").unwrap_or_default(),
            title: field(item, "title"),
            description: field(item, "description"),
            mime_type: field(item, "mimeType"),
            size: item.get("size").and_then(JsonRef::as_u64),
            ttl_ms: item.get("ttlMs").and_then(JsonRef::as_u64),
            cache_scope: field(item, "cacheScope"),
        }
    }

    /// What a person calls it: its title, else its name, else its URI.
    pub fn display_name(&self) -> &str {
        display_name(self.title.as_deref(), &self.name, &self.uri)
    }

    /// Whether `needle` (lower case) is in its URI, name, title or description.
    pub fn matches(&self, needle: &str) -> bool {
        mentions(
            needle,
            &[&self.uri, &self.name],
            [&self.title, &self.description],
        )
    }
}

/// One template of `resources/templates/list`, with the variables of its URI template.
#[derive(Debug, Clone, PartialEq)]
pub struct TemplateItem {
    pub uri_template: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    /// The variable names in the URI template, in order (RFC 6570).
    pub variables: Vec<String>,
}

impl TemplateItem {
    pub fn from_ref(item: JsonRef<'_>) -> Self {
        let uri_template = field(item, "uriTemplate").unwrap_or_default();
        Self {
            variables: crate::uri_template::variables(&uri_template),
            uri_template,
            name: field(item, "name").unwrap_or_default(),
            title: field(item, "title"),
            description: field(item, "description"),
            mime_type: field(item, "mimeType"),
        }
    }

    pub fn display_name(&self) -> &str {
        display_name(self.title.as_deref(), &self.name, &self.uri_template)
    }

    pub fn matches(&self, needle: &str) -> bool {
        mentions(
            needle,
            &[&self.uri_template, &self.name],
            [&self.title, &self.description],
        )
    }
}

/// One prompt of `prompts/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptItem {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub arguments: Vec<PromptArgument>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PromptArgument {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub required: bool,
}

impl PromptItem {
    pub fn from_ref(item: JsonRef<'_>) -> Self {
        let arguments = item
            .get("arguments")
            .filter(|arguments| arguments.is_array())
            .map(|arguments| {
                arguments
                    .items()
                    .filter_map(|argument| {
                        Some(PromptArgument {
                            name: field(argument, "name")?,
                            title: field(argument, "title"),
                            description: field(argument, "description"),
                            required: argument
                                .get("required")
                                .and_then(JsonRef::as_bool)
                                .unwrap_or(false),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        Self {
            name: field(item, "name").unwrap_or_default(),
            title: field(item, "title"),
            description: field(item, "description"),
            arguments,
        }
    }

    pub fn display_name(&self) -> &str {
        display_name(self.title.as_deref(), &self.name, &self.name)
    }

    pub fn matches(&self, needle: &str) -> bool {
        mentions(needle, &[&self.name], [&self.title, &self.description])
    }
}

/// Whether `needle` (lower case) is in any of the texts (a filter's match).
fn mentions(needle: &str, texts: &[&String], more: [&Option<String>; 2]) -> bool {
    texts
        .iter()
        .map(|text| text.as_str())
        .chain(more.into_iter().filter_map(Option::as_deref))
        .any(|text| text.to_lowercase().contains(needle))
}

fn display_name<'a>(title: Option<&'a str>, name: &'a str, fallback: &'a str) -> &'a str {
    match title {
        Some(title) => title,
        None if !name.is_empty() => name,
        None => fallback,
    }
}

/// A `prompts/get` answer: the conversation a client would hand its model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptMessages {
    pub description: Option<String>,
    pub messages: Vec<PromptMessage>,
    /// What was wrong with the answer's shape.
    pub problems: Vec<String>,
}

/// One message: who says it, and its content blocks (one, by the specification; a list is
/// taken as it comes).
#[derive(Debug, Clone, PartialEq)]
pub struct PromptMessage {
    pub role: String,
    pub content: Vec<Value>,
}

impl PromptMessages {
    /// Reads a `prompts/get` result from the document it came in: a block of any depth is
    /// materialised without recursion.
    pub fn from_result(result: JsonRef<'_>) -> Self {
        let text_of = |item: JsonRef<'_>, key: &str| {
            item.get(key)
                .and_then(JsonRef::as_str)
                .filter(|text| !text.is_empty())
                .map(|text| text.into_owned())
        };
        let mut read = Self {
            description: text_of(result, "description"),
            ..Self::default()
        };
        let Some(messages) = result.get("messages").filter(|list| list.is_array()) else {
            read.problems
                .push("the answer has no `messages` list".to_owned());
            return read;
        };
        for (index, message) in messages.items().enumerate() {
            let role = text_of(message, "role").unwrap_or_else(|| {
                read.problems.push(format!("message {index} has no role"));
                "(no role)".to_owned()
            });
            if role != "user" && role != "assistant" && role != "(no role)" {
                read.problems.push(format!(
                    "message {index} has the role {role:?}: only \"user\" and \"assistant\" \
                     are defined"
                ));
            }
            let content = match message.get("content") {
                Some(blocks) if blocks.is_array() => {
                    blocks.items().map(JsonRef::to_value).collect()
                }
                Some(block) => vec![block.to_value()],
                None => {
                    read.problems
                        .push(format!("message {index} has no content"));
                    Vec::new()
                }
            };
            read.messages.push(PromptMessage { role, content });
        }
        read
    }
}

/// A read's or a prompt's result as the content blocks a model would read: each of a read's
/// contents as an embedded resource, a prompt's messages' blocks in order. Values of any depth
/// (a server's `_meta`) are copied without recursion: drop them with `deep_json::drop_value`
/// or hand them to `analysis::parse_blocks`, which does.
pub fn answer_blocks(result: JsonRef<'_>) -> Vec<Value> {
    if let Some(contents) = result.get("contents").filter(|list| list.is_array()) {
        return contents
            .items()
            .map(|content| {
                let mut block = serde_json::Map::new();
                block.insert("type".to_owned(), Value::from("resource"));
                block.insert("resource".to_owned(), content.to_value());
                Value::Object(block)
            })
            .collect();
    }
    PromptMessages::from_result(result)
        .messages
        .into_iter()
        .flat_map(|message| message.content)
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    use crate::json_doc::JsonDoc;

    #[test]
    fn items_are_read_leniently_and_named_as_a_person_would() {
        let doc = |value: Value| JsonDoc::from_value(&value);
        // As sent: an escaped character in a field is read as the character.
        let sent = JsonDoc::parse(
            r#"{"uri": "demo://a", "name": "a", "title": "The A", "size": "big", "ttlMs": 5000,
                "description": "caf\u00e9 menu"}"#
                .to_owned(),
        )
        .unwrap();
        let resource = ResourceItem::from_ref(sent.root());
        assert_eq!(resource.description.as_deref(), Some("café menu"));
        assert_eq!(resource.display_name(), "The A");
        assert_eq!((resource.size, resource.ttl_ms), (None, Some(5000)));
        assert!(resource.matches("the a"));
        let template =
            TemplateItem::from_ref(doc(json!({"uriTemplate": "demo://r/{id}{?q}"})).root());
        assert_eq!(template.variables, ["id", "q"]);
        assert_eq!(template.display_name(), "demo://r/{id}{?q}");
        let prompt = PromptItem::from_ref(
            doc(json!({"name": "p", "arguments": [
                {"name": "city", "required": true}, {"description": "no name"}, {"name": "state"}
            ]}))
            .root(),
        );
        let names: Vec<_> = prompt
            .arguments
            .iter()
            .map(|a| (&*a.name, a.required))
            .collect();
        assert_eq!(names, [("city", true), ("state", false)]);
    }

    #[test]
    fn a_prompt_answer_is_a_conversation_with_its_problems_said() {
        let answer = JsonDoc::from_value(&json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "hi"}},
            {"role": "system", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
            {"content": {"type": "text", "text": "c"}}
        ]}));
        let read = PromptMessages::from_result(answer.root());
        assert_eq!(read.messages.len(), 3);
        assert_eq!(read.messages[1].content.len(), 2);
        assert_eq!(read.problems.len(), 2, "{:?}", read.problems);
        let empty = JsonDoc::from_value(&json!({}));
        assert!(PromptMessages::from_result(empty.root()).problems[0].contains("messages"));
    }
}
