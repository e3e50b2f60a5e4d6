//! How `call` answers what a server asks without a person: by its flags. Elicitation is
//! declined unless `--elicit` or `--elicit-answer` says otherwise; sampling is refused unless
//! `--sample` gives the reply; roots are the `--root` folders.

use std::{path::PathBuf, sync::Arc};

use clap::{Args, ValueEnum};
use serde_json::Value;

use crate::{
    answers::{ElicitationForm, SamplingReply, elicit_result, sampling::DEFAULT_MODEL},
    session::{
        AskReply, ClientRoot, ClientSide, ServerAsk,
        asks::{ELICITATION, NOT_DECLARED_CODE, REFUSED_CODE, SAMPLING},
        client_side::RootsList,
    },
};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ElicitPolicy {
    /// Accept with each field's default (a required field without one declines)
    AcceptDefaults,
    Decline,
    Cancel,
}

#[derive(Debug, Args)]
pub struct AnswerFlags {
    /// Answer elicitation requests: accept-defaults, decline or cancel [default: decline]
    #[arg(long, value_enum, value_name = "HOW")]
    pub elicit: Option<ElicitPolicy>,
    /// Accept elicitation requests with this content (a JSON object)
    #[arg(long, value_name = "JSON", conflicts_with = "elicit")]
    pub elicit_answer: Option<String>,
    /// Reply to sampling requests with this text (without it, sampling is declined)
    #[arg(long, value_name = "TEXT")]
    pub sample: Option<String>,
    /// Offer this folder to the server as a root (repeatable)
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
}

impl AnswerFlags {
    /// The client side these flags make, or what is wrong with them.
    pub fn client_side(&self) -> Result<ClientSide, String> {
        let content = match &self.elicit_answer {
            Some(text) => {
                let value = crate::deep_json::parse(text)
                    .map_err(|error| format!("--elicit-answer is not JSON: {error}"))?;
                if !value.is_object() {
                    return Err("--elicit-answer must be a JSON object".to_owned());
                }
                Some(value)
            }
            None => None,
        };
        let roots = self
            .roots
            .iter()
            .map(|path| ClientRoot::from_path(path).map_err(|error| format!("--root: {error}")))
            .collect::<Result<Vec<_>, _>>()?;
        let policy = Policy {
            elicit: self.elicit.unwrap_or(ElicitPolicy::Decline),
            content,
            sample: self.sample.clone(),
        };
        Ok(ClientSide {
            roots: RootsList::new(roots),
            asker: Some(Arc::new(move |ask| {
                let reply = policy.answer(&ask);
                Box::pin(async move { reply })
            })),
            ..ClientSide::default()
        })
    }
}

struct Policy {
    elicit: ElicitPolicy,
    content: Option<Value>,
    sample: Option<String>,
}

impl Policy {
    fn answer(&self, ask: &ServerAsk) -> AskReply {
        match ask.method.as_str() {
            ELICITATION => AskReply::Result {
                result: self.elicitation(ask),
            },
            SAMPLING => match &self.sample {
                Some(text) => AskReply::Result {
                    result: SamplingReply::text(text.clone(), DEFAULT_MODEL).to_result(),
                },
                None => AskReply::refused(
                    REFUSED_CODE,
                    "sampling declined (toolscope call --sample TEXT replies with TEXT)",
                ),
            },
            other => AskReply::refused(
                NOT_DECLARED_CODE,
                format!("Toolscope does not answer {other}"),
            ),
        }
    }

    fn elicitation(&self, ask: &ServerAsk) -> Value {
        let accept = self.content.is_some() || self.elicit == ElicitPolicy::AcceptDefaults;
        if !accept {
            let action = match self.elicit {
                ElicitPolicy::Cancel => "cancel",
                _ => "decline",
            };
            return elicit_result(action, None);
        }
        if ask.is_url_elicitation() {
            // Nobody visits the page here: accepting says it is being visited, so the page is
            // named for the person running the command.
            let url = ask.params.get("url").and_then(Value::as_str).unwrap_or("");
            let host = url::Url::parse(url)
                .ok()
                .and_then(|parsed| parsed.host_str().map(str::to_owned))
                .unwrap_or_else(|| "no host".to_owned());
            super::output::say(&format!(
                "note: accepted a URL elicitation: open {url} ({host}) yourself to complete it"
            ));
            return elicit_result("accept", None);
        }
        let content = match &self.content {
            Some(content) => Ok(content.clone()),
            None => ElicitationForm::from_params(&ask.params).default_content(),
        };
        match content {
            Ok(content) => elicit_result("accept", Some(content)),
            Err(missing) => {
                super::output::say(&format!(
                    "note: the defaults cannot be accepted ({missing}): declined"
                ));
                elicit_result("decline", None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::AskOrigin;
    use serde_json::json;

    fn ask(method: &str, params: Value) -> ServerAsk {
        ServerAsk {
            method: method.to_owned(),
            params,
            origin: AskOrigin::Request { id: "1".to_owned() },
        }
    }

    fn policy(elicit: ElicitPolicy, content: Option<Value>, sample: Option<&str>) -> Policy {
        Policy {
            elicit,
            content,
            sample: sample.map(str::to_owned),
        }
    }

    #[test]
    fn each_flag_answers_as_it_says() {
        let form = ask(
            ELICITATION,
            json!({"message": "?", "requestedSchema": {"type": "object",
                "properties": {"n": {"type": "integer", "default": 4}}}}),
        );
        let reply = |policy: Policy, ask: &ServerAsk| match policy.answer(ask) {
            AskReply::Result { result } => result,
            AskReply::Refused { message, .. } => json!({ "refused": message }),
        };
        assert_eq!(
            reply(policy(ElicitPolicy::Decline, None, None), &form),
            json!({"action": "decline"})
        );
        assert_eq!(
            reply(policy(ElicitPolicy::Cancel, None, None), &form),
            json!({"action": "cancel"})
        );
        assert_eq!(
            reply(policy(ElicitPolicy::AcceptDefaults, None, None), &form),
            json!({"action": "accept", "content": {"n": 4}})
        );
        assert_eq!(
            reply(
                policy(ElicitPolicy::Decline, Some(json!({"n": 9})), None),
                &form
            ),
            json!({"action": "accept", "content": {"n": 9}})
        );
        let sampling = ask(SAMPLING, json!({"messages": []}));
        assert!(reply(policy(ElicitPolicy::Decline, None, None), &sampling)["refused"].is_string());
        assert_eq!(
            reply(policy(ElicitPolicy::Decline, None, Some("hi")), &sampling)["content"]["text"],
            "hi"
        );
    }
}
