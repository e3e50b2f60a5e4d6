//! Opening a URL in the user's browser the platform's standard way: `$BROWSER` first on Linux
//! and the BSDs (a colon-separated list of commands, `%s` standing for the URL, else the URL
//! appended: what `xdg-open` and Python's `webbrowser` do), then `xdg-open`; `open` on macOS;
//! the shell's URL handler on Windows.

use std::process::{Command, Stdio};

/// Whether a page may be handed to the browser: https, or http to this machine. Anything
/// else (`file:`, a UNC path, another program's URL scheme) would be opened by whatever
/// handles it, which a server must not get to choose.
pub fn is_openable(url: &str) -> bool {
    let Ok(parsed) = url::Url::parse(url) else {
        return false;
    };
    match parsed.scheme() {
        "https" => parsed.host().is_some(),
        "http" => match parsed.host() {
            Some(url::Host::Domain(domain)) => domain.eq_ignore_ascii_case("localhost"),
            Some(url::Host::Ipv4(address)) => address.is_loopback(),
            Some(url::Host::Ipv6(address)) => address.is_loopback(),
            None => false,
        },
        _ => false,
    }
}

/// Why no browser showed a page.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BrowserError {
    #[error("{0:?} is not an https page (or http on this machine): it is not opened")]
    NotOpenable(String),
    #[error("the $BROWSER entry {0:?} cannot be split into words")]
    BadEntry(String),
    #[error("no command in $BROWSER could be started ({})", .0.join("; "))]
    NoBrowserStarted(Vec<String>),
    #[error("cannot run {program}: {reason}")]
    CannotRun { program: String, reason: String },
}

/// Opens `url` (https, or http to this machine; see [`is_openable`]); says how, or why it
/// could not.
pub fn open(url: &str) -> Result<String, BrowserError> {
    if !is_openable(url) {
        return Err(BrowserError::NotOpenable(url.to_owned()));
    }
    if cfg!(any(target_os = "macos", windows)) {
        return platform_opener(url);
    }
    if let Ok(browsers) = std::env::var("BROWSER")
        && !browsers.trim().is_empty()
    {
        let mut failures = Vec::new();
        for browser in browsers.split(':').filter(|entry| !entry.trim().is_empty()) {
            match spawn(&command_line(browser, url)?) {
                Ok(()) => return Ok(format!("opened with $BROWSER ({browser})")),
                Err(error) => failures.push(format!("{browser}: {error}")),
            }
        }
        return Err(BrowserError::NoBrowserStarted(failures));
    }
    platform_opener(url)
}

/// Opens a file or folder Toolscope wrote (a report, a case file, the folder they are in) with
/// the program the desktop associates with it; says how, or why it could not.
pub fn open_local(path: &std::path::Path) -> Result<String, BrowserError> {
    platform_opener(&path.display().to_string())
}

/// One `$BROWSER` entry as a command line: `%s` is the URL and `%%` a percent sign; an entry
/// without `%s` gets the URL as its last argument.
fn command_line(entry: &str, url: &str) -> Result<Vec<String>, BrowserError> {
    let mut words = shlex::split(entry)
        .filter(|words| !words.is_empty())
        .ok_or_else(|| BrowserError::BadEntry(entry.to_owned()))?;
    let mut placed = false;
    for word in &mut words {
        if word.contains("%s") {
            placed = true;
        }
        *word = word
            .replace("%s", "\u{0}")
            .replace("%%", "%")
            .replace('\u{0}', url);
    }
    if !placed {
        words.push(url.to_owned());
    }
    Ok(words)
}

fn platform_opener(url: &str) -> Result<String, BrowserError> {
    let words: Vec<String> = if cfg!(target_os = "macos") {
        vec!["open".into(), url.into()]
    } else if cfg!(windows) {
        // `start` would read `&` in the URL as the shell's; the URL handler takes it whole.
        vec![
            "rundll32".into(),
            "url.dll,FileProtocolHandler".into(),
            url.into(),
        ]
    } else {
        vec!["xdg-open".into(), url.into()]
    };
    spawn(&words)
        .map(|()| format!("opened with {}", words[0]))
        .map_err(|error| BrowserError::CannotRun {
            program: words[0].clone(),
            reason: error.to_string(),
        })
}

/// Starts the command without waiting for it (a browser may run for hours); its output does
/// not reach our terminal. It is waited for on a thread so it does not linger as a zombie.
fn spawn(words: &[String]) -> std::io::Result<()> {
    let (program, arguments) = words
        .split_first()
        .ok_or_else(|| std::io::Error::other("an empty command"))?;
    let mut child = Command::new(program)
        .args(arguments)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browser_entries_place_the_url() {
        let url = "http://127.0.0.1:9/a?b=1&c=%20";
        assert_eq!(
            command_line("firefox --new-tab", url).expect("words"),
            ["firefox", "--new-tab", url]
        );
        assert_eq!(
            command_line("'my browser' --url=%s --pct=%%", url).expect("words"),
            ["my browser", &format!("--url={url}"), "--pct=%"]
        );
        assert!(command_line("'unclosed", url).is_err());
    }

    #[test]
    fn only_web_pages_are_opened() {
        assert!(is_openable("https://auth.example.com/authorize?x=1"));
        assert!(is_openable("http://127.0.0.1:8080/auth/authorize"));
        assert!(is_openable("http://localhost/a"));
        for refused in [
            "http://auth.example.com/authorize",
            "file:///C:/Windows/System32/calc.exe",
            "\\\\host\\share\\x.exe",
            "javascript:alert(1)",
            "ms-settings:",
            "not a url",
        ] {
            assert!(!is_openable(refused), "{refused}");
            assert!(open(refused).is_err(), "{refused}");
        }
    }
}
