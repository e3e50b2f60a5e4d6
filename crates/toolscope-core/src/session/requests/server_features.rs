//! The rest of a server beside its tools: listing its resources, resource templates and
//! prompts (every page), getting a prompt, completing an argument, setting its log level, and
//! ping. Each answer is kept as the server sent it ([`RawResponse`]) and read leniently: rmcp's
//! typed model drops fields a newer server sends (`ttlMs`, `cacheScope`) and refuses answers
//! an older one gets slightly wrong.

use std::time::{Duration, Instant};

use rmcp::model::{
    ArgumentInfo, ClientRequest, CompleteRequest, CompleteRequestParams, CompletionContext,
    DiscoverRequest, DiscoverRequestParams, GetPromptRequest, GetPromptRequestParams, JsonObject,
    ListPromptsRequest, ListResourceTemplatesRequest, ListResourcesRequest, PaginatedRequestParams,
    PingRequest, Reference,
};
use serde_json::Value;

use crate::deep_json::DeepValue;
use crate::json_doc::JsonRef;
use crate::session::{
    SessionError, connection::Session, requests::raw_response::RawResponse,
    requests::request_control::RequestControl,
};

/// Pages read at most from one list (a server whose cursors never end must not hang us).
pub const MAX_PAGES: usize = 1_000;

/// What a server lists, page after page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListKind {
    Resources,
    ResourceTemplates,
    Prompts,
    /// The skills extension's `skills/list` (SEP-2640).
    Skills,
}

impl ListKind {
    pub fn method(self) -> &'static str {
        match self {
            ListKind::Resources => "resources/list",
            ListKind::ResourceTemplates => "resources/templates/list",
            ListKind::Prompts => "prompts/list",
            ListKind::Skills => "skills/list",
        }
    }

    /// The member of the result that holds the items.
    pub fn member(self) -> &'static str {
        match self {
            ListKind::Resources => "resources",
            ListKind::ResourceTemplates => "resourceTemplates",
            ListKind::Prompts => "prompts",
            ListKind::Skills => "skills",
        }
    }

    fn request(self, cursor: Option<String>) -> ClientRequest {
        let params = PaginatedRequestParams::default().with_cursor(cursor);
        match self {
            ListKind::Resources => {
                ClientRequest::ListResourcesRequest(ListResourcesRequest::with_param(params))
            }
            ListKind::ResourceTemplates => ClientRequest::ListResourceTemplatesRequest(
                ListResourceTemplatesRequest::with_param(params),
            ),
            ListKind::Prompts => {
                ClientRequest::ListPromptsRequest(ListPromptsRequest::with_param(params))
            }
            // rmcp has no type for an extension's method: its custom request carries the
            // params as written (the cursor, when there is one).
            ListKind::Skills => {
                let params = match params.cursor {
                    Some(cursor) => serde_json::json!({ "cursor": cursor }),
                    None => serde_json::json!({}),
                };
                ClientRequest::CustomRequest(rmcp::model::CustomRequest::new(
                    "skills/list",
                    Some(params),
                ))
            }
        }
    }
}

/// Every item of a list (as sent, or as read by `list_all_as`), with what was odd about the
/// pages.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Listed<T = Value> {
    pub items: Vec<T>,
    pub pages: usize,
    /// Pages whose items were not a list, a cursor sent twice, the page cap reached.
    pub problems: Vec<String>,
    /// Each page's result `_meta`, where a page had one (a 2026-07-28 server may say how long
    /// the list stays valid there).
    pub meta: Vec<Value>,
}

/// Why a list, a prompt or a completion has no answer.
#[derive(Debug, thiserror::Error)]
pub enum FeatureError {
    #[error(transparent)]
    Session(#[from] SessionError),
    /// A JSON-RPC error answer.
    #[error("the server answered with JSON-RPC error {code}: {message}")]
    Refused { code: i64, message: String },
}

impl FeatureError {
    /// The JSON-RPC error code, for an answer that was one.
    pub fn code(&self) -> Option<i64> {
        match self {
            FeatureError::Refused { code, .. } => Some(*code),
            FeatureError::Session(_) => None,
        }
    }
}

/// The result member of `response`, or its JSON-RPC error as a [`FeatureError`].
pub fn result_of(response: &RawResponse) -> Result<DeepValue, FeatureError> {
    if let Some((code, message)) = response.rpc_error() {
        return Err(FeatureError::Refused { code, message });
    }
    Ok(DeepValue(response.member().to_value()))
}

/// What to complete an argument of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompletionTarget {
    Prompt(String),
    ResourceTemplate(String),
}

/// A `completion/complete` answer, read leniently.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Completion {
    pub values: Vec<String>,
    /// How many values there are in all, when the server says.
    pub total: Option<u64>,
    pub has_more: bool,
}

impl Completion {
    pub fn from_result(result: &Value) -> Self {
        let completion = result.get("completion").unwrap_or(&Value::Null);
        Self {
            values: completion
                .get("values")
                .and_then(Value::as_array)
                .map(|values| {
                    values
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            total: completion.get("total").and_then(Value::as_u64),
            has_more: completion
                .get("hasMore")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        }
    }
}

impl Session {
    /// Every page of a list, following `nextCursor`.
    pub async fn list_all(
        &self,
        kind: ListKind,
        control: &RequestControl,
    ) -> Result<Listed, FeatureError> {
        self.list_all_as(kind, control, |item| item.to_value())
            .await
    }

    /// [`Self::list_all`], each item read by `read` from its page's document as it arrived
    /// (a page is never made a `Value` tree).
    pub async fn list_all_as<T>(
        &self,
        kind: ListKind,
        control: &RequestControl,
        read: impl Fn(JsonRef<'_>) -> T,
    ) -> Result<Listed<T>, FeatureError> {
        let mut listed = Listed {
            items: Vec::new(),
            pages: 0,
            problems: Vec::new(),
            meta: Vec::new(),
        };
        let mut cursor: Option<String> = None;
        let mut seen_cursors = std::collections::HashSet::new();
        loop {
            let label = match &cursor {
                Some(cursor) => format!("{} (cursor {cursor})", kind.method()),
                None => kind.method().to_owned(),
            };
            let (response, _, _) = self
                .request_raw(kind.request(cursor.clone()), &label, control)
                .await?;
            if let Some((code, message)) = response.rpc_error() {
                return Err(FeatureError::Refused { code, message });
            }
            let result = response.member();
            listed.pages += 1;
            match result.get(kind.member()) {
                Some(items) if items.is_array() => listed.items.extend(items.items().map(&read)),
                Some(_) => listed.problems.push(format!(
                    "page {}: `{}` is not a list",
                    listed.pages,
                    kind.member()
                )),
                None => listed.problems.push(format!(
                    "page {}: no `{}` in the answer",
                    listed.pages,
                    kind.member()
                )),
            }
            if let Some(meta) = result.get("_meta") {
                listed.meta.push(meta.to_value());
            }
            let next = result
                .get("nextCursor")
                .and_then(JsonRef::as_str)
                .map(std::borrow::Cow::into_owned);
            match next {
                None => break,
                Some(next) if !seen_cursors.insert(next.clone()) => {
                    listed.problems.push(format!(
                        "the cursor {next:?} came a second time: the list stops there"
                    ));
                    break;
                }
                Some(_) if listed.pages >= MAX_PAGES => {
                    listed
                        .problems
                        .push(format!("more than {MAX_PAGES} pages: the list stops there"));
                    break;
                }
                Some(next) => cursor = Some(next),
            }
        }
        listed.items.shrink_to_fit();
        Ok(listed)
    }

    /// The skills extension's `skills/get` of the skill whose `SKILL.md` is at `uri`: its
    /// entry, as a listing would carry it, even for a skill no listing names; the raw answer.
    pub async fn get_skill(
        &self,
        uri: &str,
        control: &RequestControl,
    ) -> Result<RawResponse, SessionError> {
        let params = serde_json::json!({ "uri": uri });
        let (response, _, _) = self
            .request_custom("skills/get", params, &format!("skills/get {uri}"), control)
            .await?;
        Ok(response)
    }

    /// `prompts/get` of `name` with `arguments`; the raw answer.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        control: &RequestControl,
    ) -> Result<RawResponse, SessionError> {
        let mut params = GetPromptRequestParams::new(name);
        if let Some(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        let request = ClientRequest::GetPromptRequest(GetPromptRequest::new(params));
        let (response, _, _) = self
            .request_raw(request, &format!("prompts/get {name}"), control)
            .await?;
        Ok(response)
    }

    /// `completion/complete` of `argument` (typed so far: `value`) of a prompt or resource
    /// template, with the other arguments already given as `context`.
    pub async fn complete(
        &self,
        target: &CompletionTarget,
        (argument, value): (&str, &str),
        context: Option<std::collections::HashMap<String, String>>,
        control: &RequestControl,
    ) -> Result<RawResponse, SessionError> {
        let reference = match target {
            CompletionTarget::Prompt(name) => Reference::for_prompt(name.clone()),
            CompletionTarget::ResourceTemplate(uri) => Reference::for_resource(uri.clone()),
        };
        let mut params = CompleteRequestParams::new(reference, ArgumentInfo::new(argument, value));
        if let Some(context) = context {
            params = params.with_context(CompletionContext::with_arguments(context));
        }
        let request = ClientRequest::CompleteRequest(CompleteRequest::new(params));
        let (response, _, _) = self
            .request_raw(request, &format!("completion/complete {argument}"), control)
            .await?;
        Ok(response)
    }

    /// Sets the level of the log messages the server sends: `logging/setLevel` before
    /// 2026-07-28 (the raw answer); from 2026-07-28, which deprecates logging (SEP-2577) and
    /// removed the request, the level goes in every later request's `_meta` (`None`: nothing
    /// was sent now).
    #[allow(
        deprecated,
        reason = "servers before 2026-07-28 take it; we say it is deprecated"
    )]
    pub async fn set_log_level(
        &self,
        level: &str,
        control: &RequestControl,
    ) -> Result<Option<RawResponse>, SessionError> {
        let level: rmcp::model::LoggingLevel =
            serde_json::from_value(Value::from(level)).map_err(|_| SessionError::Protocol {
                request: "logging/setLevel".to_owned(),
                reason: format!(
                    "{level:?} is not a log level (debug, info, notice, warning, error, \
                     critical, alert, emergency)"
                ),
            })?;
        if self.summary().is_modern_era() {
            *self
                .log_level
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(level);
            return Ok(None);
        }
        let request = ClientRequest::SetLevelRequest(rmcp::model::SetLevelRequest::new(
            rmcp::model::SetLevelRequestParams::new(level),
        ));
        let (response, _, _) = self
            .request_raw(request, "logging/setLevel", control)
            .await?;
        Ok(Some(response))
    }

    /// The request a round trip is measured with: `ping`, which protocol 2026-07-28 removed;
    /// on that era `server/discover`, the cheapest request every such server must answer.
    pub fn round_trip_method(&self) -> &'static str {
        if self.summary().is_modern_era() {
            "server/discover"
        } else {
            "ping"
        }
    }

    /// One round trip ([`Self::round_trip_method`]), or why it failed (a JSON-RPC error
    /// answer is a failure).
    pub async fn ping(&self, control: &RequestControl) -> Result<Duration, FeatureError> {
        let method = self.round_trip_method();
        let request = if method == "ping" {
            ClientRequest::PingRequest(PingRequest::default())
        } else {
            ClientRequest::DiscoverRequest(DiscoverRequest::new(DiscoverRequestParams {}))
        };
        let started = Instant::now();
        let (response, _, _) = self.request_raw(request, method, control).await?;
        let took = started.elapsed();
        result_of(&response)?;
        Ok(took)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_completion_is_read_leniently() {
        let read = Completion::from_result(&json!({
            "completion": {"values": ["Engineering", 3, "Executive"], "total": 2, "hasMore": true}
        }));
        assert_eq!(read.values, ["Engineering", "Executive"]);
        assert_eq!(read.total, Some(2));
        assert!(read.has_more);
        assert_eq!(Completion::from_result(&json!({})), Completion::default());
    }

    #[test]
    fn an_error_answer_is_refused_with_its_code() {
        let response =
            RawResponse::new_rpc_error("1", &json!({"code": -32602, "message": "no such"}));
        let error = result_of(&response).expect_err("an error");
        assert_eq!(error.code(), Some(-32602));
        assert!(error.to_string().contains("no such"));
    }
}
