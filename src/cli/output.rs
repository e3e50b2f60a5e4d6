//! Where the command line writes: every byte a server could influence passes through here on
//! its way to the terminal, so controls and bidi marks are made visible at one place.

use std::io::Write;

use super::json_text::escape_unsafe;
use toolscope_core::text_util::terminal_safe_lines;

/// Writes a command's human output at once. Server text is escaped where it is formatted
/// (a name must not break its line either); this pass is the backstop for anything missed.
/// A closed pipe (`| head`) is not an error worth a panic.
pub fn emit(text: &str) {
    let text = terminal_safe_lines(text);
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    if !text.ends_with('\n') {
        let _ = stdout.write_all(b"\n");
    }
    let _ = stdout.flush();
}

/// Writes one diagnostic line (which may quote server text) to stderr.
pub fn say(text: &str) {
    let text = terminal_safe_lines(text);
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    let _ = stderr.write_all(b"\n");
}

/// Writes one pretty JSON document of any depth to stdout. It stays exactly the same JSON;
/// only characters serde_json leaves raw and a terminal would act on (DEL, C1, bidi) are
/// written as `\uXXXX` escapes, which can occur only inside strings.
pub fn emit_json<T: serde::Serialize + ?Sized>(value: &T) {
    // Buffered before the escaper, so it sees large chunks rather than every token.
    let stdout = JsonTerminalSafe::new(std::io::stdout().lock());
    let mut writer = std::io::BufWriter::with_capacity(64 * 1024, stdout);
    if toolscope_core::deep_json::serialize_to_writer(value, &mut writer, true).is_ok() {
        let _ = writer.write_all(b"\n");
    }
    let _ = writer.flush();
}

/// Writes one pretty JSON object to stdout field by field, so a field can be written as raw
/// JSON text (a response exactly as the server sent it, without parsing or copying it).
/// Terminal-unsafe characters are escaped as in [`emit_json`].
pub fn emit_json_object(write_fields: impl FnOnce(&mut JsonObjectOut<'_>)) {
    let stdout = JsonTerminalSafe::new(std::io::stdout().lock());
    let mut writer = std::io::BufWriter::with_capacity(64 * 1024, stdout);
    let _ = writer.write_all(b"{");
    let mut object = JsonObjectOut {
        writer: &mut writer,
        first: true,
    };
    write_fields(&mut object);
    let _ = writer.write_all(b"\n}\n");
    let _ = writer.flush();
}

/// The object [`emit_json_object`] is writing.
pub struct JsonObjectOut<'w> {
    writer: &'w mut dyn Write,
    first: bool,
}

impl JsonObjectOut<'_> {
    fn name(&mut self, name: &str) {
        let comma = if std::mem::take(&mut self.first) {
            ""
        } else {
            ","
        };
        let name = serde_json::to_string(name).unwrap_or_default();
        let _ = write!(self.writer, "{comma}\n  {name}: ");
    }

    /// A field serialized pretty, indented one level.
    pub fn field<T: serde::Serialize + ?Sized>(&mut self, name: &str, value: &T) {
        self.name(name);
        let _ = toolscope_core::deep_json::serialize_to_writer(
            value,
            Indented(&mut *self.writer),
            true,
        );
    }

    /// A field whose value is JSON text, written as it is.
    pub fn raw_field(&mut self, name: &str, json: &str) {
        self.name(name);
        self.raw_field_continued(json);
    }

    /// More JSON text of the field begun last. A raw tab or carriage return can only be
    /// whitespace between tokens in valid JSON (inside a string it must be escaped): it is
    /// written as a space, so the terminal-safe pass never turns it into an escape outside a
    /// string.
    pub fn raw_field_continued(&mut self, json: &str) {
        let mut rest = json.as_bytes();
        while let Some(at) = rest.iter().position(|&b| b == b'\r' || b == b'\t') {
            let _ = self.writer.write_all(&rest[..at]);
            let _ = self.writer.write_all(b" ");
            rest = &rest[at + 1..];
        }
        let _ = self.writer.write_all(rest);
    }
}

/// Indents every line after the first by two spaces (pretty JSON has no raw newline inside a
/// string, so every newline is layout).
struct Indented<'w>(&'w mut dyn Write);

impl Write for Indented<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut rest = bytes;
        while let Some(at) = rest.iter().position(|&b| b == b'\n') {
            self.0.write_all(&rest[..=at])?;
            self.0.write_all(b"  ")?;
            rest = &rest[at + 1..];
        }
        self.0.write_all(rest)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// A writer that escapes terminal-unsafe characters of JSON text as `\uXXXX`. Bytes may arrive
/// split inside a character, so an incomplete UTF-8 tail waits for the next write.
struct JsonTerminalSafe<W: Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: Write> JsonTerminalSafe<W> {
    fn new(inner: W) -> Self {
        Self {
            inner,
            pending: Vec::new(),
        }
    }

    /// Writes the complete characters of `bytes` and keeps an incomplete last one.
    fn write_utf8(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let complete = match std::str::from_utf8(bytes) {
            Ok(text) => return self.inner.write_all(escape_unsafe(text).as_bytes()),
            Err(error) if error.error_len().is_none() => error.valid_up_to(),
            // Not UTF-8 at all (serde_json never writes that): pass it on untouched.
            Err(_) => return self.inner.write_all(bytes),
        };
        let (text, rest) = bytes.split_at(complete);
        let text = std::str::from_utf8(text).unwrap_or_default();
        self.inner.write_all(escape_unsafe(text).as_bytes())?;
        self.pending.extend_from_slice(rest);
        Ok(())
    }
}

impl<W: Write> Write for JsonTerminalSafe<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.pending.is_empty() {
            self.write_utf8(bytes)?;
        } else {
            let mut joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(bytes);
            self.write_utf8(&joined)?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let pending = std::mem::take(&mut self.pending);
        self.inner.write_all(&pending)?;
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_stays_the_same_value_without_raw_terminal_controls() {
        let value =
            serde_json::json!({"t": "\u{1b}[2J \u{9b}31m \u{202e}abc \u{7f} é你", "n": [1]});
        let mut out = Vec::new();
        {
            let mut writer = JsonTerminalSafe::new(&mut out);
            let text = serde_json::to_vec_pretty(&value).unwrap();
            // Byte by byte: characters arrive split.
            for byte in text {
                writer.write_all(&[byte]).unwrap();
            }
            writer.flush().unwrap();
        }
        let text = String::from_utf8(out).unwrap();
        assert!(
            !text
                .chars()
                .any(|c| c != '\n' && toolscope_core::text_util::is_terminal_unsafe(c)),
            "{text}"
        );
        assert!(text.contains("\\u009b31m \\u202eabc \\u007f é你"), "{text}");
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            value
        );
    }
}
