//! Who answers a server's questions while cases run: the case being run, by its
//! `[case.answers]` (elicitation declined and sampling refused when it says nothing). The
//! session holds one asker from connect to close, so the runner sets the case's answers before
//! each call.

use std::sync::{Arc, Mutex, PoisonError};

use super::Case;
use crate::{
    answers::FixedAnswers,
    session::{AnswerAsks, AskReply, ClientSide, ServerAsk},
};

/// The answers of the case that is running; clones share them.
#[derive(Clone, Default)]
pub struct CaseAsker {
    current: Arc<Mutex<FixedAnswers>>,
}

impl std::fmt::Debug for CaseAsker {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("CaseAsker")
    }
}

impl CaseAsker {
    /// The client side for a run of `cases`: roots and tasks declared, as for any run nobody
    /// attends, and elicitation or sampling when a case says how to answer them (a server
    /// takes the path for clients that cannot ask otherwise).
    pub fn client_side<'a>(&self, cases: impl IntoIterator<Item = &'a Case>) -> ClientSide {
        let mut side = ClientSide::unattended();
        for case in cases {
            // A URL elicitation needs someone to visit the page: only forms are declared.
            side.declared.elicitation_form |= case.answers.answers_elicitation();
            side.declared.sampling |= case.answers.sample.is_some();
        }
        side.asker = Some(Arc::new(self.clone()));
        side
    }

    /// From now on, asks are answered as `case` says.
    pub fn answer_as(&self, case: &Case) {
        *self.current.lock().unwrap_or_else(PoisonError::into_inner) = case.answers.to_fixed();
    }
}

#[async_trait::async_trait]
impl AnswerAsks for CaseAsker {
    async fn answer(&self, ask: ServerAsk) -> AskReply {
        let answers = self
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        answers.reply(&ask)
    }
}
