//! The password file libpq reads (`~/.pgpass`, or `PGPASSFILE`): lines of
//! `host:port:database:user:password`, `*` matching anything, `\:` and `\\` escaped. As libpq
//! does, a file others can read is ignored.

use std::path::PathBuf;

/// The password the file gives for this server, database and user, if any.
pub(super) fn lookup(host: &str, port: u16, database: &str, user: &str) -> Option<String> {
    let path = file()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&path).ok()?.permissions().mode();
        if mode & 0o077 != 0 {
            return None;
        }
    }
    let text = std::fs::read_to_string(path).ok()?;
    find(&text, host, &port.to_string(), database, user)
}

fn file() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PGPASSFILE") {
        return Some(PathBuf::from(path));
    }
    crate::settings::home_dir().map(|home| home.join(".pgpass"))
}

/// The first line whose four fields match.
fn find(text: &str, host: &str, port: &str, database: &str, user: &str) -> Option<String> {
    // libpq matches a loopback host written as `localhost` in the file.
    let hosts = if host == "127.0.0.1" || host == "::1" || host == "[::1]" {
        vec![host, "localhost"]
    } else {
        vec![host]
    };
    text.lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .filter_map(fields)
        .find(|fields| {
            let matches = |field: &str, value: &str| field == "*" || field == value;
            hosts.iter().any(|host| matches(&fields[0], host))
                && matches(&fields[1], port)
                && matches(&fields[2], database)
                && matches(&fields[3], user)
        })
        .map(|fields| fields[4].clone())
}

/// A line's five fields, unescaped (`None` when it has fewer).
fn fields(line: &str) -> Option<[String; 5]> {
    let mut fields: Vec<String> = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => fields.last_mut()?.push(chars.next().unwrap_or('\\')),
            // The password is the rest of the line, colons and all.
            ':' if fields.len() < 5 => fields.push(String::new()),
            c => fields.last_mut()?.push(c),
        }
    }
    fields.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::find;

    #[test]
    fn the_first_matching_line_gives_the_password_with_wildcards_and_escapes() {
        let file = "# team\n\
                    db.example:5432:other:qa:wrong\n\
                    db.example:*:team:qa:pa\\:ss:word\n\
                    *:*:*:*:fallback\n";
        assert_eq!(
            find(file, "db.example", "6543", "team", "qa").as_deref(),
            Some("pa:ss:word")
        );
        assert_eq!(
            find(file, "db.example", "5432", "other", "qa").as_deref(),
            Some("wrong")
        );
        assert_eq!(
            find(file, "elsewhere", "1", "x", "y").as_deref(),
            Some("fallback")
        );
        assert_eq!(
            find("localhost:5432:d:u:p", "127.0.0.1", "5432", "d", "u").as_deref(),
            Some("p")
        );
        assert_eq!(find("short:line", "short", "5432", "d", "u"), None);
    }
}
