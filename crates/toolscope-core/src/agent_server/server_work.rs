//! The work on a server an agent asks for, each on a session of its own that is closed (its
//! process ended and reaped) before the answer goes back: its tools listed, a tool called, a
//! resource read, a prompt got. Each call, read and prompt is kept in the history with the
//! agent's client name.

use crate::text_util::clip_chars;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::{
    AgentSettings, bounded_json, call_out,
    kept::{self, Kept},
    outputs::{CallOut, FeatureOut, ServerOut, ToolOut, ToolsOut},
    reachable::{self, NotReachable, Reachable},
};
use crate::{
    auth::AuthOptions,
    engine::{self, CallRefused, CallWish, ConnectError, FeatureAsk, ReachError, ServerView},
    history::{CalledServer, HistoryError, NewCall},
    session::{ConnectOptions, RequestControl, ServerConfig, ServerSummary, events::ignore_events},
};

/// Why an agent's request was not done, in words it can act on.
#[derive(Debug, thiserror::Error)]
pub enum AgentToolError {
    #[error(transparent)]
    NotReachable(#[from] NotReachable),
    #[error("{server} was not reached: {error}")]
    Reach { server: String, error: ReachError },
    #[error("{server} was not reached: {error}")]
    Connect { server: String, error: ConnectError },
    #[error("{0}; call it from Toolscope's window or `toolscope call --force` if you mean it")]
    Refused(CallRefused),
    #[error("the history cannot be read: {0}")]
    History(#[from] HistoryError),
    #[error("{0}")]
    Input(String),
}

/// The agent a request came from, as the history names it (`name version`).
#[derive(Debug, Clone)]
pub struct AgentClient(pub String);

impl AgentSettings {
    pub(super) fn reachable(&self, server: &str) -> Result<Reachable, NotReachable> {
        reachable::resolve(server, &self.sources, self.allow_new_servers)
    }

    /// How a session to `config` starts: the settings' timeouts; an HTTP server with the
    /// tokens kept from a sign-in, never a new sign-in (nobody is at a browser).
    pub(super) fn connect_options(&self, config: &ServerConfig) -> ConnectOptions {
        let auth = match config {
            ServerConfig::Http { .. } => (self.open_secrets)()
                .ok()
                .map(|store| AuthOptions::new(store, None)),
            ServerConfig::Stdio { .. } => None,
        };
        ConnectOptions {
            auth,
            ..ConnectOptions::new(self.timeouts, ignore_events())
        }
    }

    pub(super) fn secrets(&self) -> engine::OpenSecrets {
        let open = self.open_secrets;
        Box::new(open)
    }

    /// A request's control: the settings' timeouts, cancelled when the agent cancels.
    pub(super) fn control(&self, cancel: &CancellationToken) -> RequestControl {
        RequestControl {
            cancel: cancel.child_token(),
            ..RequestControl::with_timeouts(self.timeouts)
        }
    }

    pub(super) async fn reach(
        &self,
        target: &Reachable,
        options: ConnectOptions,
    ) -> Result<engine::Reached, AgentToolError> {
        engine::reach(&target.label, &target.config, self.secrets(), options)
            .await
            .map_err(|error| AgentToolError::Reach {
                server: target.label.clone(),
                error,
            })
    }
}

fn server_out(label: &str, summary: &ServerSummary) -> ServerOut {
    ServerOut {
        label: label.to_owned(),
        name: summary.name.clone(),
        version: summary.version.clone(),
        protocol_version: summary.protocol_version.clone(),
    }
}

/// `list_tools`: every tool with both schemas.
pub async fn list_tools(
    settings: &AgentSettings,
    server: &str,
) -> Result<ToolsOut, AgentToolError> {
    let target = settings.reachable(server)?;
    let reached = settings
        .reach(&target, settings.connect_options(&target.config))
        .await?;
    let mut warnings: Vec<String> = reached.warning.iter().map(ToString::to_string).collect();
    let tools = reached.catalog.as_ref().map_or_else(Vec::new, |catalog| {
        warnings.extend(catalog.warnings.iter().cloned());
        catalog
            .tools
            .iter()
            .map(|tool| {
                let what = |part: &str| format!("{}'s {part}", tool.name);
                ToolOut {
                    name: tool.name.clone(),
                    // A server's texts are bounded like its JSON (a 50 MB description must
                    // not fill the agent's context).
                    title: tool
                        .title
                        .as_deref()
                        .map(|title| clip_chars(title, bounded_json::MAX_TEXT_CHARS)),
                    description: tool
                        .description
                        .as_deref()
                        .map(|text| clip_chars(text, bounded_json::MAX_TEXT_CHARS)),
                    input_schema: bounded_json::copy(
                        tool.input_schema.as_ref(),
                        &what("inputSchema"),
                        &mut warnings,
                    ),
                    output_schema: bounded_json::copy(
                        tool.output_schema.as_ref(),
                        &what("outputSchema"),
                        &mut warnings,
                    ),
                    annotations: bounded_json::copy(
                        tool.raw.get("annotations").filter(|value| !value.is_null()),
                        &what("annotations"),
                        &mut warnings,
                    ),
                    problems: tool.problems.clone(),
                }
            })
            .collect()
    });
    let out = ToolsOut {
        server: server_out(&target.label, reached.session.summary()),
        tools,
        warnings,
    };
    reached.session.close().await;
    Ok(out)
}

/// `call_tool`: the call planned and made as every face makes it, kept in the history.
pub async fn call_tool(
    settings: &AgentSettings,
    client: &AgentClient,
    server: &str,
    tool: &str,
    arguments: Map<String, Value>,
    cancel: &CancellationToken,
) -> Result<CallOut, AgentToolError> {
    let target = settings.reachable(server)?;
    let reached = settings
        .reach(&target, settings.connect_options(&target.config))
        .await?;
    let session = &reached.session;
    let view = ServerView::of(session, reached.catalog.as_ref());
    let plan = match engine::plan(view, tool, CallWish::default()) {
        Ok(plan) => plan,
        Err(refused) => {
            reached.session.close().await;
            return Err(AgentToolError::Refused(refused));
        }
    };
    let mut notes: Vec<String> = reached.warning.iter().map(ToString::to_string).collect();
    notes.extend(plan.notes.iter().cloned());
    let made = engine::make(session, plan, arguments, &settings.control(cancel)).await;
    let server_named = CalledServer {
        label: &target.label,
        summary: Some(session.summary()),
    };
    let kept = kept::record(
        settings,
        with_client(made.history_row(server_named), client),
    )
    .await;
    notes.extend(kept.problem.clone());
    let facts = call_out::CallFacts {
        server: &target.label,
        tool,
        listed: made.plan.listed,
        arguments: &made.arguments,
        duration: Some(made.waited),
        history_id: kept.id,
        notes,
    };
    let out = call_out::of_made(facts, &made);
    reached.session.close().await;
    Ok(out)
}

/// `read_resource` and `get_prompt`: asked as every face asks, kept in the history.
pub async fn feature(
    settings: &AgentSettings,
    client: &AgentClient,
    server: &str,
    ask: FeatureAsk,
    cancel: &CancellationToken,
) -> Result<FeatureOut, AgentToolError> {
    let target = settings.reachable(server)?;
    let session = engine::connect(
        &target.label,
        &target.config,
        settings.secrets(),
        settings.connect_options(&target.config),
    )
    .await
    .map_err(|error| AgentToolError::Connect {
        server: target.label.clone(),
        error,
    })?;
    let answer = engine::feature::ask(&session, ask, &settings.control(cancel)).await;
    let server_named = CalledServer {
        label: &target.label,
        summary: Some(session.summary()),
    };
    let Kept { id, problem } = kept::record(
        settings,
        with_client(answer.history_row(server_named), client),
    )
    .await;
    let mut withheld = Vec::new();
    let result = match &answer.response {
        Ok(response) if !response.is_rpc_error() => {
            bounded_json::member(Some(response.member()), "the result", &mut withheld)
        }
        _ => None,
    };
    let out = FeatureOut {
        server: target.label.clone(),
        asked: answer.ask.describe(),
        duration_ms: u64::try_from(answer.duration.as_millis()).unwrap_or(u64::MAX),
        history_id: id,
        result,
        problem: answer.problem(),
        withheld,
        notes: problem.into_iter().collect(),
    };
    session.close().await;
    Ok(out)
}

/// A row stamped with the agent it came from.
pub(super) fn with_client(row: NewCall, client: &AgentClient) -> NewCall {
    NewCall {
        client: Some(client.0.clone()),
        ..row
    }
}
