//! The tape parser: one pass over the text, no recursion (any depth), no allocation per value.
//! It accepts exactly what serde_json accepts (RFC 8259, lone surrogates and numbers out of
//! `f64` range refused), plus a leading byte order mark.

use std::fmt;

use super::entry::{Entry, EntryKind};

/// Why a text is not a JSON document, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub what: &'static str,
    /// Byte offset into the text.
    pub offset: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.what, self.offset)
    }
}

impl std::error::Error for ParseError {}

/// Texts are addressed with `u32` offsets.
pub const MAX_TEXT_CHARS: usize = u32::MAX as usize - 1;

struct Frame {
    entry: u32,
    count: u32,
    is_object: bool,
}

struct Parser<'t> {
    bytes: &'t [u8],
    at: usize,
    entries: Vec<Entry>,
}

pub(super) fn parse(text: &str) -> Result<Vec<Entry>, ParseError> {
    if text.len() > MAX_TEXT_CHARS {
        return Err(ParseError {
            what: "the text is larger than 4 GiB",
            offset: 0,
        });
    }
    let mut parser = Parser {
        bytes: text.as_bytes(),
        at: 0,
        // A guess that avoids most regrowth on typical JSON (one value per ~10 bytes).
        entries: Vec::with_capacity((text.len() / 16).clamp(4, 1 << 24)),
    };
    if parser.bytes.starts_with("\u{feff}".as_bytes()) {
        parser.at = 3;
    }
    parser.document()?;
    let mut entries = parser.entries;
    entries.shrink_to_fit();
    Ok(entries)
}

impl Parser<'_> {
    fn error<T>(&self, what: &'static str) -> Result<T, ParseError> {
        Err(ParseError {
            what,
            offset: self.at,
        })
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    fn push(&mut self, kind: EntryKind, start: usize, end: usize, escaped: bool) -> u32 {
        let index = self.entries.len() as u32;
        self.entries.push(Entry::new(
            kind,
            start as u32,
            end as u32,
            index + 1,
            escaped,
        ));
        index
    }

    fn document(&mut self) -> Result<(), ParseError> {
        let mut stack: Vec<Frame> = Vec::new();
        'value: loop {
            self.skip_whitespace();
            let start = self.at;
            match self.bytes.get(start) {
                Some(&open @ (b'{' | b'[')) => {
                    let is_object = open == b'{';
                    let (kind, close) = if is_object {
                        (EntryKind::Object, b'}')
                    } else {
                        (EntryKind::Array, b']')
                    };
                    let entry = self.push(kind, start, start + 1, false);
                    self.at += 1;
                    self.skip_whitespace();
                    if self.bytes.get(self.at) == Some(&close) {
                        self.at += 1;
                        self.close(entry, 0);
                    } else {
                        stack.push(Frame {
                            entry,
                            count: 1,
                            is_object,
                        });
                        if is_object {
                            self.member_key()?;
                        }
                        continue 'value;
                    }
                }
                Some(b'"') => {
                    let escaped = self.string()?;
                    self.push(EntryKind::String, start, self.at, escaped);
                }
                Some(b't') => self.literal(b"true", EntryKind::True)?,
                Some(b'f') => self.literal(b"false", EntryKind::False)?,
                Some(b'n') => self.literal(b"null", EntryKind::Null)?,
                Some(b'-' | b'0'..=b'9') => {
                    self.number()?;
                    self.push(EntryKind::Number, start, self.at, false);
                }
                Some(_) => return self.error("expected a value"),
                None => return self.error("the text ends where a value should be"),
            }
            // After a value: a separator, or the end of the containers it closes.
            loop {
                let Some(frame) = stack.last_mut() else {
                    break 'value;
                };
                self.skip_whitespace();
                match (self.bytes.get(self.at), frame.is_object) {
                    (Some(b','), is_object) => {
                        self.at += 1;
                        frame.count = frame.count.saturating_add(1);
                        if is_object {
                            self.member_key()?;
                        }
                        continue 'value;
                    }
                    (Some(b'}'), true) | (Some(b']'), false) => {
                        self.at += 1;
                        let (entry, count) = (frame.entry, frame.count);
                        stack.pop();
                        self.close(entry, count);
                    }
                    (None, _) => return self.error("the text ends inside a container"),
                    (_, true) => return self.error("expected ',' or '}'"),
                    (_, false) => return self.error("expected ',' or ']'"),
                }
            }
        }
        self.skip_whitespace();
        if self.at != self.bytes.len() {
            return self.error("trailing characters after the value");
        }
        Ok(())
    }

    fn close(&mut self, entry: u32, count: u32) {
        let next = self.entries.len() as u32;
        let end = self.at as u32;
        self.entries[entry as usize].close(end, next, count);
        if count > 1
            && self.entries[entry as usize].kind() == EntryKind::Object
            && self.repeats_a_key(entry, next)
        {
            self.entries[entry as usize].mark_repeated_key();
        }
    }

    /// Whether a key repeats among the members of the object at `entry` (tape up to `end`).
    /// Keys are compared as written, unless one has escapes (`"a"` and `"\u0061"` are equal).
    fn repeats_a_key(&self, entry: u32, end: u32) -> bool {
        let mut keys: Vec<(&[u8], bool)> = Vec::new();
        let mut at = entry + 1;
        while at < end {
            let key = self.entries[at as usize];
            keys.push((&self.bytes[key.span()], key.escaped()));
            at = self.entries[at as usize + 1].next();
        }
        if keys.iter().any(|(_, escaped)| *escaped) {
            let text: Vec<String> = keys
                .iter()
                .map(|(raw, _)| {
                    let inner = std::str::from_utf8(&raw[1..raw.len() - 1]).unwrap_or_default();
                    super::text::unescape(inner)
                })
                .collect();
            let mut seen = std::collections::HashSet::with_capacity(text.len());
            return !text.iter().all(|key| seen.insert(key.as_str()));
        }
        if keys.len() <= 16 {
            return keys
                .iter()
                .enumerate()
                .any(|(i, (key, _))| keys[..i].iter().any(|(other, _)| other == key));
        }
        let mut seen = std::collections::HashSet::with_capacity(keys.len());
        !keys.iter().all(|(key, _)| seen.insert(*key))
    }

    /// A member's key and its colon; leaves `at` before the value.
    fn member_key(&mut self) -> Result<(), ParseError> {
        self.skip_whitespace();
        let start = self.at;
        if self.bytes.get(start) != Some(&b'"') {
            return self.error("expected a key in quotes");
        }
        let escaped = self.string()?;
        self.push(EntryKind::Key, start, self.at, escaped);
        self.skip_whitespace();
        if self.bytes.get(self.at) != Some(&b':') {
            return self.error("expected ':' after a key");
        }
        self.at += 1;
        Ok(())
    }

    fn literal(&mut self, word: &[u8], kind: EntryKind) -> Result<(), ParseError> {
        let start = self.at;
        if !self.bytes[start..].starts_with(word) {
            return self.error("expected a value");
        }
        self.at += word.len();
        self.push(kind, start, self.at, false);
        Ok(())
    }

    /// Reads a string from its opening quote to after its closing one; returns whether it has
    /// escapes. The text is `str`, so the bytes are valid UTF-8 already.
    fn string(&mut self) -> Result<bool, ParseError> {
        let bytes = self.bytes;
        let mut at = self.at + 1;
        let mut escaped = false;
        loop {
            at = skip_plain(bytes, at);
            match bytes.get(at) {
                Some(b'"') => {
                    self.at = at + 1;
                    return Ok(escaped);
                }
                Some(b'\\') => {
                    escaped = true;
                    self.at = at;
                    at = self.escape(at + 1)?;
                }
                Some(_) => {
                    self.at = at;
                    return self.error("a control character inside a string (it must be escaped)");
                }
                None => {
                    self.at = at;
                    return self.error("the text ends inside a string");
                }
            }
        }
    }

    /// Checks the escape whose letter is at `at`; returns the offset after it.
    fn escape(&mut self, at: usize) -> Result<usize, ParseError> {
        match self.bytes.get(at) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(at + 1),
            Some(b'u') => {
                let unit = self.hex4(at + 1)?;
                match unit {
                    0xD800..=0xDBFF => {
                        if self.bytes.get(at + 5..at + 7) != Some(b"\\u") {
                            return self.error("a lone leading surrogate in a \\u escape");
                        }
                        let low = self.hex4(at + 7)?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return self.error("a lone leading surrogate in a \\u escape");
                        }
                        Ok(at + 11)
                    }
                    0xDC00..=0xDFFF => self.error("a lone trailing surrogate in a \\u escape"),
                    _ => Ok(at + 5),
                }
            }
            _ => self.error("an invalid escape in a string"),
        }
    }

    fn hex4(&mut self, at: usize) -> Result<u32, ParseError> {
        let digits = self
            .bytes
            .get(at..at + 4)
            .filter(|d| d.iter().all(u8::is_ascii_hexdigit));
        match digits {
            Some(digits) => Ok(digits.iter().fold(0, |unit, &d| {
                unit * 16 + (d as char).to_digit(16).unwrap_or(0)
            })),
            None => {
                self.at = at;
                self.error("a \\u escape needs four hex digits")
            }
        }
    }

    fn number(&mut self) -> Result<(), ParseError> {
        let start = self.at;
        let bytes = self.bytes;
        let digits = |at: usize| {
            let mut end = at;
            while bytes.get(end).is_some_and(u8::is_ascii_digit) {
                end += 1;
            }
            end
        };
        let mut at = start;
        if bytes[at] == b'-' {
            at += 1;
        }
        match bytes.get(at) {
            Some(b'0') => at += 1,
            Some(b'1'..=b'9') => at = digits(at),
            _ => {
                self.at = at;
                return self.error("a number needs a digit");
            }
        }
        let mut plain_integer = true;
        if bytes.get(at) == Some(&b'.') {
            let end = digits(at + 1);
            if end == at + 1 {
                self.at = end;
                return self.error("a number needs a digit after its decimal point");
            }
            at = end;
        }
        if let Some(b'e' | b'E') = bytes.get(at) {
            plain_integer = false;
            at += 1;
            if let Some(b'+' | b'-') = bytes.get(at) {
                at += 1;
            }
            let end = digits(at);
            if end == at {
                self.at = end;
                return self.error("a number needs a digit in its exponent");
            }
            at = end;
        }
        self.at = at;
        // Only an exponent or hundreds of digits can leave f64's range (serde_json refuses it).
        if !plain_integer || at - start > 300 {
            let text = std::str::from_utf8(&bytes[start..at]).unwrap_or("0");
            if text.parse::<f64>().map_or(true, f64::is_infinite) {
                self.at = start;
                return self.error("a number out of range");
            }
        }
        Ok(())
    }
}

/// Skips bytes that need no attention inside a string: eight at a time, then one by one.
fn skip_plain(bytes: &[u8], mut at: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero = |word: u64| word.wrapping_sub(ONES) & !word & HIGHS;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        let quote = has_zero(word ^ (ONES * u64::from(b'"')));
        let backslash = has_zero(word ^ (ONES * u64::from(b'\\')));
        let control = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
        if quote | backslash | control != 0 {
            break;
        }
        at += 8;
    }
    while let Some(&byte) = bytes.get(at) {
        if byte == b'"' || byte == b'\\' || byte < 0x20 {
            break;
        }
        at += 1;
    }
    at
}
