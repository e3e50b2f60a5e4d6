//! The two pages of an app's host: the host page on Toolscope's origin (it frames the sandbox
//! and relays between it and Toolscope) and the sandbox proxy on an origin of its own (it
//! holds the app's document), filled in with what is this run's.

/// What the host page shows and where it finds the rest.
pub struct HostPage<'a> {
    pub tool: &'a str,
    pub server: &'a str,
    pub token: &'a str,
    pub sandbox_origin: &'a str,
    pub sandbox_url: &'a str,
    /// The iframe's Permissions Policy (`camera; microphone`), from the resource.
    pub allow: &'a str,
    /// The resource's `prefersBorder`.
    pub border: bool,
}

pub fn host_page(page: &HostPage<'_>) -> String {
    include_str!("host_page.html")
        .replace("__TITLE__", &html_text(&format!("{} app", page.tool)))
        .replace("__TOOL__", &html_text(page.tool))
        .replace("__SERVER__", &html_text(page.server))
        .replace("__ALLOW__", &html_text(page.allow))
        .replace("__BORDER__", if page.border { "border" } else { "" })
        .replace("__TOKEN_JSON__", &script_json(page.token))
        .replace("__SANDBOX_ORIGIN_JSON__", &script_json(page.sandbox_origin))
        .replace("__SANDBOX_URL_JSON__", &script_json(page.sandbox_url))
}

pub fn sandbox_page(host_origin: &str) -> String {
    include_str!("sandbox_page.html").replace("__HOST_ORIGIN_JSON__", &script_json(host_origin))
}

/// Text for an HTML element or attribute.
fn html_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// A JavaScript string literal that cannot end the script element it is in.
fn script_json(text: &str) -> String {
    serde_json::to_string(text)
        .unwrap_or_else(|_| "\"\"".to_owned())
        .replace("</", "<\\/")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_s_names_cannot_break_out_of_the_page() {
        let page = host_page(&HostPage {
            tool: "<script>alert(1)</script>",
            server: "a\"b",
            token: "t</script><script>x",
            sandbox_origin: "http://localhost:1",
            sandbox_url: "http://localhost:1/t/sandbox.html",
            allow: "",
            border: false,
        });
        assert!(!page.contains("<script>alert(1)"), "{page}");
        assert!(!page.contains("t</script>"), "{page}");
        assert!(page.contains("&lt;script&gt;alert(1)"));
    }
}
