//! The tools `toolscope mcp` serves, with rmcp's server API: each one's parameters, its
//! `outputSchema` (generated from what it returns, see `outputs`), the structured result and
//! a short text for the model. A request that cannot be done is a tool error (`isError`) in
//! words the agent can act on.

use rmcp::{
    RoleServer, ServerHandler,
    handler::server::{
        common::{FromContextPart, schema_for_input, schema_for_output},
        tool::ToolCallContext,
    },
    model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig},
    schemars::{self, JsonSchema},
    service::RequestContext,
    tool, tool_handler, tool_router,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{
    AgentSettings, call_out, checks,
    kept::{self, HistoryAsk},
    outputs::{CallOut, CasesOut, DiffOut, FeatureOut, HistoryOut, ServersOut, ToolsOut},
    reachable,
    server_work::{self, AgentClient, AgentToolError},
};
use crate::{engine::FeatureAsk, text_util::terminal_safe};

/// Toolscope's tools for an agent.
#[derive(Debug, Clone)]
pub struct ToolscopeAgent {
    settings: AgentSettings,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ServerParams {
    /// `demo`, or a name `list_servers` gives
    server: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CallParams {
    /// `demo`, or a name `list_servers` gives
    server: String,
    /// The tool's name, as `list_tools` gives it
    tool: String,
    /// The tool's arguments (an object; none when left out)
    #[serde(default, deserialize_with = "object_or_json_text")]
    #[schemars(with = "Map<String, Value>")]
    arguments: Option<Map<String, Value>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct HistoryParams {
    /// Only calls whose tool, server, arguments or note contain this text
    #[serde(default)]
    #[schemars(with = "String")]
    search: Option<String>,
    /// Only calls to this server
    #[serde(default)]
    #[schemars(with = "String")]
    server: Option<String>,
    /// Only calls of this tool (a read's URI, a prompt's name)
    #[serde(default)]
    #[schemars(with = "String")]
    tool: Option<String>,
    /// Only calls with this verdict: ok, tool_error, protocol_error, contract_violated,
    /// cancelled, timeout or failed
    #[serde(default)]
    #[schemars(with = "String")]
    verdict: Option<String>,
    /// Only this kind: call, read or prompt
    #[serde(default)]
    #[schemars(with = "String")]
    kind: Option<String>,
    /// Only the calls of this proxied session (ids from `sessions`)
    #[serde(default)]
    #[schemars(with = "i64")]
    session: Option<i64>,
    /// How many, newest first (default 20, at most 200)
    #[serde(default)]
    #[schemars(with = "usize")]
    limit: Option<usize>,
    /// Show this call whole (its id), both halves and the analysis, instead of listing
    #[serde(default)]
    #[schemars(with = "i64")]
    show: Option<i64>,
    /// Also list the sessions real clients ran through `toolscope proxy`
    #[serde(default)]
    sessions: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CasesParams {
    /// The case file (TOML); a relative path is taken from the project folder
    file: String,
    /// The server to run the cases on; default: the file's own [server] (the demo, or any
    /// when new servers are allowed)
    #[serde(default)]
    #[schemars(with = "String")]
    server: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DiffParams {
    /// A snapshot file written by `toolscope snapshot`
    snapshot: String,
    /// `demo`, or a name `list_servers` gives: its tools now are compared with the snapshot
    server: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadParams {
    /// `demo`, or a name `list_servers` gives
    server: String,
    /// The resource's URI
    uri: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct PromptParams {
    /// `demo`, or a name `list_servers` gives
    server: String,
    /// The prompt's name
    name: String,
    /// The prompt's arguments (strings)
    #[serde(default, deserialize_with = "object_or_json_text")]
    #[schemars(with = "Map<String, Value>")]
    arguments: Option<Map<String, Value>>,
}

/// Arguments as an object, or as the text of one: some clients (the Inspector's CLI, models
/// that quote JSON) send every value as a string.
fn object_or_json_text<'de, D>(deserializer: D) -> Result<Option<Map<String, Value>>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    use serde::de::Error as _;
    match Option::<Value>::deserialize(deserializer)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        Some(Value::String(text)) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => Ok(Some(map)),
            _ => Err(D::Error::custom(
                "`arguments` must be a JSON object (or the text of one)",
            )),
        },
        Some(_) => Err(D::Error::custom("`arguments` must be a JSON object")),
    }
}

/// A structured result with its short text for the model (made safe for a terminal: the text
/// quotes servers, and an agent may print it).
fn structured<T: Serialize>(text: String, value: &T) -> CallToolResult {
    match serde_json::to_value(value) {
        Ok(value) => {
            let text = terminal_safe(&text).into_owned();
            let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
            result.structured_content = Some(value);
            result
        }
        Err(error) => failed(&format!("the result could not be written: {error}")),
    }
}

/// A tool's arguments, read inside the tool: arguments that do not fit its `inputSchema`
/// come back as a tool error the model can read and correct (rmcp's `Parameters` answers them
/// with JSON-RPC invalid params, which many clients do not show the model).
pub struct Arguments<P>(pub Result<P, UnfitArguments>);

/// Arguments an agent sent that do not fit a tool's `inputSchema`.
#[derive(Debug, thiserror::Error)]
#[error("the arguments do not fit {tool}'s inputSchema: {error}")]
pub struct UnfitArguments {
    tool: String,
    error: serde_json::Error,
}

impl<S, P: serde::de::DeserializeOwned> FromContextPart<ToolCallContext<'_, S>> for Arguments<P> {
    fn from_context_part(context: &mut ToolCallContext<S>) -> Result<Self, rmcp::ErrorData> {
        let arguments = context.arguments.take().unwrap_or_default();
        Ok(Self(
            serde_json::from_value(Value::Object(arguments)).map_err(|error| UnfitArguments {
                tool: context.name.to_string(),
                error,
            }),
        ))
    }
}

/// The `inputSchema` of a tool taking `P` (what `Parameters<P>` would have declared).
fn input_schema_of<P: JsonSchema + std::any::Any>() -> std::sync::Arc<rmcp::model::JsonObject> {
    schema_for_input::<P>().unwrap_or_else(|error| {
        // The parameter types are this file's own: a wrong one fails every test at start.
        panic!(
            "the input schema of {} is not an object: {error}",
            std::any::type_name::<P>()
        )
    })
}

fn failed(why: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(terminal_safe(why).into_owned())])
}

fn refused(error: &AgentToolError) -> CallToolResult {
    failed(&error.to_string())
}

/// The agent as the history names it: the `clientInfo` it sent (`name version`).
fn client_of(context: &RequestContext<RoleServer>) -> AgentClient {
    let info = context
        .peer
        .peer_info()
        .map(|info| info.client_info.clone())
        .or_else(|| context.meta.client_info());
    AgentClient(match info {
        Some(info) if info.version.is_empty() => info.name,
        Some(info) => format!("{} {}", info.name, info.version),
        None => "an MCP client that did not name itself".to_owned(),
    })
}

#[tool_router]
impl ToolscopeAgent {
    pub fn new(settings: AgentSettings) -> Self {
        Self { settings }
    }

    #[tool(
        description = "The MCP servers Toolscope may reach: `demo` (built in), the ones saved in Toolscope and the ones other clients' configurations list (Claude Code, Cursor, Codex, …). Pass a name as `server` to the other tools.",
        output_schema = schema_for_output::<ServersOut>(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn list_servers(&self) -> CallToolResult {
        let out = reachable::list(&self.settings.sources, self.settings.allow_new_servers);
        let names: Vec<&str> = out.servers.iter().map(|line| line.name.as_str()).collect();
        structured(format!("servers: {}", names.join(", ")), &out)
    }

    #[tool(
        description = "A server's tools with both schemas (inputSchema, outputSchema) and annotations, as the server lists them.",
        output_schema = schema_for_output::<ToolsOut>(),
        input_schema = input_schema_of::<ServerParams>(),
        annotations(read_only_hint = true, open_world_hint = true),
    )]
    async fn list_tools(&self, Arguments(params): Arguments<ServerParams>) -> CallToolResult {
        let params = match params {
            Ok(params) => params,
            Err(why) => return failed(&why.to_string()),
        };
        match server_work::list_tools(&self.settings, &params.server).await {
            Ok(out) => {
                let names: Vec<&str> = out.tools.iter().map(|tool| tool.name.as_str()).collect();
                let text = format!(
                    "{} tool(s) on {}: {}",
                    names.len(),
                    out.server.label,
                    names.join(", ")
                );
                structured(text, &out)
            }
            Err(error) => refused(&error),
        }
    }

    #[tool(
        description = "Call a tool on a server and get both halves of its result as received (`content`: what the model reads; `structuredContent`: what the application reads) with Toolscope's analysis: verdict, output-schema contract, SDK wrapping, whether the text mirrors the structured data. Kept in Toolscope's history.",
        output_schema = schema_for_output::<CallOut>(),
        input_schema = input_schema_of::<CallParams>(),
        annotations(read_only_hint = false, destructive_hint = true, open_world_hint = true),
    )]
    async fn call_tool(
        &self,
        Arguments(params): Arguments<CallParams>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let params = match params {
            Ok(params) => params,
            Err(why) => return failed(&why.to_string()),
        };
        let client = client_of(&context);
        let arguments = params.arguments.unwrap_or_default();
        let called = server_work::call_tool(
            &self.settings,
            &client,
            &params.server,
            &params.tool,
            arguments,
            &context.ct,
        )
        .await;
        match called {
            Ok(out) => structured(call_out::summary(&out), &out),
            Err(error) => refused(&error),
        }
    }

    #[tool(
        description = "Search Toolscope's history of calls (made in the window, on the command line, by agents, or by real clients through `toolscope proxy`), list proxied sessions, or show one call again with both halves and the analysis.",
        output_schema = schema_for_output::<HistoryOut>(),
        input_schema = input_schema_of::<HistoryParams>(),
        annotations(read_only_hint = true, open_world_hint = false),
    )]
    async fn history(&self, Arguments(params): Arguments<HistoryParams>) -> CallToolResult {
        let params = match params {
            Ok(params) => params,
            Err(why) => return failed(&why.to_string()),
        };
        let ask = HistoryAsk {
            text: params.search,
            server: params.server,
            tool: params.tool,
            verdict: params.verdict,
            kind: params.kind,
            session: params.session,
            limit: params.limit,
            show: params.show,
            sessions: params.sessions,
        };
        match kept::history(&self.settings, ask).await {
            Ok(out) => structured(kept::summary(&out), &out),
            Err(error) => refused(&error),
        }
    }

    #[tool(
        description = "Run a Toolscope case file (TOML: calls with expectations) against a server: the summary and each failure. Each call is kept in the history.",
        output_schema = schema_for_output::<CasesOut>(),
        input_schema = input_schema_of::<CasesParams>(),
        annotations(read_only_hint = false, destructive_hint = true, open_world_hint = true),
    )]
    async fn run_cases(
        &self,
        Arguments(params): Arguments<CasesParams>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let params = match params {
            Ok(params) => params,
            Err(why) => return failed(&why.to_string()),
        };
        let client = client_of(&context);
        let run = checks::run_cases(
            &self.settings,
            &client,
            &params.file,
            params.server.as_deref(),
            &context.ct,
        )
        .await;
        match run {
            Ok(out) => structured(checks::cases_summary(&out), &out),
            Err(error) => refused(&error),
        }
    }

    #[tool(
        description = "Compare an interface snapshot (written by `toolscope snapshot`) with what a server lists now: tools added, removed and changed, each change breaking or compatible for clients.",
        output_schema = schema_for_output::<DiffOut>(),
        input_schema = input_schema_of::<DiffParams>(),
        annotations(read_only_hint = true, open_world_hint = true),
    )]
    async fn diff_interface(&self, Arguments(params): Arguments<DiffParams>) -> CallToolResult {
        let params = match params {
            Ok(params) => params,
            Err(why) => return failed(&why.to_string()),
        };
        match checks::diff_interface(&self.settings, &params.snapshot, &params.server).await {
            Ok(out) => structured(checks::diff_summary(&out), &out),
            Err(error) => refused(&error),
        }
    }

    #[tool(
        description = "Read a resource from a server (resources/read): its contents as received. Kept in the history.",
        output_schema = schema_for_output::<FeatureOut>(),
        input_schema = input_schema_of::<ReadParams>(),
        annotations(read_only_hint = true, open_world_hint = true),
    )]
    async fn read_resource(
        &self,
        Arguments(params): Arguments<ReadParams>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let params = match params {
            Ok(params) => params,
            Err(why) => return failed(&why.to_string()),
        };
        let ask = FeatureAsk::Read { uri: params.uri };
        self.feature(&params.server, ask, &context).await
    }

    #[tool(
        description = "Get a prompt from a server (prompts/get) with arguments: its messages as received. Kept in the history.",
        output_schema = schema_for_output::<FeatureOut>(),
        input_schema = input_schema_of::<PromptParams>(),
        annotations(read_only_hint = true, open_world_hint = true),
    )]
    async fn get_prompt(
        &self,
        Arguments(params): Arguments<PromptParams>,
        context: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let params = match params {
            Ok(params) => params,
            Err(why) => return failed(&why.to_string()),
        };
        let ask = FeatureAsk::Prompt {
            name: params.name,
            arguments: params.arguments.unwrap_or_default(),
        };
        self.feature(&params.server, ask, &context).await
    }
}

impl ToolscopeAgent {
    async fn feature(
        &self,
        server: &str,
        ask: FeatureAsk,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        let client = client_of(context);
        match server_work::feature(&self.settings, &client, server, ask, &context.ct).await {
            Ok(out) => {
                let text = format!(
                    "{} on {}: {}{}",
                    out.asked,
                    out.server,
                    out.problem.as_deref().unwrap_or("answered"),
                    out.history_id
                        .map(|id| format!(" (history #{id})"))
                        .unwrap_or_default()
                );
                structured(text, &out)
            }
            Err(error) => refused(&error),
        }
    }
}

#[tool_handler]
impl ServerHandler for ToolscopeAgent {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("toolscope", env!("CARGO_PKG_VERSION")).with_title("Toolscope"),
            )
            .with_instructions(
                "Toolscope explores MCP servers: list_servers, then list_tools and call_tool on \
                 one of them to see both halves of a result (content for the model, \
                 structuredContent for the application) and whether they agree with the \
                 output schema and each other. history finds earlier calls; run_cases and \
                 diff_interface check a server against a case file or a snapshot.",
            )
    }
}
