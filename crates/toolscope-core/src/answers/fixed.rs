//! Answers decided beforehand, for runs nobody attends: the command line's `--elicit`,
//! `--elicit-answer` and `--sample` flags and a case's `[case.answers]`. Elicitation is
//! declined unless told otherwise; sampling is refused unless a reply is given.

use std::sync::Arc;

use serde_json::Value;

use super::{ElicitationForm, SamplingReply, elicit_result, sampling::DEFAULT_MODEL};
use crate::session::{
    AnswerAsks, AskReply, ServerAsk,
    asks::{ELICITATION, NOT_DECLARED_CODE, REFUSED_CODE, SAMPLING},
};

/// What to do with an elicitation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ElicitChoice {
    /// Accept with each field's default (a required field without one declines).
    AcceptDefaults,
    #[default]
    Decline,
    Cancel,
}

/// Hears what the person running it should know (a URL to open, defaults that did not do).
pub type NoteSink = Arc<dyn Fn(&str) + Send + Sync>;

/// Answers given beforehand.
#[derive(Clone, Default)]
pub struct FixedAnswers {
    pub elicit: ElicitChoice,
    /// Accept every elicitation with this content (a JSON object).
    pub content: Option<Value>,
    /// Reply to sampling requests with this text.
    pub sample: Option<String>,
    /// How to refuse a sampling request without a reply, in words for the person.
    pub sample_hint: &'static str,
    pub notes: Option<NoteSink>,
}

impl std::fmt::Debug for FixedAnswers {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("FixedAnswers")
            .field("elicit", &self.elicit)
            .field("content", &self.content)
            .field("sample", &self.sample)
            .finish_non_exhaustive()
    }
}

impl FixedAnswers {
    /// Whether these answers accept or decline elicitations (to declare the capability).
    pub fn answers_elicitation(&self) -> bool {
        self.content.is_some() || self.elicit != ElicitChoice::Decline
    }

    /// The reply to one ask.
    pub fn reply(&self, ask: &ServerAsk) -> AskReply {
        match ask.method.as_str() {
            ELICITATION => AskReply::Result {
                result: self.elicitation(ask),
            },
            SAMPLING => match &self.sample {
                Some(text) => AskReply::Result {
                    result: SamplingReply::text(text.clone(), DEFAULT_MODEL).to_result(),
                },
                None if self.sample_hint.is_empty() => {
                    AskReply::refused(REFUSED_CODE, "sampling declined")
                }
                None => AskReply::refused(
                    REFUSED_CODE,
                    format!("sampling declined ({})", self.sample_hint),
                ),
            },
            other => AskReply::refused(
                NOT_DECLARED_CODE,
                format!("Toolscope does not answer {other}"),
            ),
        }
    }

    fn note(&self, text: &str) {
        if let Some(notes) = &self.notes {
            notes(text);
        }
    }

    fn elicitation(&self, ask: &ServerAsk) -> Value {
        let accept = self.content.is_some() || self.elicit == ElicitChoice::AcceptDefaults;
        if !accept {
            let action = match self.elicit {
                ElicitChoice::Cancel => "cancel",
                _ => "decline",
            };
            return elicit_result(action, None);
        }
        if ask.is_url_elicitation() {
            // Nobody visits the page here: accepting says it is being visited, so the page is
            // named for the person running it.
            let url = ask.params.get("url").and_then(Value::as_str).unwrap_or("");
            let host = url::Url::parse(url)
                .ok()
                .and_then(|parsed| parsed.host_str().map(str::to_owned))
                .unwrap_or_else(|| "no host".to_owned());
            self.note(&format!(
                "accepted a URL elicitation: open {url} ({host}) yourself to complete it"
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
                self.note(&format!(
                    "the defaults cannot be accepted ({missing}): declined"
                ));
                elicit_result("decline", None)
            }
        }
    }
}

#[async_trait::async_trait]
impl AnswerAsks for FixedAnswers {
    async fn answer(&self, ask: ServerAsk) -> AskReply {
        self.reply(&ask)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::session::AskOrigin;

    fn ask(method: &str, params: Value) -> ServerAsk {
        ServerAsk {
            method: method.to_owned(),
            params,
            origin: AskOrigin::Request { id: "1".to_owned() },
        }
    }

    fn answers(elicit: ElicitChoice, content: Option<Value>, sample: Option<&str>) -> FixedAnswers {
        FixedAnswers {
            elicit,
            content,
            sample: sample.map(str::to_owned),
            ..FixedAnswers::default()
        }
    }

    #[test]
    fn each_answer_is_given_as_it_says() {
        let form = ask(
            ELICITATION,
            json!({"message": "?", "requestedSchema": {"type": "object",
                "properties": {"n": {"type": "integer", "default": 4}}}}),
        );
        let reply = |answers: FixedAnswers, ask: &ServerAsk| match answers.reply(ask) {
            AskReply::Result { result } => result,
            AskReply::Refused { message, .. } => json!({ "refused": message }),
        };
        assert_eq!(
            reply(answers(ElicitChoice::Decline, None, None), &form),
            json!({"action": "decline"})
        );
        assert_eq!(
            reply(answers(ElicitChoice::Cancel, None, None), &form),
            json!({"action": "cancel"})
        );
        assert_eq!(
            reply(answers(ElicitChoice::AcceptDefaults, None, None), &form),
            json!({"action": "accept", "content": {"n": 4}})
        );
        assert_eq!(
            reply(
                answers(ElicitChoice::Decline, Some(json!({"n": 9})), None),
                &form
            ),
            json!({"action": "accept", "content": {"n": 9}})
        );
        let sampling = ask(SAMPLING, json!({"messages": []}));
        assert!(
            reply(answers(ElicitChoice::Decline, None, None), &sampling)["refused"].is_string()
        );
        assert_eq!(
            reply(answers(ElicitChoice::Decline, None, Some("hi")), &sampling)["content"]["text"],
            "hi"
        );
    }
}
