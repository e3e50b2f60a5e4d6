//! The host's side of the MCP Apps bridge as a protocol, without I/O: what a message from the
//! app (the View) asks, the answer to `ui/initialize`, and the notifications held until the
//! app says it is initialized (the spec: nothing goes to the View before
//! `ui/notifications/initialized`, and `tool-input` comes before `tool-result`).

use serde_json::{Map, Value, json};

/// The dialect's version this host speaks (ext-apps' `LATEST_PROTOCOL_VERSION`).
pub const APPS_PROTOCOL_VERSION: &str = "2026-01-26";

/// JSON-RPC: no such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: the params are not what the method takes.
pub const INVALID_PARAMS: i64 = -32602;
/// Implementation-defined: refused by the host or the person.
pub const REFUSED: i64 = -32000;

/// What a message from the app is.
#[derive(Debug, Clone, PartialEq)]
pub enum FromView {
    /// A request the host answers itself at once (`ui/initialize`, `ping`, an unknown
    /// method): the reply to send.
    Reply(Value),
    /// `ui/notifications/initialized`: the held notifications, to send now.
    Initialized(Vec<Value>),
    /// A request the host must do something for; answer it with [`reply`] or [`refusal`].
    Ask { id: Value, ask: ViewAsk },
    /// A notification for the person (a size, a log line, a wish to be torn down).
    Told(ViewNotice),
    /// A response to a request the host sent (`ui/resource-teardown`).
    Answer { id: Value },
    /// Not a JSON-RPC message, or one this host does not take: why.
    Ignored(String),
}

/// What the app asks of its host.
#[derive(Debug, Clone, PartialEq)]
pub enum ViewAsk {
    CallTool {
        name: String,
        arguments: Map<String, Value>,
    },
    ReadResource {
        uri: String,
    },
    ListTools,
    ListResources,
    OpenLink {
        url: String,
    },
    /// A message to add to the conversation: what the model would receive.
    Message {
        role: String,
        content: Vec<Value>,
    },
    UpdateModelContext {
        params: Value,
    },
    RequestDisplayMode {
        mode: String,
    },
}

/// What the app tells its host.
#[derive(Debug, Clone, PartialEq)]
pub enum ViewNotice {
    SizeChanged {
        width: Option<f64>,
        height: Option<f64>,
    },
    Log {
        level: String,
        data: Value,
    },
    RequestTeardown,
}

/// The bridge's state on the host's side.
#[derive(Debug, Default)]
pub struct Bridge {
    initialized: bool,
    /// Host → View notifications waiting for `initialized`, in order.
    held: Vec<Value>,
    /// The app's `appInfo` from `ui/initialize`.
    pub app_info: Option<Value>,
    next_request: i64,
}

impl Bridge {
    pub fn is_initialized(&self) -> bool {
        self.initialized
    }

    /// The app's name and version (`Get Time App 1.0.0`), once it said them.
    pub fn app_name(&self) -> Option<String> {
        let info = self.app_info.as_ref()?;
        let name = info.get("name")?.as_str()?;
        Some(match info.get("version").and_then(Value::as_str) {
            Some(version) => format!("{name} {version}"),
            None => name.to_owned(),
        })
    }

    /// A notification to the app: sent now (returned) once it is initialized, else held.
    pub fn notify(&mut self, method: &str, params: Value) -> Option<Value> {
        let message = json!({"jsonrpc": "2.0", "method": method, "params": params});
        if self.initialized {
            Some(message)
        } else {
            self.held.push(message);
            None
        }
    }

    /// A request to the app (`ui/resource-teardown`), with an id of the host's own.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_request += 1;
        json!({"jsonrpc": "2.0", "id": format!("host-{}", self.next_request), "method": method, "params": params})
    }

    /// Reads one message from the app; `host` answers `ui/initialize`.
    pub fn read(&mut self, message: &Value, host: &HostSide) -> FromView {
        if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return FromView::Ignored("not a JSON-RPC 2.0 message".to_owned());
        }
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            return match message.get("id") {
                Some(id) if message.get("result").is_some() || message.get("error").is_some() => {
                    FromView::Answer { id: id.clone() }
                }
                _ => FromView::Ignored("neither a request, a notification nor a response".into()),
            };
        };
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        match message.get("id").cloned() {
            None => self.notification(method, params),
            Some(id) => self.request_from_view(id, method, params, host),
        }
    }

    fn notification(&mut self, method: &str, params: Value) -> FromView {
        match method {
            "ui/notifications/initialized" => {
                self.initialized = true;
                FromView::Initialized(std::mem::take(&mut self.held))
            }
            "ui/notifications/size-changed" => FromView::Told(ViewNotice::SizeChanged {
                width: params.get("width").and_then(Value::as_f64),
                height: params.get("height").and_then(Value::as_f64),
            }),
            "notifications/message" => FromView::Told(ViewNotice::Log {
                level: params
                    .get("level")
                    .and_then(Value::as_str)
                    .unwrap_or("info")
                    .to_owned(),
                data: params.get("data").cloned().unwrap_or(Value::Null),
            }),
            "ui/notifications/request-teardown" => FromView::Told(ViewNotice::RequestTeardown),
            other if other.starts_with("ui/notifications/sandbox-") => {
                FromView::Ignored(format!("{other} is between the page and its sandbox"))
            }
            other => FromView::Ignored(format!("a notification this host does not take: {other}")),
        }
    }

    fn request_from_view(
        &mut self,
        id: Value,
        method: &str,
        params: Value,
        host: &HostSide,
    ) -> FromView {
        let ask = match method {
            "ui/initialize" => {
                self.app_info = params.get("appInfo").cloned();
                // The one version this host speaks (an app that asks for another gets it and
                // decides).
                let version = APPS_PROTOCOL_VERSION;
                return FromView::Reply(reply(
                    &id,
                    json!({
                        "protocolVersion": version,
                        "hostInfo": {"name": "toolscope", "version": env!("CARGO_PKG_VERSION")},
                        "hostCapabilities": host.capabilities(),
                        "hostContext": host.context(),
                    }),
                ));
            }
            "ping" => return FromView::Reply(reply(&id, json!({}))),
            "tools/call" => match params.get("name").and_then(Value::as_str) {
                Some(name) => ViewAsk::CallTool {
                    name: name.to_owned(),
                    arguments: params
                        .get("arguments")
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or_default(),
                },
                None => return bad_params(&id, "tools/call needs a name"),
            },
            "resources/read" => match params.get("uri").and_then(Value::as_str) {
                Some(uri) => ViewAsk::ReadResource {
                    uri: uri.to_owned(),
                },
                None => return bad_params(&id, "resources/read needs a uri"),
            },
            "tools/list" => ViewAsk::ListTools,
            "resources/list" => ViewAsk::ListResources,
            "ui/open-link" => match params.get("url").and_then(Value::as_str) {
                Some(url) => ViewAsk::OpenLink {
                    url: url.to_owned(),
                },
                None => return bad_params(&id, "ui/open-link needs a url"),
            },
            "ui/message" => {
                // The spec shows one content block; the SDK sends a list: both are taken.
                let content = match params.get("content") {
                    Some(Value::Array(blocks)) => blocks.clone(),
                    Some(block @ Value::Object(_)) => vec![block.clone()],
                    _ => return bad_params(&id, "ui/message needs content"),
                };
                ViewAsk::Message {
                    role: params
                        .get("role")
                        .and_then(Value::as_str)
                        .unwrap_or("user")
                        .to_owned(),
                    content,
                }
            }
            "ui/update-model-context" => ViewAsk::UpdateModelContext { params },
            "ui/request-display-mode" => ViewAsk::RequestDisplayMode {
                mode: params
                    .get("mode")
                    .and_then(Value::as_str)
                    .unwrap_or("inline")
                    .to_owned(),
            },
            other => {
                return FromView::Reply(refusal(
                    &id,
                    METHOD_NOT_FOUND,
                    &format!("this host does not take {other}"),
                ));
            }
        };
        FromView::Ask { id, ask }
    }
}

/// What the host offers and tells the app about itself.
#[derive(Debug, Clone)]
pub struct HostSide {
    /// The tool whose result the app shows, as listed.
    pub tool: Value,
    pub theme: &'static str,
    /// What the resource declared, as granted.
    pub csp: Value,
    pub permissions: Value,
    /// BCP 47 (`en-US`), when this machine says.
    pub locale: Option<String>,
    /// IANA (`Europe/Paris`), when this machine says.
    pub time_zone: Option<String>,
}

impl HostSide {
    fn capabilities(&self) -> Value {
        json!({
            "openLinks": {},
            "serverTools": {},
            "serverResources": {},
            "logging": {},
            "message": {"text": {}},
            "updateModelContext": {"text": {}, "structuredContent": {}},
            "sandbox": {"csp": self.csp, "permissions": self.permissions},
        })
    }

    fn context(&self) -> Value {
        let mut context = json!({
            "toolInfo": {"tool": self.tool},
            "theme": self.theme,
            "displayMode": "inline",
            "availableDisplayModes": ["inline"],
            "containerDimensions": {"maxHeight": 6000},
            "platform": "web",
        });
        if let Some(locale) = &self.locale {
            context["locale"] = json!(locale);
        }
        if let Some(zone) = &self.time_zone {
            context["timeZone"] = json!(zone);
        }
        context
    }
}

/// A response carrying `result`.
pub fn reply(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response.
pub fn refusal(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn bad_params(id: &Value, why: &str) -> FromView {
    FromView::Reply(refusal(id, INVALID_PARAMS, why))
}

/// The method of a message (`→ result` for a response), for the log.
pub fn method_of(message: &Value) -> String {
    match message.get("method").and_then(Value::as_str) {
        Some(method) => method.to_owned(),
        None if message.get("error").is_some() => "error".to_owned(),
        None => "result".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host() -> HostSide {
        HostSide {
            tool: json!({"name": "get-time"}),
            theme: "light",
            csp: json!({}),
            permissions: json!({}),
            locale: Some("en-US".to_owned()),
            time_zone: None,
        }
    }

    #[test]
    fn initialize_is_answered_with_every_field_and_notifications_wait_for_initialized() {
        let mut bridge = Bridge::default();
        assert_eq!(
            bridge.notify("ui/notifications/tool-input", json!({"arguments": {}})),
            None
        );
        assert_eq!(
            bridge.notify("ui/notifications/tool-result", json!({"content": []})),
            None
        );
        let answer = bridge.read(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "ui/initialize",
                    "params": {"appInfo": {"name": "Get Time App", "version": "1.0.0"},
                               "appCapabilities": {}, "protocolVersion": "2026-01-26"}}),
            &host(),
        );
        let FromView::Reply(reply) = answer else {
            panic!("{answer:?}")
        };
        assert_eq!(reply["id"], 0, "an id of 0 is an id");
        for field in [
            "protocolVersion",
            "hostInfo",
            "hostCapabilities",
            "hostContext",
        ] {
            assert!(reply["result"].get(field).is_some(), "{field} in {reply}");
        }
        assert_eq!(bridge.app_name().as_deref(), Some("Get Time App 1.0.0"));
        let FromView::Initialized(held) = bridge.read(
            &json!({"jsonrpc": "2.0", "method": "ui/notifications/initialized"}),
            &host(),
        ) else {
            panic!()
        };
        let methods: Vec<&str> = held
            .iter()
            .map(|m| m["method"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(
            methods,
            [
                "ui/notifications/tool-input",
                "ui/notifications/tool-result"
            ]
        );
        assert!(
            bridge
                .notify("ui/notifications/host-context-changed", json!({}))
                .is_some()
        );
    }

    #[test]
    fn requests_become_asks_and_unknown_ones_are_refused() {
        let mut bridge = Bridge::default();
        let asked = bridge.read(
            &json!({"jsonrpc": "2.0", "id": 3, "method": "ui/message",
                    "params": {"role": "user", "content": [{"type": "text", "text": "hi"}]}}),
            &host(),
        );
        assert!(
            matches!(
                asked,
                FromView::Ask {
                    ask: ViewAsk::Message { .. },
                    ..
                }
            ),
            "{asked:?}"
        );
        let FromView::Reply(refused) = bridge.read(
            &json!({"jsonrpc": "2.0", "id": 4, "method": "sampling/createMessage"}),
            &host(),
        ) else {
            panic!()
        };
        assert_eq!(refused["error"]["code"], METHOD_NOT_FOUND);
        assert!(matches!(
            bridge.read(&json!({"hello": 1}), &host()),
            FromView::Ignored(_)
        ));
    }
}
