//! Where a `[table.key]`'s body sits in a TOML text (Codex's `config.toml`): from the line
//! after its header to the next header, checked by parsing it alone. Its sub-tables
//! (`[mcp_servers.x.env]`) have headers of their own and are left where they are.

use std::ops::Range;

/// The byte range of the body of the table at `path` (its key-values, up to the next header).
/// `None` when the file has no such `[header]` (a dotted or inline table is not found), or
/// when the lines found do not read as that table.
pub fn table_body_span(text: &str, path: &[&str]) -> Option<Range<usize>> {
    let mut offset = 0;
    let mut body_start = None;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') && !trimmed.starts_with("[[") {
            if let Some(start) = body_start {
                return checked(text, path, start..offset);
            }
            if header_path(trimmed).is_some_and(|keys| keys == path) {
                body_start = Some(offset + line.len());
            }
        }
        offset += line.len();
    }
    body_start.and_then(|start| checked(text, path, start..text.len()))
}

/// The keys a `[a."b c"]` header names.
fn header_path(line: &str) -> Option<Vec<String>> {
    let end = line.find(']')?;
    let header: toml::Table = format!("{}\n", &line[..=end]).parse().ok()?;
    let mut keys = Vec::new();
    let mut table = &header;
    loop {
        let mut entries = table.iter();
        let (key, value) = entries.next()?;
        if entries.next().is_some() {
            return None;
        }
        keys.push(key.clone());
        match value.as_table() {
            Some(inner) if !inner.is_empty() => table = inner,
            Some(_) => return Some(keys),
            None => return None,
        }
    }
}

/// The span, when its text reads as the table's own key-values in the whole file.
fn checked(text: &str, path: &[&str], span: Range<usize>) -> Option<Range<usize>> {
    let body: toml::Table = text[span.clone()].parse().ok()?;
    let whole: toml::Table = text.parse().ok()?;
    let mut table = &whole;
    for key in path {
        table = table.get(*key)?.as_table()?;
    }
    let own_values = body
        .iter()
        .all(|(key, value)| table.get(key) == Some(value));
    own_values.then_some(span)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tables_body_stops_at_the_next_header_and_keeps_its_sub_tables_out() {
        let text = "model = \"o3\"\n\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\n  \"-y\",\n  \"docs\",\n]\n\n[mcp_servers.docs.env]\nKEY = \"v\"\n\n[mcp_servers.\"other one\"]\nurl = \"https://x\"\n";
        let span = table_body_span(text, &["mcp_servers", "docs"]).unwrap();
        assert_eq!(
            &text[span],
            "command = \"npx\"\nargs = [\n  \"-y\",\n  \"docs\",\n]\n\n"
        );
        let span = table_body_span(text, &["mcp_servers", "other one"]).unwrap();
        assert_eq!(&text[span], "url = \"https://x\"\n");
        assert_eq!(table_body_span(text, &["mcp_servers", "none"]), None);
        assert_eq!(
            table_body_span(
                "mcp_servers.docs.command = \"x\"\n",
                &["mcp_servers", "docs"]
            ),
            None,
            "a dotted key is not a [header]"
        );
    }
}
