//! How one ask is answered, the same for a JSON-RPC request (2025-11-25) and for an entry of
//! `inputRequests` (2026-07-28): refused when its capability was not declared, roots from the
//! server's list, everything else by the asker.

use std::time::{Instant, SystemTime};

use super::{
    asks::{AnsweredBy, AskReply, Exchange, ROOTS, ServerAsk},
    client_side::ClientSide,
};

/// JSON-RPC "method not found": what a client that did not declare a capability answers.
pub const NOT_DECLARED_CODE: i32 = -32601;
/// The code of an ask nobody answered (no asker, or the ask was withdrawn).
pub const UNANSWERED_CODE: i32 = -1;

/// Answers `ask`; `withdrawn` resolves when the server or the caller no longer waits (the
/// asker's future is then dropped, which takes the question off the screen).
pub async fn answer(
    ask: ServerAsk,
    side: &ClientSide,
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
        let asked = asker(ask.clone());
        tokio::select! {
            reply = asked => (reply, AnsweredBy::Asker),
            () = withdrawn => (
                AskReply::refused(UNANSWERED_CODE, "withdrawn before it was answered"),
                AnsweredBy::Withdrawn,
            ),
        }
    } else {
        (
            AskReply::refused(UNANSWERED_CODE, "nobody is there to answer it"),
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
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::session::{
        asks::{AskOrigin, ELICITATION, SAMPLING},
        client_side::{ClientRoot, DeclaredCapabilities, RootsList},
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
            asker: Some(Arc::new(|_| {
                Box::pin(async {
                    AskReply::Result {
                        result: json!({"action": "decline"}),
                    }
                })
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
        let elicited = answer(ask(ELICITATION), &side, never()).await;
        assert_eq!(elicited.answered_by, AnsweredBy::Asker);
        assert_eq!(elicited.reply.summary(), "decline");
        let roots = answer(ask(ROOTS), &side, never()).await;
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
        let refused = answer(ask(SAMPLING), &off, never()).await;
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
            asker: Some(Arc::new(|_| Box::pin(std::future::pending()))),
            ..ClientSide::default()
        };
        let exchange = answer(ask(ELICITATION), &side, std::future::ready(())).await;
        assert_eq!(exchange.answered_by, AnsweredBy::Withdrawn);
    }
}
