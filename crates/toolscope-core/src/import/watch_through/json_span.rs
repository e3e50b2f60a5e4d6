//! Where a value sits in a JSON (or JSONC: comments, trailing commas) text, by its path of
//! keys: the byte range of its text, so one entry of a client's file can be replaced and put
//! back without touching a byte around it.

use std::ops::Range;

/// The byte range of the value at `path` (object keys from the root), if it is there.
pub fn value_span(text: &str, path: &[&str]) -> Option<Range<usize>> {
    let mut scanner = Scanner {
        bytes: text.as_bytes(),
        at: 0,
    };
    scanner.skip_blank();
    scanner.find(path)
}

/// The whitespace that starts the line where `at` is (to indent a replacement the same way).
pub fn line_indent(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |newline| newline + 1);
    let line = &text[line_start..at];
    let end = line
        .find(|c: char| c != ' ' && c != '\t')
        .unwrap_or(line.len());
    &line[..end]
}

struct Scanner<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    /// Skips spaces, comments and nothing else.
    fn skip_blank(&mut self) {
        loop {
            while self.at < self.bytes.len() && self.bytes[self.at].is_ascii_whitespace() {
                self.at += 1;
            }
            if self.bytes[self.at..].starts_with(b"//") {
                while self.at < self.bytes.len() && self.bytes[self.at] != b'\n' {
                    self.at += 1;
                }
            } else if self.bytes[self.at..].starts_with(b"/*") {
                self.at += 2;
                while self.at < self.bytes.len() && !self.bytes[self.at..].starts_with(b"*/") {
                    self.at += 1;
                }
                self.at = (self.at + 2).min(self.bytes.len());
            } else {
                return;
            }
        }
    }

    /// The value here, or the one `path` leads to inside it.
    fn find(&mut self, path: &[&str]) -> Option<Range<usize>> {
        let Some((key, rest)) = path.split_first() else {
            let start = self.at;
            self.skip_value()?;
            return Some(start..self.at);
        };
        if self.bytes.get(self.at) != Some(&b'{') {
            return None;
        }
        self.at += 1;
        loop {
            self.skip_blank();
            // The object ended (`}`) without the key, or is not JSON.
            match self.bytes.get(self.at)? {
                b',' => {
                    self.at += 1;
                    continue;
                }
                b'"' => {}
                _ => return None,
            }
            let name = self.string()?;
            self.skip_blank();
            if self.bytes.get(self.at) != Some(&b':') {
                return None;
            }
            self.at += 1;
            self.skip_blank();
            if name == *key {
                return self.find(rest);
            }
            self.skip_value()?;
        }
    }

    /// A string's value (its escapes read), the scanner after its closing quote.
    fn string(&mut self) -> Option<String> {
        let start = self.at;
        self.at += 1;
        while self.at < self.bytes.len() {
            match self.bytes[self.at] {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    let raw = std::str::from_utf8(&self.bytes[start..self.at]).ok()?;
                    return serde_json::from_str(raw).ok();
                }
                _ => self.at += 1,
            }
        }
        None
    }

    /// Past one value (an object or array with everything in it, a string, a word, a number).
    fn skip_value(&mut self) -> Option<()> {
        match self.bytes.get(self.at)? {
            b'"' => self.string().map(drop),
            b'{' | b'[' => {
                let mut depth = 0usize;
                while self.at < self.bytes.len() {
                    self.skip_blank();
                    match self.bytes.get(self.at)? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.at += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
                None
            }
            _ => {
                while self.at < self.bytes.len()
                    && !matches!(self.bytes[self.at], b',' | b'}' | b']' | b'/')
                    && !self.bytes[self.at].is_ascii_whitespace()
                {
                    self.at += 1;
                }
                Some(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_found_by_its_keys_past_comments_and_look_alike_strings() {
        let text = r#"{
  // "mcpServers": {"fake": 1}
  "other": {"mcpServers": "no", "s": "}{\"x"},
  /* comment */ "mcpServers": {
    "a": {"command": "x"},
    "w": {"command": "npx", "args": ["-y", "w"],},
  },
}"#;
        let span = value_span(text, &["mcpServers", "w"]).unwrap();
        assert_eq!(
            &text[span.clone()],
            r#"{"command": "npx", "args": ["-y", "w"],}"#
        );
        assert_eq!(line_indent(text, span.start), "    ");
        assert_eq!(value_span(text, &["mcpServers", "missing"]), None);
        assert_eq!(
            &text[value_span(text, &["other", "s"]).unwrap()],
            r#""}{\"x""#
        );
    }
}
