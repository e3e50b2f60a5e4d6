//! How `call` answers what a server asks without a person: by its flags. Elicitation is
//! declined unless `--elicit` or `--elicit-answer` says otherwise; sampling is refused unless
//! `--sample` gives the reply; roots are the `--root` folders.

use std::{path::PathBuf, sync::Arc};

use clap::{Args, ValueEnum};

use toolscope_core::{
    answers::{ElicitChoice, FixedAnswers},
    session::{ClientRoot, ClientSide, asks::client_side::RootsList},
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
                let value = toolscope_core::deep_json::parse(text)
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
        let answers = FixedAnswers {
            elicit: match self.elicit.unwrap_or(ElicitPolicy::Decline) {
                ElicitPolicy::AcceptDefaults => ElicitChoice::AcceptDefaults,
                ElicitPolicy::Decline => ElicitChoice::Decline,
                ElicitPolicy::Cancel => ElicitChoice::Cancel,
            },
            content,
            sample: self.sample.clone(),
            sample_hint: "toolscope call --sample TEXT replies with TEXT",
            notes: Some(Arc::new(|note: &str| {
                super::output::say(&format!("note: {note}"));
            })),
        };
        Ok(ClientSide {
            roots: RootsList::new(roots),
            asker: Some(Arc::new(answers)),
            ..ClientSide::default()
        })
    }
}
