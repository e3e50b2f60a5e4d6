//! The demo tools. Each one shows one shape of tool result; the descriptions say which.
#![allow(
    deprecated,
    reason = "slow_task's log messages: logging is deprecated by SEP-2577"
)]

use std::{sync::Arc, time::Duration};

use base64::Engine as _;
use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    handler::server::{
        tool::{IntoCallToolResult, ToolCallContext},
        wrapper::{Json, Parameters},
    },
    model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
        JsonObject, ListToolsResult, LoggingLevel, LoggingMessageNotificationParam,
        PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig,
        SetLevelRequestParams, SubscriptionFilter,
    },
    schemars::{self, JsonSchema},
    service::{RequestContext, SubscriptionContext},
    tool, tool_handler, tool_router,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{
    bonus_tool::{self, BonusSwitch},
    log_level::LogFloor,
    png, query_engine, synthetic_tools,
};

/// The largest result `large_result` builds, in JSON nodes.
const MAX_LARGE_NODES: u64 = 5_000_000;
/// The most log messages one `slow_task` sends.
const MAX_LOG_MESSAGES: u64 = 1_000_000;

/// Why a demo tool could not do what it was asked. It is answered as a tool error
/// (`isError: true`, these words as its one text block, for the model to read), not as a
/// protocol error.
#[derive(Debug, thiserror::Error)]
pub enum DemoToolError {
    #[error(transparent)]
    Query(#[from] query_engine::QueryError),
    #[error("cannot divide {0} by zero")]
    DivideByZero(f64),
    #[error("give 1 to 32 values, not {0}")]
    ChartSize(usize),
    #[error("the chart could not be encoded as PNG")]
    ChartEncoding,
    #[error("cancelled after {done} of {steps} steps")]
    Cancelled { done: u32, steps: u32 },
    #[error("ask for at most {MAX_LARGE_NODES} nodes, not {0}")]
    TooLarge(u64),
    #[error("ask for at most {MAX_LOG_MESSAGES} log messages in all, not {0}")]
    TooChatty(u64),
}

impl IntoCallToolResult for DemoToolError {
    fn into_call_tool_result(self) -> Result<CallToolResponse, ErrorData> {
        Ok(CallToolResult::error(vec![ContentBlock::text(self.to_string())]).into())
    }
}

#[derive(Debug, Clone, Default)]
pub struct DemoServer {
    /// How many generated tools to serve beside the demo tools (paginated when non-zero).
    extra_tools: usize,
    /// Whether `bonus_echo` is listed (`toggle_bonus_tool` flips it).
    bonus: BonusSwitch,
    /// The log level the client asked for.
    log_floor: LogFloor,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AddArgs {
    /// The first addend
    a: i64,
    /// The second addend
    b: i64,
}

/// The result of a calculation, used directly as the output schema (like a Pydantic model).
#[derive(Debug, Serialize, JsonSchema)]
pub struct CalcResult {
    value: i64,
    operation: String,
    is_success: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct PrimesArgs {
    /// How many primes to return (at most 1000)
    n: u32,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct QueryArgs {
    /// A SELECT query over the tables `users` and `orders`, e.g. `SELECT name, city FROM users WHERE age > 25`
    sql: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct QueryResult {
    /// The matching rows, one object per row
    rows: Vec<Map<String, Value>>,
    /// How many rows matched
    count: usize,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FormatTableArgs {
    /// Rows to format: an array of objects, e.g. the `rows` of `query_db`
    data: Vec<Map<String, Value>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DivideArgs {
    /// The dividend
    a: f64,
    /// The divisor (0 makes the tool fail)
    b: f64,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct WeatherArgs {
    /// 城市名称,例如"北京"
    city: String,
}

/// 天气预报
#[derive(Debug, Serialize, JsonSchema)]
pub struct Weather {
    /// 城市
    #[serde(rename = "城市")]
    city: String,
    /// 天气状况
    #[serde(rename = "天气")]
    sky: String,
    /// 温度(摄氏度)
    #[serde(rename = "温度")]
    celsius: i32,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ChartArgs {
    /// Bar heights, 1 to 32 values between 0 and 100
    values: Vec<f64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SlowArgs {
    /// Number of steps (default 10, at most 600)
    #[serde(default = "default_steps")]
    steps: u32,
    /// Milliseconds per step (default 500)
    #[serde(default = "default_step_ms")]
    step_ms: u64,
    /// Log messages (notifications/message, level info) sent at each step, as a chatty
    /// server's are (default 0, at most 1000000 in all)
    #[serde(default)]
    logs_per_step: u32,
}

fn default_steps() -> u32 {
    10
}

fn default_step_ms() -> u64 {
    500
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct LargeArgs {
    /// Approximate number of JSON nodes in the result (default 100000, at most 5000000)
    #[serde(default = "default_nodes")]
    nodes: u64,
}

fn default_nodes() -> u64 {
    100_000
}

/// The schema the Python SDK generates for `-> int`: an object whose only property is `result`.
fn wrapped_schema(title: &str, item: &Value) -> Arc<JsonObject> {
    let schema = json!({
        "type": "object",
        "properties": {"result": &item},
        "required": ["result"],
        "title": title,
    });
    Arc::new(schema.as_object().cloned().unwrap_or_default())
}

fn calc_result_schema() -> Arc<JsonObject> {
    let schema = schemars::schema_for!(CalcResult);
    Arc::new(schema.as_object().cloned().unwrap_or_default())
}

fn large_result_schema() -> Arc<JsonObject> {
    let schema = json!({
        "type": "object",
        "properties": {
            "count": {"type": "integer"},
            "items": {"type": "array", "items": {"$ref": "#/$defs/item"}}
        },
        "required": ["count", "items"],
        "$defs": {"item": {
            "type": "object",
            "properties": {
                "id": {"type": "integer"},
                "label": {"type": "string"},
                "score": {"type": "number"},
                "tags": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["id", "label"]
        }}
    });
    Arc::new(schema.as_object().cloned().unwrap_or_default())
}

#[tool_router]
impl DemoServer {
    pub fn new() -> Self {
        Self::default()
    }

    /// The demo tools plus `count` generated ones (at most [`synthetic_tools::MAX_EXTRA_TOOLS`]).
    pub fn with_extra_tools(count: usize) -> Self {
        Self {
            extra_tools: count.min(synthetic_tools::MAX_EXTRA_TOOLS),
            ..Self::default()
        }
    }

    #[tool(
        description = "Add two integers. Returns a scalar, so its structured output is wrapped as {\"result\": 3} (structured output must be an object) while the text the model reads is just \"3\".",
        output_schema = wrapped_schema("addOutput", &json!({"type": "integer", "title": "Result"})),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> CallToolResult {
        let sum = a.saturating_add(b);
        let mut result = CallToolResult::success(vec![ContentBlock::text(sum.to_string())]);
        result.structured_content = Some(json!({"result": sum}));
        result
    }

    #[tool(
        description = "Add two integers and return a model (value, operation, is_success). The model itself is the output schema: no wrapping; the text is its JSON.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn add_model(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> Json<CalcResult> {
        Json(CalcResult {
            value: a.saturating_add(b),
            operation: "add".to_owned(),
            is_success: true,
        })
    }

    #[tool(
        description = "The same calculation as add_model with structured output turned off: text only, no outputSchema, so an application gets nothing typed.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn add_text_only(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        format!(
            "value={} operation='add' is_success=True",
            a.saturating_add(b)
        )
    }

    #[tool(
        description = "The first n primes. A list return is wrapped as {\"result\": [...]}, and the text has one block per item, as the Python SDK does.",
        output_schema = wrapped_schema("primesOutput", &json!({"type": "array", "items": {"type": "integer"}, "title": "Result"})),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn primes(&self, Parameters(PrimesArgs { n }): Parameters<PrimesArgs>) -> CallToolResult {
        let primes = first_primes(n.min(1000) as usize);
        let blocks = primes
            .iter()
            .map(|p| ContentBlock::text(p.to_string()))
            .collect();
        let mut result = CallToolResult::success(blocks);
        result.structured_content = Some(json!({"result": primes}));
        result
    }

    #[tool(
        description = "Query a small in-memory database (tables `users` and `orders`) with a SELECT. Returns {rows, count}: pass `rows` to format_table to chain the two tools.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn query_db(
        &self,
        Parameters(QueryArgs { sql }): Parameters<QueryArgs>,
    ) -> Result<Json<QueryResult>, DemoToolError> {
        let rows = query_engine::run(&sql)?;
        Ok(Json(QueryResult {
            count: rows.len(),
            rows,
        }))
    }

    #[tool(
        description = "Format rows (an array of objects, such as query_db's `rows`) as a Markdown table. Returns text only: it is meant for the model.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn format_table(
        &self,
        Parameters(FormatTableArgs { data }): Parameters<FormatTableArgs>,
    ) -> String {
        markdown_table(&data)
    }

    #[tool(
        description = "Divide a by b. Dividing by zero fails with isError: true: a tool error the model can read, not a protocol error.",
        output_schema = wrapped_schema("divideOutput", &json!({"type": "number", "title": "Result"})),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn divide(
        &self,
        Parameters(DivideArgs { a, b }): Parameters<DivideArgs>,
    ) -> Result<CallToolResult, DemoToolError> {
        if b == 0.0 {
            return Err(DemoToolError::DivideByZero(a));
        }
        let quotient = a / b;
        let mut result = CallToolResult::success(vec![ContentBlock::text(quotient.to_string())]);
        result.structured_content = Some(json!({"result": quotient}));
        Ok(result)
    }

    #[tool(
        description = "查询城市天气。返回中文的结构化数据(城市、天气、温度)和中文文本。",
        annotations(title = "天气查询", read_only_hint = true)
    )]
    fn weather_zh(
        &self,
        Parameters(WeatherArgs { city }): Parameters<WeatherArgs>,
    ) -> CallToolResult {
        let seed = city.chars().map(u32::from).sum::<u32>();
        let skies = ["晴", "多云", "小雨", "阴"];
        let weather = Weather {
            sky: skies[(seed % 4) as usize].to_owned(),
            celsius: (seed % 30) as i32 - 2,
            city,
        };
        let text = format!(
            "{}今天{},气温{}°C。",
            weather.city, weather.sky, weather.celsius
        );
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = serde_json::to_value(&weather).ok();
        result
    }

    #[tool(
        description = "Draw a bar chart of the given values and return it as a PNG image block. Images are for the model (and people); there is no structured output.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn chart(
        &self,
        Parameters(ChartArgs { values }): Parameters<ChartArgs>,
    ) -> Result<CallToolResult, DemoToolError> {
        if values.is_empty() || values.len() > 32 {
            return Err(DemoToolError::ChartSize(values.len()));
        }
        let image = bar_chart_png(&values).ok_or(DemoToolError::ChartEncoding)?;
        let data = base64::engine::general_purpose::STANDARD.encode(image);
        Ok(CallToolResult::success(vec![
            ContentBlock::image(data, "image/png"),
            ContentBlock::text(format!("A bar chart of {} values.", values.len())),
        ]))
    }

    #[tool(
        description = "A long-running task that reports progress every step (and, if asked, sends log messages at each, as a chatty server does) and stops when the call is cancelled.",
        output_schema = wrapped_schema("slow_taskOutput", &json!({"type": "integer", "title": "Result"})),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn slow_task(
        &self,
        Parameters(SlowArgs {
            steps,
            step_ms,
            logs_per_step,
        }): Parameters<SlowArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, DemoToolError> {
        let steps = steps.min(600);
        let messages = u64::from(steps) * u64::from(logs_per_step);
        if messages > MAX_LOG_MESSAGES {
            return Err(DemoToolError::TooChatty(messages));
        }
        let token = context.meta.get_progress_token();
        // Below the level the client asked for, the messages are not sent at all.
        let logs_per_step = if self.log_floor.sends(LoggingLevel::Info, &context.meta) {
            logs_per_step
        } else {
            0
        };
        for step in 1..=steps {
            // A zero wait is no wait (a timer would round it up to a millisecond).
            if step_ms > 0 {
                tokio::select! {
                    () = context.ct.cancelled() => {
                        return Err(DemoToolError::Cancelled { done: step - 1, steps });
                    }
                    () = tokio::time::sleep(Duration::from_millis(step_ms)) => {}
                }
            } else if context.ct.is_cancelled() {
                return Err(DemoToolError::Cancelled {
                    done: step - 1,
                    steps,
                });
            }
            for line in 0..logs_per_step {
                let data = json!(format!("step {step}: log line {line}"));
                let message = LoggingMessageNotificationParam::new(LoggingLevel::Info, data)
                    .with_logger("slow_task");
                let _ = context.peer.notify_logging_message(message).await;
            }
            if let Some(token) = &token {
                let mut progress = ProgressNotificationParam::new(token.clone(), f64::from(step));
                progress.total = Some(f64::from(steps));
                progress.message = Some(format!("step {step} of {steps}"));
                let _ = context.peer.notify_progress(progress).await;
            }
        }
        let mut result = CallToolResult::success(vec![ContentBlock::text(steps.to_string())]);
        result.structured_content = Some(json!({"result": steps}));
        Ok(result)
    }

    #[tool(
        description = "Return a large structured result of about the requested number of JSON nodes, for performance work. The text mirrors it as compact JSON.",
        output_schema = large_result_schema(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn large_result(
        &self,
        Parameters(LargeArgs { nodes }): Parameters<LargeArgs>,
    ) -> Result<CallToolResult, DemoToolError> {
        if nodes > MAX_LARGE_NODES {
            return Err(DemoToolError::TooLarge(nodes));
        }
        let value = large_value(nodes);
        let text = value.to_string();
        let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
        result.structured_content = Some(value);
        Ok(result)
    }

    #[tool(
        description = "Adds or removes the tool bonus_echo and sends notifications/tools/list_changed, so you can watch a client refresh its tool list.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn toggle_bonus_tool(&self, context: RequestContext<RoleServer>) -> String {
        let on = self.bonus.toggle();
        // 2025-11-25 clients get the notification directly; 2026-07-28 clients through their
        // subscriptions/listen stream (see `listen`), woken by the switch.
        let _ = context.peer.notify_tool_list_changed().await;
        if on {
            format!("{} is now listed", bonus_tool::NAME)
        } else {
            format!("{} is gone", bonus_tool::NAME)
        }
    }

    #[tool(
        description = "Declares CalcResult as its output schema and then breaks it on purpose: value is a string, operation a number, is_success missing. A client that validates shows each violation.",
        output_schema = calc_result_schema(),
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    fn broken_contract(&self) -> CallToolResult {
        let wrong = json!({"value": "three", "operation": 7});
        let mut result = CallToolResult::success(vec![ContentBlock::text(wrong.to_string())]);
        result.structured_content = Some(wrong);
        result
    }
}

/// The names of the demo tools (for tests of content that refers to them).
#[cfg(test)]
pub fn tool_names() -> Vec<String> {
    DemoServer::tool_router()
        .list_all()
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect()
}

#[tool_handler]
impl ServerHandler for DemoServer {
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut tools = Self::tool_router().list_all();
        if self.bonus.is_on() {
            tools.push(bonus_tool::tool());
        }
        tools.extend((0..self.extra_tools).map(synthetic_tools::tool));
        let cursor = request.as_ref().and_then(|params| params.cursor.as_deref());
        let (tools, next) = synthetic_tools::page(tools, cursor)
            .map_err(|error| ErrorData::invalid_params(error.to_string(), None))?;
        let mut result = ListToolsResult::with_all_items(tools);
        result.next_cursor = next;
        Ok(result)
    }

    fn accepted_subscription_filter(
        &self,
        _requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let mut changes = self.bonus.subscribe();
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                changed = changes.changed() => {
                    if changed.is_err() {
                        return Ok(());
                    }
                    let _ = context.sink().notify_tool_list_changed().await;
                }
            }
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.bonus.is_on() && request.name == bonus_tool::NAME {
            return Ok(bonus_tool::call(request.arguments).into());
        }
        if let Some(index) = synthetic_tools::index_of(&request.name, self.extra_tools) {
            return Ok(synthetic_tools::call(index, request.arguments).into());
        }
        let call = ToolCallContext::new(self, request, context);
        Self::tool_router().call(call).await
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log_floor.set(request.level);
        Ok(())
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                // slow_task's log messages.
                .enable_logging()
                .build(),
        )
        .with_server_info(
            Implementation::new("toolscope-demo", env!("CARGO_PKG_VERSION"))
                .with_title("Toolscope demo server"),
        )
        .with_instructions(
            "Tools that show the two halves of a tool result: `content` is what a model \
                 reads, `structuredContent` is what an application reads. Try add (a wrapped \
                 scalar), add_model (a model as the schema), add_text_only (structured output \
                 off), query_db then format_table (chaining), divide by 0 (a tool error) and \
                 broken_contract (a schema violation).",
        )
    }
}

fn first_primes(count: usize) -> Vec<u64> {
    let mut primes: Vec<u64> = Vec::with_capacity(count);
    let mut candidate = 2u64;
    while primes.len() < count {
        if primes
            .iter()
            .take_while(|p| *p * *p <= candidate)
            .all(|p| !candidate.is_multiple_of(*p))
        {
            primes.push(candidate);
        }
        candidate += 1;
    }
    primes
}

fn markdown_table(rows: &[Map<String, Value>]) -> String {
    let mut columns: Vec<&String> = Vec::new();
    for row in rows {
        for key in row.keys() {
            if !columns.contains(&key) {
                columns.push(key);
            }
        }
    }
    if columns.is_empty() {
        return "(no rows)".to_owned();
    }
    let cell = |value: Option<&Value>| match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.replace('|', "\\|"),
        Some(other) => other.to_string(),
    };
    let mut table = format!(
        "| {} |\n|{}|\n",
        columns
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>()
            .join(" | "),
        columns.iter().map(|_| "---").collect::<Vec<_>>().join("|")
    );
    for row in rows {
        let cells: Vec<String> = columns.iter().map(|c| cell(row.get(*c))).collect();
        table.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    table.push_str(&format!("\n{} row(s)", rows.len()));
    table
}

fn bar_chart_png(values: &[f64]) -> Option<Vec<u8>> {
    const WIDTH: u32 = 320;
    const HEIGHT: u32 = 160;
    let mut pixels = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
    let slot = WIDTH as usize / values.len();
    for (index, value) in values.iter().enumerate() {
        let bar = ((value.clamp(0.0, 100.0) / 100.0) * f64::from(HEIGHT - 10)) as usize;
        let left = index * slot + slot / 6;
        let right = (index + 1) * slot - slot / 6;
        for y in (HEIGHT as usize - bar)..HEIGHT as usize {
            for x in left..right.max(left + 1) {
                let at = (y * WIDTH as usize + x) * 3;
                pixels[at..at + 3].copy_from_slice(&[66, 120, 200]);
            }
        }
    }
    png::encode_rgb(WIDTH, HEIGHT, pixels)
}

/// About `nodes` JSON nodes: each item is 8 nodes (object, 4 members, tags array + 2 tags).
fn large_value(nodes: u64) -> Value {
    let count = (nodes / 8).max(1);
    let items: Vec<Value> = (0..count)
        .map(|id| {
            json!({
                "id": id,
                "label": format!("item {id}"),
                "score": (id % 1000) as f64 / 10.0,
                "tags": [if id % 2 == 0 { "even" } else { "odd" }, format!("g{}", id % 16)]
            })
        })
        .collect();
    json!({"count": count, "items": items})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primes_and_table() {
        assert_eq!(first_primes(5), vec![2, 3, 5, 7, 11]);
        let rows = query_engine::run("SELECT name FROM users LIMIT 2").unwrap();
        let table = markdown_table(&rows);
        assert!(table.starts_with("| name |\n|---|\n| Ada |"), "{table}");
    }

    #[test]
    fn large_value_has_requested_size() {
        let value = large_value(8000);
        assert_eq!(value["count"], 1000);
    }
}
