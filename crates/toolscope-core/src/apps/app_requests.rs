//! Answering what an MCP App asks of its host: its own `tools/call` through the one call
//! pipeline (refused for a tool its server does not list or hides from apps), reads and lists
//! from its own server, a link the person decides on, and what it would tell the model.

use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

use super::{
    bridge::{REFUSED, ViewAsk, refusal, reply},
    bridge_log::Direction,
    host::{AppEvent, Shared},
};
use crate::{
    engine::{self, CallWish, FeatureAsk},
    history::CalledServer,
    session::RequestControl,
};

/// How long a link the app asks to open waits for the person.
const LINK_WAIT: std::time::Duration = std::time::Duration::from_secs(300);

/// The answer to what the app asked.
pub(super) async fn answer(shared: &Shared, id: &Value, ask: ViewAsk) -> Value {
    let run = &shared.run;
    match ask {
        ViewAsk::CallTool { name, arguments } => call_tool(shared, id, &name, arguments).await,
        ViewAsk::ReadResource { uri } => {
            let control = RequestControl::with_timeouts(run.timeouts);
            let request = json!({"method": "resources/read", "params": {"uri": uri}});
            shared.log(Direction::ToServer, &request, None);
            // Through the one way a read is made, so it is kept like the app's calls.
            let answer =
                engine::feature::ask(&run.session, FeatureAsk::Read { uri }, &control).await;
            keep(shared, answer.history_row(called_server(shared)));
            match &answer.response {
                Ok(response) => server_answer(shared, id, response),
                Err(error) => refusal(id, REFUSED, &error.to_string()),
            }
        }
        ViewAsk::ListTools => {
            let tools: Vec<Value> = run
                .catalog
                .iter()
                .flat_map(|catalog| catalog.tools.iter())
                .filter(|tool| visible_to_apps(&tool.raw))
                .map(|tool| tool.raw.clone())
                .collect();
            reply(id, json!({"tools": tools}))
        }
        ViewAsk::ListResources => {
            let control = RequestControl::with_timeouts(run.timeouts);
            shared.log(
                Direction::ToServer,
                &json!({"method": "resources/list"}),
                None,
            );
            match run.session.list_resources_page(&control).await {
                Ok(response) => server_answer(shared, id, &response),
                Err(error) => refusal(id, REFUSED, &error.to_string()),
            }
        }
        ViewAsk::OpenLink { url } => open_link(shared, id, &url).await,
        ViewAsk::Message { role, content } => {
            let text = content
                .iter()
                .filter_map(|block| block.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n");
            shared.note(
                "ui/message",
                format!("the model would receive, as the {role}: {text}"),
            );
            reply(id, json!({}))
        }
        ViewAsk::UpdateModelContext { params } => {
            shared.note(
                "ui/update-model-context",
                format!(
                    "the model's context would now hold: {}",
                    crate::text_util::one_line(&params.to_string(), 400)
                ),
            );
            reply(id, json!({}))
        }
        ViewAsk::RequestDisplayMode { mode } => {
            if mode != "inline" {
                shared.note(
                    "ui/request-display-mode",
                    format!("the app asked for {mode}; this host shows apps inline only"),
                );
            }
            reply(id, json!({"mode": "inline"}))
        }
    }
}

/// The app's own `tools/call`, through the one call pipeline, refused for a tool the app
/// may not see or its server does not list.
async fn call_tool(
    shared: &Shared,
    id: &Value,
    name: &str,
    arguments: Map<String, Value>,
) -> Value {
    let run = &shared.run;
    let listed = run
        .catalog
        .as_deref()
        .and_then(|catalog| catalog.find(name));
    match listed {
        None if run.catalog.is_some() => {
            let why = format!("{name} is not a tool of this app's server");
            shared.note("tools/call", format!("refused: {why}"));
            return refusal(id, REFUSED, &why);
        }
        Some(tool) if !visible_to_apps(&tool.raw) => {
            let why = format!("{name} is not visible to apps (its _meta.ui.visibility)");
            shared.note("tools/call", format!("refused: {why}"));
            return refusal(id, REFUSED, &why);
        }
        _ => {}
    }
    shared.log(
        Direction::ToServer,
        &json!({"method": "tools/call", "params": {"name": name, "arguments": arguments}}),
        None,
    );
    let control = RequestControl::with_timeouts(run.timeouts);
    let made = match engine::call(
        &run.session,
        run.catalog.as_deref(),
        name,
        arguments,
        CallWish::default(),
        &control,
    )
    .await
    {
        Ok(made) => made,
        Err(refused) => return refusal(id, REFUSED, &refused.to_string()),
    };
    keep(shared, made.history_row(called_server(shared)));
    match &made.ended {
        Ok(answered) => server_answer(shared, id, &answered.outcome.response),
        Err(error) => refusal(id, REFUSED, &error.to_string()),
    }
}

fn called_server(shared: &Shared) -> CalledServer<'_> {
    CalledServer {
        label: &shared.run.server_label,
        summary: Some(shared.run.session.summary()),
    }
}

/// A request the app made, handed to the face for the history with the app's name as the
/// client.
fn keep(shared: &Shared, mut row: crate::history::NewCall) {
    row.client = shared
        .app_name
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()
        .or_else(|| Some("an MCP App".to_owned()));
    (shared.events)(AppEvent::Called(Box::new(row)));
}

/// The server's answer, passed on to the app under the app's id.
fn server_answer(shared: &Shared, id: &Value, response: &crate::session::RawResponse) -> Value {
    if let Some((code, message)) = response.rpc_error() {
        shared.log(
            Direction::FromServer,
            &json!({"error": {"code": code, "message": message}}),
            None,
        );
        return refusal(id, code, &message);
    }
    let result = response.member().to_value();
    shared.log(Direction::FromServer, &json!({"result": result}), None);
    reply(id, result)
}

/// Whether a tool's `_meta.ui.visibility` lets an app call it (absent: model and app).
fn visible_to_apps(tool: &Value) -> bool {
    match tool
        .pointer("/_meta/ui/visibility")
        .and_then(Value::as_array)
    {
        Some(visibility) => visibility.iter().any(|who| who == "app"),
        None => true,
    }
}

/// A link the app asks to open: the person decides; nothing but http(s) is offered.
async fn open_link(shared: &Shared, id: &Value, url: &str) -> Value {
    let web = url::Url::parse(url).is_ok_and(|parsed| matches!(parsed.scheme(), "http" | "https"));
    if !web {
        shared.note(
            "ui/open-link",
            format!("refused: {url} is not an http(s) link"),
        );
        return reply(id, json!({"isError": true}));
    }
    let (answer, decided) = oneshot::channel();
    (shared.events)(AppEvent::OpenLink {
        url: url.to_owned(),
        answer,
    });
    let yes = matches!(tokio::time::timeout(LINK_WAIT, decided).await, Ok(Ok(true)));
    if !yes {
        shared.note(
            "ui/open-link",
            format!("not opened: the person said no to {url}"),
        );
        return reply(id, json!({"isError": true}));
    }
    match (shared.run.opener)(url) {
        Ok(how) => {
            shared.note("ui/open-link", format!("{url} opened ({how})"));
            reply(id, json!({}))
        }
        Err(error) => {
            shared.note(
                "ui/open-link",
                format!("{url} could not be opened: {error}"),
            );
            reply(id, json!({"isError": true}))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visibility_without_app_keeps_a_tool_from_apps() {
        assert!(visible_to_apps(&json!({"name": "a"})));
        assert!(!visible_to_apps(
            &json!({"_meta": {"ui": {"visibility": ["model"]}}})
        ));
        assert!(visible_to_apps(
            &json!({"_meta": {"ui": {"visibility": ["model", "app"]}}})
        ));
    }
}
