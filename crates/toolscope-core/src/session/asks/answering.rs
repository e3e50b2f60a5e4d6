//! How one ask is answered, the same for a JSON-RPC request (2025-11-25) and for an entry of
//! `inputRequests` (2026-07-28): refused when its capability was not declared, roots from the
//! server's list, everything else by the asker.

use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Instant, SystemTime},
};

use crate::session::{
    asks::client_side::ClientSide,
    asks::{AnsweredBy, AskReply, Exchange, NOT_DECLARED_CODE, REFUSED_CODE, ROOTS, ServerAsk},
};

/// How many asks of a session wait for the asker now: its requests do not time out
/// meanwhile (a person may take minutes over a form).
#[derive(Debug, Clone, Default)]
pub struct AskingCount(Arc<AtomicUsize>);

/// Counts an ask as waiting while it lives.
struct Asking(Arc<AtomicUsize>);

impl Drop for Asking {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl AskingCount {
    fn start(&self) -> Asking {
        self.0.fetch_add(1, Ordering::SeqCst);
        Asking(self.0.clone())
    }

    pub fn is_asking(&self) -> bool {
        self.0.load(Ordering::SeqCst) > 0
    }
}

/// Answers `ask`; `withdrawn` resolves when the server or the caller no longer waits (the
/// asker's future is then dropped, which takes the question off the screen).
pub async fn answer(
    ask: ServerAsk,
    side: &ClientSide,
    asking: &AskingCount,
    withdrawn: impl Future<Output = ()>,
) -> Exchange {
    let asked_at = SystemTime::now();
    let started = Instant::now();
    let (reply, answered_by) = if !side.declared.allows(&ask.method, &ask.params) {
        (
            AskReply::refused(
                NOT_DECLARED_CODE,
                format!(
                    "Toolscope did not declare the capability for {} to this server",
                    ask.method
                ),
            ),
            AnsweredBy::Session,
        )
    } else if ask.method == ROOTS {
        (
            AskReply::Result {
                result: side.roots.result(),
            },
            AnsweredBy::RootsList,
        )
    } else if let Some(asker) = &side.asker {
        let _waiting = asking.start();
        let asked = asker.answer(ask.clone());
        tokio::select! {
            reply = asked => (reply, AnsweredBy::Asker),
            () = withdrawn => (
                AskReply::refused(REFUSED_CODE, "withdrawn before it was answered"),
                AnsweredBy::Withdrawn,
            ),
        }
    } else {
        (
            AskReply::refused(REFUSED_CODE, "nobody is there to answer it"),
            AnsweredBy::Session,
        )
    };
    Exchange {
        ask,
        reply,
        answered_by,
        asked_at,
        took: started.elapsed(),
    }
}

#[cfg(test)]
mod tests {

    use serde_json::json;

    use super::*;
    use crate::session::{
        asks::client_side::{ClientRoot, DeclaredCapabilities, RootsList},
        asks::{AskOrigin, ELICITATION, SAMPLING},
    };

    fn ask(method: &str) -> ServerAsk {
        ServerAsk {
            method: method.to_owned(),
            params: json!({"message": "?"}),
            origin: AskOrigin::Request { id: "7".to_owned() },
        }
    }

    fn declining() -> ClientSide {
        ClientSide {
            asker: Some(crate::session::asks::asker_fn(|_| async {
                AskReply::Result {
                    result: json!({"action": "decline"}),
                }
            })),
            roots: RootsList::new(vec![ClientRoot {
                uri: "file:///work".to_owned(),
                name: None,
            }]),
            ..ClientSide::default()
        }
    }

    #[tokio::test]
    async fn each_kind_goes_where_it_belongs() {
        let side = declining();
        let never = std::future::pending::<()>;
        let elicited = answer(ask(ELICITATION), &side, &AskingCount::default(), never()).await;
        assert_eq!(elicited.answered_by, AnsweredBy::Asker);
        assert_eq!(elicited.reply.summary(), "decline");
        let roots = answer(ask(ROOTS), &side, &AskingCount::default(), never()).await;
        assert_eq!(roots.answered_by, AnsweredBy::RootsList);
        assert_eq!(
            roots.reply,
            AskReply::Result {
                result: json!({"roots": [{"uri": "file:///work"}]})
            }
        );
        let off = ClientSide {
            declared: DeclaredCapabilities {
                sampling: false,
                ..DeclaredCapabilities::default()
            },
            ..declining()
        };
        let refused = answer(ask(SAMPLING), &off, &AskingCount::default(), never()).await;
        assert!(matches!(
            refused.reply,
            AskReply::Refused {
                code: NOT_DECLARED_CODE,
                ..
            }
        ));
    }

    #[tokio::test]
    async fn a_withdrawn_ask_stops_waiting_for_the_person() {
        let side = ClientSide {
            asker: Some(crate::session::asks::asker_fn(|_| std::future::pending())),
            ..ClientSide::default()
        };
        let exchange = answer(
            ask(ELICITATION),
            &side,
            &AskingCount::default(),
            std::future::ready(()),
        )
        .await;
        assert_eq!(exchange.answered_by, AnsweredBy::Withdrawn);
    }
}
