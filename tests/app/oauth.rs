//! Signing in to an OAuth-protected Streamable HTTP server (tests/fixtures/oauth_server.py: an
//! authorization server and the MCP server it protects), with the browser step automated
//! through `$BROWSER` (tests/fixtures/fake_browser.py follows the redirects as a user who
//! approves at once would). Tokens go to a secrets file of the test's own.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use crate::support::oauth_server::AuthServer;

use std::{
    io::{BufRead as _, BufReader},
    net::TcpStream,
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    sync::Arc,
    time::Duration,
};

use serde_json::{Map, Value};
use toolscope_core::{
    auth::{AuthOptions, SignInPrompt},
    secret_store::SecretStore,
    session::{
        ConnectOptions, RequestControl, ServerConfig, Session, SessionError, Timeouts,
        events::ignore_events,
    },
};

fn fake_browser() -> PathBuf {
    crate::support::oauth_server::fake_browser()
}

/// A configuration folder (where the secrets file goes) of the test's own.
fn config_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolscope-oauth-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// `toolscope <args>` with the fake browser and a secrets file in `config`.
fn toolscope(config: &Path, args: &[&str]) -> Output {
    crate::support::command()
        .args(args)
        .env("COLUMNS", "120")
        .env("TOOLSCOPE_CONFIG_DIR", config)
        .env("TOOLSCOPE_SECRETS", "file")
        .env("BROWSER", format!("python3 {}", fake_browser().display()))
        .output()
        .expect("toolscope runs")
}

fn secrets(config: &Path) -> Value {
    std::fs::read_to_string(config.join("secrets.json"))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null)
}

#[test]
fn the_command_line_signs_in_through_the_browser_and_keeps_the_tokens() {
    let server = AuthServer::start(&[]);
    let config = config_dir("cli");
    let first = toolscope(&config, &["call", "--url", &server.url, "whoami", "--json"]);
    let err = crate::support::stderr(&first);
    assert_eq!(crate::support::status(&first), 0, "{err}");
    let answer = crate::support::json_of(&first);
    assert_eq!(
        answer["response"]["value"]["structuredContent"]["scopes"],
        serde_json::json!(["mcp:tools"]),
        "the challenge's scope was asked for, not every scope the server has"
    );
    // The timeline on stderr names each step, with no token in it.
    for step in [
        "auth • Signing in",
        "auth → GET http://",
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-authorization-server/auth",
        "auth → POST http://",
        "/auth/register",
        "auth • Waiting for the browser",
        "auth • The browser came back",
        "/auth/token",
        "auth • Signed in",
    ] {
        assert!(err.contains(step), "{step:?} missing from:\n{err}");
    }
    // One registration, as a native client with a loopback redirect; one authorization with
    // PKCE S256, a state and the resource (RFC 8707); the code exchanged with the resource.
    let registered = server.events("registered");
    assert_eq!(registered.len(), 1);
    assert_eq!(registered[0]["client_name"], "Toolscope");
    let redirect = registered[0]["redirect_uris"][0].as_str().unwrap();
    assert!(redirect.starts_with("http://127.0.0.1:") && redirect.ends_with("/callback"));
    let authorize = server.events("authorize");
    assert_eq!(authorize.len(), 1);
    let query = &authorize[0]["query"];
    assert_eq!(query["code_challenge_method"], "S256");
    assert_eq!(query["resource"], server.url.as_str());
    assert_eq!(query["scope"], "mcp:tools");
    assert!(
        query["state"]
            .as_str()
            .is_some_and(|state| state.len() >= 16)
    );
    let tokens = server.events("token");
    assert_eq!(tokens[0]["grant_type"], "authorization_code");
    assert_eq!(tokens[0]["resource"], server.url.as_str());
    // The redirect listener is gone once the flow is over.
    let port = redirect
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/callback");
    assert!(TcpStream::connect(format!("127.0.0.1:{port}")).is_err());

    // The tokens are kept (in a file only the user reads), and the next command uses them.
    let key = format!("oauth:{}", server.url);
    let kept = secrets(&config)[&key].as_str().map(str::to_owned);
    assert!(
        kept.as_deref()
            .is_some_and(|kept| kept.contains("access_token"))
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(config.join("secrets.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let second = toolscope(&config, &["tools", "--url", &server.url]);
    assert_eq!(
        crate::support::status(&second),
        0,
        "{}",
        crate::support::stderr(&second)
    );
    assert!(!crate::support::stderr(&second).contains("Signing in"));
    assert_eq!(server.events("authorize").len(), 1, "no second sign-in");

    // Signing out revokes them at the authorization server (RFC 7009: the refresh token, then
    // the access token, by the registered client) and forgets them: the next command signs in
    // again.
    let out = toolscope(&config, &["sign-out", "--url", &server.url]);
    assert_eq!(crate::support::status(&out), 0);
    let said = crate::support::stderr(&out);
    assert!(said.contains("Signed out of"), "{said}");
    assert!(
        said.contains("the tokens were revoked at http://"),
        "{said}"
    );
    let revoked: Vec<_> = server
        .events("token-revoked")
        .iter()
        .map(|event| event["token"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        revoked,
        ["refresh_token", "access_token"],
        "{:?}",
        server.log()
    );
    assert!(secrets(&config).get(&key).is_none());
    let again = toolscope(&config, &["tools", "--url", &server.url]);
    assert_eq!(
        crate::support::status(&again),
        0,
        "{}",
        crate::support::stderr(&again)
    );
    assert_eq!(server.events("authorize").len(), 2);
}

#[test]
fn an_expired_token_is_refreshed_without_a_new_sign_in() {
    let server = AuthServer::start(&["--token-lifetime", "2"]);
    let config = config_dir("refresh");
    let first = toolscope(&config, &["tools", "--url", &server.url]);
    assert_eq!(
        crate::support::status(&first),
        0,
        "{}",
        crate::support::stderr(&first)
    );
    std::thread::sleep(Duration::from_millis(2500));
    let second = toolscope(&config, &["call", "--url", &server.url, "whoami"]);
    let err = crate::support::stderr(&second);
    assert_eq!(crate::support::status(&second), 0, "{err}");
    assert!(!err.contains("Signing in"), "{err}");
    let refreshes: Vec<_> = server
        .events("token")
        .into_iter()
        .filter(|event| event["grant_type"] == "refresh_token")
        .collect();
    assert!(!refreshes.is_empty(), "{:?}", server.log());
    assert_eq!(refreshes[0]["resource"], server.url.as_str());
    assert_eq!(server.events("authorize").len(), 1);
}

#[test]
fn a_missing_scope_is_asked_for_with_the_scopes_held() {
    let server = AuthServer::start(&[]);
    let config = config_dir("step-up");
    let output = toolscope(
        &config,
        &["call", "--url", &server.url, "admin_reset", "--json"],
    );
    let err = crate::support::stderr(&output);
    assert_eq!(crate::support::status(&output), 0, "{err}");
    assert!(err.contains("Signing in again for more scopes"), "{err}");
    let scopes =
        &crate::support::json_of(&output)["response"]["value"]["structuredContent"]["scopes"];
    assert!(
        scopes
            .as_array()
            .unwrap()
            .iter()
            .any(|scope| scope == "mcp:admin")
    );
    let authorize = server.events("authorize");
    assert_eq!(authorize.len(), 2);
    assert_eq!(authorize[1]["query"]["scope"], "mcp:tools mcp:admin");
    // The second sign-in reused the registration.
    assert_eq!(server.events("registered").len(), 1);
    assert_eq!(server.events("insufficient-scope").len(), 1);
}

#[test]
fn no_browser_prints_the_page_to_open() {
    let server = AuthServer::start(&[]);
    let config = config_dir("no-browser");
    let mut child = crate::support::command()
        .args(["tools", "--no-browser", "--url", &server.url])
        .env("TOOLSCOPE_CONFIG_DIR", &config)
        .env("TOOLSCOPE_SECRETS", "file")
        .env("BROWSER", "false")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("toolscope runs");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut page = None;
    while let Some(Ok(line)) = lines.next() {
        if line.contains("open this page in a browser") {
            page = lines.next().and_then(Result::ok);
            break;
        }
    }
    let page = page
        .expect("the page's address is printed")
        .trim()
        .to_owned();
    assert!(page.contains("/auth/authorize?"), "{page}");
    // The user opens it.
    let opened = Command::new("python3")
        .arg(fake_browser())
        .arg(&page)
        .status()
        .expect("the fake browser runs");
    assert!(opened.success());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().expect("toolscope ends");
    assert!(status.success(), "{rest:?}");
    assert!(
        rest.iter().any(|line| line.contains("Signed in")),
        "{rest:?}"
    );
}

#[test]
fn a_failed_sign_in_says_at_which_step_and_why() {
    for (flags, step, why) in [
        (&["--deny"][..], "failed at authorization", "access_denied"),
        (&["--wrong-iss"][..], "failed at authorization", "issuer"),
        (&["--wrong-state"][..], "failed at authorization", "state"),
        (
            &["--no-registration"][..],
            "failed at client registration",
            "--oauth-client-id",
        ),
        // The MCP authorization spec: no S256 in the metadata, no sign-in.
        (&["--no-pkce"][..], "failed at discovery", "S256"),
    ] {
        let server = AuthServer::start(flags);
        let config = config_dir("refused");
        // A redirect of another state does not end the wait: it times out, saying why.
        let output = toolscope(
            &config,
            &["tools", "--url", &server.url, "--sign-in-timeout", "3"],
        );
        let err = crate::support::stderr(&output);
        assert_ne!(crate::support::status(&output), 0, "{flags:?}: {err}");
        assert!(err.contains(step) && err.contains(why), "{flags:?}: {err}");
        // Nothing was exchanged for a token after a refused or forged redirect.
        assert!(server.events("issued").is_empty(), "{flags:?}");
        assert!(
            !err.contains("access_token\":\""),
            "no token on the terminal"
        );
    }
}

/// The authorization server refuses the client at the token endpoint (`invalid_client`: it
/// forgot the registration): the registration kept is forgotten, so the next sign-in registers
/// again instead of failing the same way.
#[test]
fn a_client_refused_as_invalid_is_forgotten() {
    let server = AuthServer::start(&["--invalid-client"]);
    let config = config_dir("invalid-client");
    let output = toolscope(&config, &["tools", "--url", &server.url]);
    let err = crate::support::stderr(&output);
    assert_ne!(crate::support::status(&output), 0, "{err}");
    assert!(err.contains("invalid_client"), "{err}");
    assert!(
        !server.events("registered").is_empty(),
        "it registered first"
    );
    let kept = secrets(&config).to_string();
    assert!(
        !kept.contains("redirect_uri"),
        "the registration is forgotten: {kept}"
    );
}

#[test]
fn a_pre_registered_client_id_skips_registration() {
    let server = AuthServer::start(&["--no-registration", "--client-id", "toolscope-test"]);
    let config = config_dir("client-id");
    let output = toolscope(
        &config,
        &[
            "tools",
            "--url",
            &server.url,
            "--oauth-client-id",
            "toolscope-test",
        ],
    );
    assert_eq!(
        crate::support::status(&output),
        0,
        "{}",
        crate::support::stderr(&output)
    );
    assert!(server.events("registered").is_empty());
    assert_eq!(server.events("token")[0]["client_id"], "toolscope-test");
}

/// A browser that is the fake one, for sessions run in this process.
struct FakeBrowser;

impl SignInPrompt for FakeBrowser {
    fn show(
        &self,
        _server: &str,
        url: &str,
    ) -> Result<String, toolscope_core::auth::browser::BrowserError> {
        Command::new("python3")
            .arg(fake_browser())
            .arg(url)
            .spawn()
            .map(|_| "opened with the fake browser".to_owned())
            .map_err(
                |error| toolscope_core::auth::browser::BrowserError::CannotRun {
                    program: "python3".to_owned(),
                    reason: error.to_string(),
                },
            )
    }
}

async fn connect(server: &AuthServer, store: &SecretStore) -> Result<Session, SessionError> {
    let mut options = ConnectOptions::new(
        Timeouts::with_request(Duration::from_secs(30)),
        ignore_events(),
    );
    options.auth = Some(AuthOptions::new(store.clone(), Some(Arc::new(FakeBrowser))));
    let config = ServerConfig::Http {
        oauth_client_id: None,
        oauth_client_secret: None,
        oauth: Default::default(),
        url: server.url.clone(),
        headers: Default::default(),
    };
    Session::connect(&config, options).await
}

async fn whoami(session: &Session) -> Value {
    let control = RequestControl::with_timeouts(Timeouts::with_request(Duration::from_secs(30)));
    let outcome = session
        .call_tool("whoami", Map::new(), &control)
        .await
        .expect("whoami answers");
    outcome.response.result_to_value().expect("a result")["structuredContent"].clone()
}

#[tokio::test]
async fn a_revoked_token_mid_session_is_refreshed_then_signed_in_again() {
    let server = AuthServer::start(&[]);
    let store = SecretStore::in_file(config_dir("mid-session").join("secrets.json"));
    let session = connect(&server, &store)
        .await
        .expect("signs in and connects");
    assert_eq!(whoami(&session).await["tool"], "whoami");
    // The access token is revoked: one refresh, and the call goes through.
    server.revoke(false);
    assert_eq!(whoami(&session).await["tool"], "whoami");
    assert_eq!(server.events("authorize").len(), 1);
    assert!(
        server
            .events("token")
            .iter()
            .any(|event| event["grant_type"] == "refresh_token")
    );
    // Both tokens are revoked: the refresh is refused, so the session signs in again.
    server.revoke(true);
    assert_eq!(whoami(&session).await["tool"], "whoami");
    assert_eq!(server.events("authorize").len(), 2);
    // The auth timeline is in the protocol log, without a token in it.
    let log = session.tap().messages();
    let auth: Vec<_> = log
        .iter()
        .filter(|entry| {
            entry
                .label
                .starts_with(toolscope_core::session::transports::tap::AUTH_LABEL)
        })
        .collect();
    assert!(auth.iter().any(|entry| entry.label.contains("Signed in")));
    assert!(auth.iter().any(|entry| entry.label.contains("/auth/token")));
    let kept = store
        .get(&format!("oauth:{}", server.url))
        .unwrap()
        .expect("tokens kept");
    let kept: Value = serde_json::from_str(&kept).unwrap();
    let token = kept["credentials"]["token_response"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(log.iter().all(|entry| !entry.text.contains(&token)));
    session.close().await;
}

#[tokio::test]
async fn without_a_way_to_ask_a_sign_in_fails_with_where_to_sign_in() {
    let server = AuthServer::start(&[]);
    let store = SecretStore::in_file(config_dir("no-prompt").join("secrets.json"));
    let mut options = ConnectOptions::new(Timeouts::default(), ignore_events());
    options.auth = Some(AuthOptions::new(store, None));
    let config = ServerConfig::Http {
        oauth_client_id: None,
        oauth_client_secret: None,
        oauth: Default::default(),
        url: server.url.clone(),
        headers: Default::default(),
    };
    let error = Session::connect(&config, options)
        .await
        .err()
        .expect("no sign-in without a prompt");
    let text = error.to_string();
    assert!(text.contains("wants a sign-in"), "{text}");
}

#[test]
fn the_http_proxy_signs_in_for_its_client_which_sees_a_server_without_auth() {
    let server = AuthServer::start(&[]);
    let config = config_dir("proxy");
    let mut proxy = crate::support::command()
        .args(["proxy", "--url", &server.url, "--listen", "127.0.0.1:0"])
        .env("TOOLSCOPE_CONFIG_DIR", &config)
        .env("TOOLSCOPE_DATA_DIR", config.join("data"))
        .env("TOOLSCOPE_SECRETS", "file")
        .env("BROWSER", format!("python3 {}", fake_browser().display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the proxy starts");
    let mut said = BufReader::new(proxy.stderr.take().expect("piped"));
    let mut line = String::new();
    said.read_line(&mut line).expect("it says where it listens");
    let local = line
        .split("served at ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no local URL in {line:?}"))
        .to_owned();
    // The rest of what the proxy says (its sign-in) is drained as it comes.
    std::thread::spawn(move || for _ in said.lines() {});

    // The client has no tokens and is never asked for any.
    let client_config = config_dir("proxy-client");
    let called = toolscope(
        &client_config,
        &["call", "--url", &local, "whoami", "--json"],
    );
    assert_eq!(
        crate::support::status(&called),
        0,
        "{}",
        crate::support::stderr(&called)
    );
    let answer = crate::support::json_of(&called);
    assert_eq!(
        answer["response"]["value"]["structuredContent"]["scopes"],
        serde_json::json!(["mcp:tools"]),
        "the proxy signed in and added its token"
    );
    assert!(
        !crate::support::stderr(&called).contains("auth •"),
        "the client did not sign in"
    );
    assert_eq!(
        secrets(&client_config),
        Value::Null,
        "nothing kept by the client"
    );
    assert_ne!(secrets(&config), Value::Null, "the proxy's sign-in is kept");
    assert_eq!(server.events("authorize").len(), 1, "one sign-in");
    let _ = Command::new("kill")
        .args(["-INT", &proxy.id().to_string()])
        .status();
    let _ = proxy.wait();
}
