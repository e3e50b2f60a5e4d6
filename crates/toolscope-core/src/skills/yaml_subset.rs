//! The YAML a `SKILL.md` frontmatter is written in, read into JSON values: block mappings and
//! sequences by indentation, plain, single- and double-quoted scalars (over several lines too),
//! literal and folded block scalars (`|`, `>`, with `-`/`+`), flow lists and mappings, comments,
//! and scalars typed by YAML 1.2's core schema (null, booleans, integers, floats). What a
//! frontmatter has no use for (anchors, aliases, tags, complex keys, several documents) is
//! refused with its line, never guessed: an unread frontmatter cannot be compared, so the skill
//! is not loaded. No YAML crate is in the build, and this subset is what skills are written in.

use serde_json::{Map, Number, Value};

/// Why the frontmatter could not be read: the line (1-based, within the frontmatter) and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct YamlError {
    pub line: usize,
    pub problem: String,
}

/// The frontmatter's text as a JSON object (an empty text is an empty object).
pub fn parse_mapping(text: &str) -> Result<Map<String, Value>, YamlError> {
    let mut parser = Parser {
        lines: text.lines().map(str::to_owned).collect(),
        at: 0,
    };
    let Some((_, indent)) = parser.next_significant() else {
        return Ok(Map::new());
    };
    let value = parser.block(indent)?;
    if let Some((line, _)) = parser.next_significant() {
        return Err(parser.error_at(line, "this line is indented less than the first key"));
    }
    match value {
        Value::Object(map) => Ok(map),
        other => Err(YamlError {
            line: 1,
            problem: format!(
                "the frontmatter is {}, not a mapping of fields",
                super::listing::kind(&other)
            ),
        }),
    }
}

struct Parser {
    lines: Vec<String>,
    at: usize,
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let text = line.trim();
    text.is_empty() || text.starts_with('#')
}

fn is_sequence_item(text: &str) -> bool {
    text == "-" || text.starts_with("- ")
}

impl Parser {
    fn error_at(&self, line: usize, problem: &str) -> YamlError {
        YamlError {
            line: line + 1,
            problem: problem.to_owned(),
        }
    }

    /// The next line that holds something (its index and indentation), skipping blank lines
    /// and comments; a tab in the indentation is refused, as YAML does.
    fn next_significant(&mut self) -> Option<(usize, usize)> {
        while self.at < self.lines.len() && is_blank_or_comment(&self.lines[self.at]) {
            self.at += 1;
        }
        let line = self.lines.get(self.at)?;
        Some((self.at, indent_of(line)))
    }

    /// A mapping or a sequence whose lines are indented `indent`.
    fn block(&mut self, indent: usize) -> Result<Value, YamlError> {
        let Some((line, _)) = self.next_significant() else {
            return Ok(Value::Null);
        };
        let text = self.lines[line].trim_start();
        if text.starts_with('\t') {
            return Err(self.error_at(line, "a tab indents this line (YAML indents with spaces)"));
        }
        if is_sequence_item(text) {
            self.sequence(indent)
        } else {
            self.mapping(indent)
        }
    }

    fn mapping(&mut self, indent: usize) -> Result<Value, YamlError> {
        let mut map = Map::new();
        while let Some((line, at_indent)) = self.next_significant() {
            if at_indent < indent {
                break;
            }
            if at_indent > indent {
                return Err(self.error_at(line, "this line is indented more than the keys above"));
            }
            let text = self.lines[line][indent..].to_owned();
            if is_sequence_item(&text) {
                return Err(self.error_at(line, "a list item where a key was expected"));
            }
            if text == "---" || text == "..." {
                return Err(self.error_at(line, "a second YAML document is not supported"));
            }
            let (key, rest) =
                split_key(&text).map_err(|problem| self.error_at(line, &problem.0))?;
            if map.contains_key(&key) {
                return Err(self.error_at(line, &format!("the key {key:?} is given twice")));
            }
            self.at = line + 1;
            let value = self.value_after_key(rest, line, indent)?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }

    fn sequence(&mut self, indent: usize) -> Result<Value, YamlError> {
        let mut items = Vec::new();
        while let Some((line, at_indent)) = self.next_significant() {
            let text = self.lines[line][at_indent..].to_owned();
            if at_indent != indent || !is_sequence_item(&text) {
                if at_indent > indent {
                    return Err(self.error_at(line, "this line is indented more than the list"));
                }
                break;
            }
            let rest = text[1..].trim_start();
            let item_indent = indent + (text.len() - rest.len());
            if rest.is_empty() || rest.starts_with('#') {
                self.at = line + 1;
                items.push(self.nested(indent)?);
            } else if split_key(rest).is_ok() && !rest.starts_with(['"', '\'', '[', '{']) {
                // `- key: value`: the item is a mapping whose keys line up after the dash.
                self.lines[line].replace_range(indent..indent + 1, " ");
                items.push(self.mapping(item_indent)?);
            } else {
                self.at = line + 1;
                items.push(self.inline_value(rest, line, indent)?);
            }
        }
        Ok(Value::Array(items))
    }

    /// What follows `key:` on its line (`rest`), with the lines it continues on.
    fn value_after_key(
        &mut self,
        rest: &str,
        line: usize,
        indent: usize,
    ) -> Result<Value, YamlError> {
        if rest.is_empty() || rest.starts_with('#') {
            return self.nested(indent);
        }
        self.inline_value(rest, line, indent)
    }

    /// A block under a key or a dash: more indented, or (a list) at the key's own indentation.
    fn nested(&mut self, indent: usize) -> Result<Value, YamlError> {
        match self.next_significant() {
            Some((next, next_indent)) if next_indent > indent => {
                self.at = next;
                self.block(next_indent)
            }
            Some((next, next_indent))
                if next_indent == indent && is_sequence_item(&self.lines[next][next_indent..]) =>
            {
                self.sequence(indent)
            }
            _ => Ok(Value::Null),
        }
    }

    /// A value that starts on the key's (or dash's) line.
    fn inline_value(&mut self, rest: &str, line: usize, indent: usize) -> Result<Value, YamlError> {
        match rest.chars().next() {
            Some('|' | '>') => self.block_scalar(rest, line, indent),
            Some('"' | '\'') => {
                let mut text = rest.to_owned();
                // A quoted scalar may go on over the lines below until its closing quote.
                loop {
                    match quoted(&text) {
                        Ok((value, after)) => {
                            let after = after.trim();
                            if !after.is_empty() && !after.starts_with('#') {
                                return Err(self.error_at(
                                    line,
                                    &format!("text after the closing quote: {after:?}"),
                                ));
                            }
                            return Ok(Value::String(value));
                        }
                        Err(Unclosed) if self.at < self.lines.len() => {
                            let next = self.lines[self.at].trim();
                            text.push(if next.is_empty() { '\n' } else { ' ' });
                            text.push_str(next);
                            self.at += 1;
                        }
                        Err(Unclosed) => {
                            return Err(self.error_at(line, "a quoted scalar is never closed"));
                        }
                    }
                }
            }
            Some('[' | '{') => {
                let mut flow = FlowReader {
                    chars: rest.chars().collect(),
                    at: 0,
                };
                let value = flow
                    .value()
                    .map_err(|problem| self.error_at(line, &problem.0))?;
                let after: String = flow.chars[flow.at..].iter().collect();
                let after = after.trim();
                if !after.is_empty() && !after.starts_with('#') {
                    return Err(
                        self.error_at(line, &format!("text after the flow value: {after:?}"))
                    );
                }
                Ok(value)
            }
            Some('&' | '*' | '!') => Err(self.error_at(
                line,
                "anchors, aliases and tags are not supported in a skill's frontmatter",
            )),
            _ => {
                // A plain scalar, folded with the more indented lines that continue it.
                let mut text = strip_comment(rest).trim_end().to_owned();
                while let Some(next) = self.lines.get(self.at) {
                    if is_blank_or_comment(next) || indent_of(next) <= indent {
                        break;
                    }
                    // YAML reads `a: 1` then an indented `b: 2` as an error, not as text.
                    if split_key(next.trim()).is_ok() {
                        return Err(self
                            .error_at(self.at, "this line is indented more than the keys above"));
                    }
                    text.push(' ');
                    text.push_str(strip_comment(next.trim()).trim_end());
                    self.at += 1;
                }
                Ok(plain_scalar(&text))
            }
        }
    }

    /// `|` (literal) or `>` (folded), with an optional chomping indicator (`-` strips the
    /// final line breaks, `+` keeps them all) and an optional indentation digit.
    fn block_scalar(
        &mut self,
        header: &str,
        line: usize,
        indent: usize,
    ) -> Result<Value, YamlError> {
        let header = strip_comment(header).trim_end();
        let folded = header.starts_with('>');
        let mut chomp = Chomp::Clip;
        let mut explicit = None;
        for indicator in header[1..].chars() {
            match indicator {
                '-' => chomp = Chomp::Strip,
                '+' => chomp = Chomp::Keep,
                digit @ '1'..='9' => explicit = digit.to_digit(10).map(|d| indent + d as usize),
                other => {
                    return Err(
                        self.error_at(line, &format!("{other:?} in a block scalar's header"))
                    );
                }
            }
        }
        let mut body: Vec<&str> = Vec::new();
        let mut content_indent = explicit;
        let mut end = self.at;
        while let Some(next) = self.lines.get(end) {
            if next.trim().is_empty() {
                body.push("");
                end += 1;
                continue;
            }
            let next_indent = indent_of(next);
            let wanted = *content_indent.get_or_insert(next_indent);
            if next_indent <= indent || next_indent < wanted {
                break;
            }
            body.push(&next[wanted..]);
            end += 1;
        }
        // Blank lines after the last content line belong to what follows, unless kept.
        let content_lines = body
            .iter()
            .rposition(|text| !text.is_empty())
            .map_or(0, |at| at + 1);
        let trailing_blank = body.len() - content_lines;
        self.at = end - trailing_blank;
        let mut text = String::new();
        for (index, piece) in body[..content_lines].iter().enumerate() {
            if index > 0 {
                let previous = body[index - 1];
                let fold = folded
                    && !piece.is_empty()
                    && !previous.is_empty()
                    && !piece.starts_with(' ')
                    && !previous.starts_with(' ');
                text.push(if fold { ' ' } else { '\n' });
            }
            text.push_str(piece);
        }
        if folded {
            // A folded scalar's blank line is the line break itself, not one more.
            text = fold_blank_lines(&text);
        }
        match chomp {
            Chomp::Clip if content_lines > 0 => text.push('\n'),
            Chomp::Keep => {
                if content_lines > 0 {
                    text.push('\n');
                }
                text.extend(std::iter::repeat_n('\n', trailing_blank));
            }
            // Strip keeps no final line break; an empty clipped scalar has none.
            Chomp::Strip | Chomp::Clip => {}
        }
        Ok(Value::String(text))
    }
}

#[derive(Clone, Copy)]
enum Chomp {
    Strip,
    Clip,
    Keep,
}

/// In folded text, `a\n\nb` (a blank line between two lines) means one line break.
fn fold_blank_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' && chars.peek() == Some(&'\n') {
            chars.next();
            out.push('\n');
            while chars.peek() == Some(&'\n') {
                out.push('\n');
                chars.next();
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// A key and what follows its colon; the key plain or quoted.
fn split_key(text: &str) -> Result<(String, &str), LineProblem> {
    if text.starts_with('?') {
        return Err(LineProblem(
            "complex keys (`? `) are not supported".to_owned(),
        ));
    }
    if text.starts_with(['"', '\'']) {
        let (key, after) = quoted(text)
            .map_err(|Unclosed| LineProblem("a quoted key is never closed".to_owned()))?;
        let after = after.trim_start();
        return match after.strip_prefix(':') {
            Some(rest) if rest.is_empty() || rest.starts_with(' ') => Ok((key, rest.trim())),
            _ => Err(LineProblem(format!("no colon after the key {key:?}"))),
        };
    }
    let colon = text
        .match_indices(':')
        .map(|(at, _)| at)
        .find(|&at| text[at + 1..].is_empty() || text[at + 1..].starts_with(' '))
        .ok_or_else(|| {
            LineProblem(format!(
                "{:?} is not `key: value`",
                super::frontmatter::clip(text)
            ))
        })?;
    let key = text[..colon].trim_end();
    if key.is_empty() {
        return Err(LineProblem("a key is empty".to_owned()));
    }
    Ok((key.to_owned(), text[colon + 1..].trim()))
}

/// Text up to a comment (` #`); a `#` inside a word is text.
fn strip_comment(text: &str) -> &str {
    match text.find(" #") {
        Some(at) => &text[..at],
        None if text.starts_with('#') => "",
        None => text,
    }
}

struct Unclosed;

/// What is wrong on a line, before the parser adds the line's number ([`YamlError`]).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct LineProblem(String);

/// A quoted scalar at the start of `text` and what follows it: single quotes double `''`,
/// double quotes take backslash escapes.
fn quoted(text: &str) -> Result<(String, &str), Unclosed> {
    let quote = text.chars().next().ok_or(Unclosed)?;
    let mut out = String::new();
    let mut chars = text.char_indices().skip(1).peekable();
    while let Some((at, c)) = chars.next() {
        if c == quote {
            if quote == '\'' && chars.peek().map(|&(_, next)| next) == Some('\'') {
                chars.next();
                out.push('\'');
                continue;
            }
            return Ok((out, &text[at + 1..]));
        }
        if quote == '"' && c == '\\' {
            let Some((_, escaped)) = chars.next() else {
                return Err(Unclosed);
            };
            match escaped {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' => out.push('\0'),
                '"' | '\\' | '/' => out.push(escaped),
                ' ' => out.push(' '),
                'u' | 'x' | 'U' => {
                    let width = match escaped {
                        'x' => 2,
                        'u' => 4,
                        _ => 8,
                    };
                    let hex: String = (0..width)
                        .filter_map(|_| chars.next().map(|(_, h)| h))
                        .collect();
                    match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        Some(decoded) => out.push(decoded),
                        None => out.push(char::REPLACEMENT_CHARACTER),
                    }
                }
                other => {
                    out.push('\\');
                    out.push(other);
                }
            }
            continue;
        }
        out.push(c);
    }
    Err(Unclosed)
}

/// A plain scalar typed by YAML 1.2's core schema.
fn plain_scalar(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "true" | "True" | "TRUE" => return Value::Bool(true),
        "false" | "False" | "FALSE" => return Value::Bool(false),
        _ => {}
    }
    let integer = if let Some(hex) = text.strip_prefix("0x") {
        i64::from_str_radix(hex, 16).ok()
    } else if let Some(octal) = text.strip_prefix("0o") {
        i64::from_str_radix(octal, 8).ok()
    } else if text
        .trim_start_matches(['-', '+'])
        .bytes()
        .all(|byte| byte.is_ascii_digit())
        && text.bytes().any(|byte| byte.is_ascii_digit())
    {
        text.parse::<i64>().ok()
    } else {
        None
    };
    if let Some(integer) = integer {
        return Value::Number(integer.into());
    }
    let looks_float = text
        .bytes()
        .all(|byte| byte.is_ascii_digit() || matches!(byte, b'.' | b'e' | b'E' | b'-' | b'+'))
        && text.bytes().any(|byte| byte.is_ascii_digit())
        && text.matches('.').count() <= 1;
    if looks_float && let Some(number) = text.parse::<f64>().ok().and_then(Number::from_f64) {
        return Value::Number(number);
    }
    Value::String(text.to_owned())
}

/// A flow value (`[a, b]`, `{k: v}`) on one line.
struct FlowReader {
    chars: Vec<char>,
    at: usize,
}

impl FlowReader {
    fn skip_spaces(&mut self) {
        while self.chars.get(self.at).is_some_and(|c| *c == ' ') {
            self.at += 1;
        }
    }

    fn value(&mut self) -> Result<Value, LineProblem> {
        self.skip_spaces();
        match self.chars.get(self.at) {
            Some('[') => {
                self.at += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_spaces();
                    if self.chars.get(self.at) == Some(&']') {
                        self.at += 1;
                        return Ok(Value::Array(items));
                    }
                    items.push(self.value()?);
                    self.skip_spaces();
                    match self.chars.get(self.at) {
                        Some(',') => self.at += 1,
                        Some(']') => {}
                        _ => {
                            return Err(LineProblem(
                                "a flow list is not closed with `]` on its line".to_owned(),
                            ));
                        }
                    }
                }
            }
            Some('{') => {
                self.at += 1;
                let mut map = Map::new();
                loop {
                    self.skip_spaces();
                    if self.chars.get(self.at) == Some(&'}') {
                        self.at += 1;
                        return Ok(Value::Object(map));
                    }
                    let key = match self.value()? {
                        Value::String(key) => key,
                        other => other.to_string(),
                    };
                    self.skip_spaces();
                    if self.chars.get(self.at) != Some(&':') {
                        return Err(LineProblem(format!(
                            "no colon after {key:?} in a flow mapping"
                        )));
                    }
                    self.at += 1;
                    let value = self.value()?;
                    map.insert(key, value);
                    self.skip_spaces();
                    match self.chars.get(self.at) {
                        Some(',') => self.at += 1,
                        Some('}') => {}
                        _ => {
                            return Err(LineProblem(
                                "a flow mapping is not closed with `}` on its line".to_owned(),
                            ));
                        }
                    }
                }
            }
            Some('"' | '\'') => {
                let rest: String = self.chars[self.at..].iter().collect();
                let (value, after) = quoted(&rest).map_err(|Unclosed| {
                    LineProblem("a quoted scalar is never closed".to_owned())
                })?;
                self.at = self.chars.len() - after.chars().count();
                Ok(Value::String(value))
            }
            _ => {
                let start = self.at;
                while let Some(c) = self.chars.get(self.at) {
                    // A colon ends a key only when a space or the end follows it.
                    let key_colon =
                        *c == ':' && self.chars.get(self.at + 1).is_none_or(|next| *next == ' ');
                    if matches!(c, ',' | ']' | '}') || key_colon {
                        break;
                    }
                    self.at += 1;
                }
                let text: String = self.chars[start..self.at].iter().collect();
                Ok(plain_scalar(text.trim()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parsed(text: &str) -> Value {
        Value::Object(parse_mapping(text).unwrap_or_else(|error| panic!("{error}")))
    }

    #[test]
    fn a_typical_frontmatter_is_read() {
        let text = "name: pdf-processing\n\
                    description: Extract, fill, and assemble PDF documents  # said briefly\n\
                    license: 'Apache-2.0'\n\
                    metadata:\n  version: \"2.1.0\"\n  author: it's me\n  tags: [pdf, 'forms']\n\
                    allowed-tools:\n- Read\n- Bash(python:*)\n\
                    count: 3\nratio: 1.5\nenabled: true\nnothing: ~\nempty: {}\n";
        assert_eq!(
            parsed(text),
            json!({
                "name": "pdf-processing",
                "description": "Extract, fill, and assemble PDF documents",
                "license": "Apache-2.0",
                "metadata": {"version": "2.1.0", "author": "it's me", "tags": ["pdf", "forms"]},
                "allowed-tools": ["Read", "Bash(python:*)"],
                "count": 3, "ratio": 1.5, "enabled": true, "nothing": null, "empty": {}
            })
        );
    }

    #[test]
    fn scalars_over_several_lines_are_folded_as_yaml_does() {
        let text = "description: one\n  two\n  three\nliteral: |\n  line 1\n    indented\n\n  line 3\n\
                    folded: >-\n  a\n  b\n\n  c\nquoted: \"x\\ty\n  z\"\nkept: |+\n  k\n\nafter: 1\n";
        assert_eq!(
            parsed(text),
            json!({
                "description": "one two three",
                "literal": "line 1\n  indented\n\nline 3\n",
                "folded": "a b\nc",
                "quoted": "x\ty z",
                "kept": "k\n\n",
                "after": 1
            })
        );
    }

    #[test]
    fn a_list_of_mappings_is_read() {
        assert_eq!(
            parsed("hooks:\n  - event: start\n    run: x\n  - event: end\n"),
            json!({"hooks": [{"event": "start", "run": "x"}, {"event": "end"}]})
        );
    }

    #[test]
    fn what_it_cannot_read_is_refused_with_its_line() {
        let problem = |text: &str| parse_mapping(text).err().map(|error| error.to_string());
        assert_eq!(
            problem("name: a\nname: b\n").as_deref(),
            Some("line 2: the key \"name\" is given twice")
        );
        assert!(problem("base: &x 1\n").is_some_and(|p| p.contains("anchors")));
        assert!(problem("a: 1\n   b: 2\n").is_some_and(|p| p.starts_with("line 2")));
        assert!(problem("just text\n").is_some_and(|p| p.contains("is not `key: value`")));
        assert!(problem("a: \"open\n").is_some_and(|p| p.contains("never closed")));
        assert!(problem("- a\n").is_some_and(|p| p.contains("not a mapping")));
        assert_eq!(parse_mapping("").ok(), Some(Map::new()));
    }
}
