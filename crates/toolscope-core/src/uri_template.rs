//! A resource template's URI (RFC 6570, levels 1–3: `{var}`, `{+var}`, `{#var}`, `{/var}`,
//! `{.var}`, `{;var}`, `{?var}`, `{&var}`, several variables per expression) made into a URI
//! from values, and its variables named for a form.

/// The variables of `template`, in order, each once.
pub fn variables(template: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (_, body) in expressions(template) {
        let (_, list) = operator(body);
        for name in list.split(',') {
            let name = name.trim_end_matches('*');
            let name = name.split(':').next().unwrap_or(name).trim();
            if !name.is_empty() && !names.iter().any(|known| known == name) {
                names.push(name.to_owned());
            }
        }
    }
    names
}

/// `template` with each expression replaced by its values (a variable without a value is left
/// out, as RFC 6570 says for undefined ones).
pub fn expand(template: &str, value_of: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        let Some(length) = rest[start..].find('}') else {
            break;
        };
        out.push_str(&rest[..start]);
        let body = &rest[start + 1..start + length];
        out.push_str(&expand_expression(body, &value_of));
        rest = &rest[start + length + 1..];
    }
    out.push_str(rest);
    out
}

/// Whether `text` has template expressions at all.
pub fn is_template(text: &str) -> bool {
    !expressions(text).is_empty()
}

fn expressions(template: &str) -> Vec<(usize, &str)> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(start) = template[at..].find('{') {
        let start = at + start;
        let Some(length) = template[start..].find('}') else {
            break;
        };
        found.push((start, &template[start + 1..start + length]));
        at = start + length + 1;
    }
    found
}

/// The expression's operator (if any) and its variable list.
fn operator(body: &str) -> (Option<char>, &str) {
    match body.chars().next() {
        Some(c @ ('+' | '#' | '/' | '.' | ';' | '?' | '&')) => (Some(c), &body[1..]),
        _ => (None, body),
    }
}

fn expand_expression(body: &str, value_of: &impl Fn(&str) -> Option<String>) -> String {
    let (op, list) = operator(body);
    let (first, separator, named, if_empty, reserved) = match op {
        Some('+') => ("", ",", false, "", true),
        Some('#') => ("#", ",", false, "", true),
        Some('/') => ("/", "/", false, "", false),
        Some('.') => (".", ".", false, "", false),
        Some(';') => (";", ";", true, "", false),
        Some('?') => ("?", "&", true, "=", false),
        Some('&') => ("&", "&", true, "=", false),
        // No operator (a simple string expansion).
        _ => ("", ",", false, "", false),
    };
    let mut parts = Vec::new();
    for spec in list.split(',') {
        let spec = spec.trim_end_matches('*');
        let (name, prefix) = match spec.split_once(':') {
            Some((name, length)) => (name, length.parse::<usize>().ok()),
            None => (spec, None),
        };
        let Some(mut value) = value_of(name) else {
            continue;
        };
        if let Some(length) = prefix {
            value = value.chars().take(length).collect();
        }
        let encoded = encode(&value, reserved);
        parts.push(match (named, value.is_empty()) {
            (true, true) => format!("{name}{if_empty}"),
            (true, false) => format!("{name}={encoded}"),
            (false, _) => encoded,
        });
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("{first}{}", parts.join(separator))
    }
}

/// Percent-encodes all but unreserved characters (and, for `+` and `#`, reserved ones).
fn encode(value: &str, allow_reserved: bool) -> String {
    const RESERVED: &str = ":/?#[]@!$&'()*+,;=";
    let mut out = String::new();
    for c in value.chars() {
        let unreserved = c.is_ascii_alphanumeric() || "-._~".contains(c);
        if unreserved || (allow_reserved && (RESERVED.contains(c) || c == '%')) {
            out.push(c);
        } else {
            let mut buffer = [0u8; 4];
            for byte in c.encode_utf8(&mut buffer).bytes() {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(name: &str) -> Option<String> {
        match name {
            "id" => Some("42".into()),
            "path" => Some("a/b c".into()),
            "q" => Some("x y".into()),
            "empty" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn expands_the_levels_servers_use() {
        assert_eq!(
            expand("test://static/resource/{id}", values),
            "test://static/resource/42"
        );
        assert_eq!(expand("file:///{+path}", values), "file:///a/b%20c");
        assert_eq!(expand("file:///{path}", values), "file:///a%2Fb%20c");
        assert_eq!(expand("x://s{/id,path}", values), "x://s/42/a%2Fb%20c");
        assert_eq!(
            expand("x://s{?q,id,missing}", values),
            "x://s?q=x%20y&id=42"
        );
        assert_eq!(expand("x://s{;empty}", values), "x://s;empty");
        assert_eq!(expand("x://{missing}/end", values), "x:///end");
        assert_eq!(expand("x://{id:1}", values), "x://4");
        assert_eq!(expand("no variables", values), "no variables");
        assert_eq!(expand("unclosed {id", values), "unclosed {id");
    }

    #[test]
    fn names_each_variable_once() {
        assert_eq!(
            variables("x://{owner}/{repo}{/path*}{?ref,owner}"),
            ["owner", "repo", "path", "ref"]
        );
        assert!(is_template("a/{b}"));
        assert!(!is_template("a/b"));
    }
}
