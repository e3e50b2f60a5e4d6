//! Resources a result points to: `resources/read` on the server, and its contents read
//! leniently from the raw answer (text, or a base64 blob, with their MIME types).

use rmcp::model::{
    ClientRequest, ListResourcesRequest, PaginatedRequestParams, ReadResourceRequest,
    ReadResourceRequestParams,
};
use serde::Serialize;
use serde_json::Value;

use crate::deep_json::{DeepValue, clone_value};
use crate::session::{
    SessionError, connection::Session, requests::raw_response::RawResponse,
    requests::request_control::RequestControl,
};

/// One entry of a `resources/read` result's `contents`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceContent {
    pub uri: String,
    pub mime_type: Option<String>,
    pub body: ResourceBody,
    /// Its `_meta` (an MCP App's CSP lives there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<DeepValue>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ResourceBody {
    Text {
        text: String,
    },
    /// Base64, as sent (decoded where it is shown or saved).
    Blob {
        base64: String,
    },
    /// Neither `text` nor `blob`: what it holds, in words.
    Malformed {
        reason: String,
    },
}

impl ResourceContent {
    /// The content of an embedded `resource` block's `resource` object (or one `contents`
    /// entry): the same shape.
    pub fn from_value(value: &Value) -> Self {
        let uri = value
            .get("uri")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let mime_type = value
            .get("mimeType")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let body = match (value.get("text"), value.get("blob")) {
            (Some(Value::String(text)), _) => ResourceBody::Text { text: text.clone() },
            (_, Some(Value::String(blob))) => ResourceBody::Blob {
                base64: blob.clone(),
            },
            _ => ResourceBody::Malformed {
                reason: "it has neither a text nor a blob string".to_owned(),
            },
        };
        Self {
            uri,
            mime_type,
            body,
            meta: value.get("_meta").map(|meta| DeepValue(clone_value(meta))),
        }
    }
}

/// Why a `resources/read` answer holds no contents.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReadError {
    #[error("the server refused to read it (JSON-RPC error {code}): {message}")]
    Refused { code: i64, message: String },
    #[error("the answer's contents is not a list")]
    NotAList,
    #[error("the answer has no contents")]
    NoContents,
}

impl From<ReadError> for String {
    fn from(error: ReadError) -> Self {
        error.to_string()
    }
}

/// Whether a JSON-RPC error to `resources/read` means "no such resource": -32002 before
/// protocol 2026-07-28, -32602 (invalid params) from it on. The official TypeScript SDK
/// already answers -32602 "Resource … not found" on earlier eras, so there its message says.
pub fn is_not_found(code: i64, protocol_version: &str, message: &str) -> bool {
    let modern = crate::analysis::ProtocolEra::from_version(protocol_version)
        == crate::analysis::ProtocolEra::Modern;
    code == -32002 || (code == -32602 && (modern || message.to_lowercase().contains("not found")))
}

/// The not-found answer in words, with the code its era uses.
pub fn not_found_words(code: i64, protocol_version: &str, message: &str) -> String {
    let era = if code == -32002 {
        "-32002, \"resource not found\", the code before protocol 2026-07-28"
    } else {
        "-32602, invalid params, the code protocol 2026-07-28 gives an unknown resource (and \
         the TypeScript SDK before it)"
    };
    format!(
        "it answered JSON-RPC {era} (the server speaks {protocol_version}): {}",
        crate::text_util::one_line(message, 200)
    )
}

/// The contents of a `resources/read` answer, or what went wrong.
pub fn contents(response: &RawResponse) -> Result<Vec<ResourceContent>, ReadError> {
    if let Some((code, message)) = response.rpc_error() {
        return Err(ReadError::Refused { code, message });
    }
    let member = response.member().to_value();
    match member.get("contents") {
        Some(Value::Array(items)) => Ok(items.iter().map(ResourceContent::from_value).collect()),
        Some(_) => Err(ReadError::NotAList),
        None => Err(ReadError::NoContents),
    }
}

impl Session {
    /// The first page of `resources/list`, raw (where an MCP App's resource may declare its
    /// CSP).
    pub async fn list_resources_page(
        &self,
        control: &RequestControl,
    ) -> Result<RawResponse, SessionError> {
        let request = ClientRequest::ListResourcesRequest(ListResourcesRequest {
            method: Default::default(),
            params: Some(PaginatedRequestParams::default()),
            extensions: Default::default(),
        });
        let (response, _, _) = self.request_raw(request, "resources/list", control).await?;
        Ok(response)
    }

    /// Reads the resource `uri` from the server; the raw answer (a result or a JSON-RPC
    /// error).
    pub async fn read_resource(
        &self,
        uri: &str,
        control: &RequestControl,
    ) -> Result<RawResponse, SessionError> {
        let request = ClientRequest::ReadResourceRequest(ReadResourceRequest::new(
            ReadResourceRequestParams::new(uri),
        ));
        let (response, _, _) = self
            .request_raw(request, &format!("resources/read {uri}"), control)
            .await?;
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn not_found_is_read_per_era() {
        assert!(is_not_found(-32002, "2025-11-25", ""));
        assert!(is_not_found(-32002, "2026-07-28", ""));
        assert!(is_not_found(-32602, "2026-07-28", "bad uri"));
        assert!(is_not_found(-32602, "2025-11-25", "Resource x not found"));
        assert!(
            !is_not_found(-32602, "2025-11-25", "bad uri"),
            "invalid params, not a missing resource"
        );
        assert!(not_found_words(-32602, "2026-07-28", "no").contains("2026-07-28 gives"));
    }

    #[test]
    fn contents_are_read_leniently() {
        let response = RawResponse::new_result(
            "3",
            &json!({"contents": [
                {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hello"},
                {"uri": "file:///b.png", "mimeType": "image/png", "blob": "iVBORw=="},
                {"uri": "file:///c"}
            ]}),
        );
        let read = contents(&response).unwrap_or_default();
        assert_eq!(read.len(), 3);
        assert_eq!(
            read[0].body,
            ResourceBody::Text {
                text: "hello".to_owned()
            }
        );
        assert!(matches!(read[1].body, ResourceBody::Blob { .. }));
        assert!(matches!(read[2].body, ResourceBody::Malformed { .. }));
        let refused =
            RawResponse::new_rpc_error("4", &json!({"code": -32002, "message": "not found"}));
        assert!(
            contents(&refused)
                .err()
                .map(|error| error.to_string())
                .unwrap_or_default()
                .contains("not found")
        );
    }
}
