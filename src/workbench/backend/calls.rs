//! A tool call from the window: the engine makes it (sent as planned, analysed), then its
//! result is prepared for the panes off the async workers and reported as `CallDone`.

use std::sync::Arc;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::{Backend, BackendEvent, CallFailure, CallId, RunningTask, ServerId, lock};
use futures::FutureExt as _;

use crate::workbench::{call_record::prepare_analysed, internal_failure};
use toolscope_core::{
    engine,
    session::{RequestControl, Timeouts},
};

impl Backend {
    /// Starts a call; cancel it with the returned token.
    pub fn call(&self, request: CallRequest) -> CancellationToken {
        let cancel = CancellationToken::new();
        let session = lock(&self.sessions).get(&request.server).cloned();
        let emit = self.emitter();
        let control = {
            let emit = emit.clone();
            let call = request.id;
            RequestControl {
                timeouts: request.timeouts,
                cancel: cancel.clone(),
                on_progress: Arc::new({
                    let emit = emit.clone();
                    move |update| {
                        emit.send(BackendEvent::CallProgress { call, update });
                    }
                }),
                on_task_status: Arc::new(
                    move |task_id: &str, status: &toolscope_core::session::tasks::TaskStatus| {
                        emit.send(BackendEvent::CallTaskStatus {
                            call,
                            task: RunningTask {
                                id: task_id.to_owned(),
                                status: status.clone(),
                            },
                        });
                    },
                ),
            }
        };
        let call = request.id;
        let work = async move {
            let Some(session) = session else {
                return Err(CallFailure::NotConnected);
            };
            let made = engine::make(&session, request.plan, request.arguments, &control).await;
            let schema = made.plan.output_schema;
            let trace_id = made.trace_id;
            match made.ended {
                Ok(engine::AnsweredCall { outcome, analysis }) => {
                    let protocol_version = session.summary().protocol_version.clone();
                    let server = request.server;
                    let max_side = request.max_image_side;
                    // Preparing a huge result for the panes takes a while: off the async workers.
                    tokio::task::spawn_blocking(move || {
                        let mut record = prepare_analysed(
                            call,
                            server,
                            outcome,
                            analysis,
                            schema.as_ref(),
                            protocol_version,
                            max_side,
                        );
                        record.trace_id = trace_id;
                        record
                    })
                    .await
                    .map(Arc::new)
                    .map_err(|error| {
                        let what = "preparing the result for the panes";
                        CallFailure::Failed(match error.try_into_panic() {
                            Ok(payload) => internal_failure::lost(what, payload.as_ref()),
                            Err(error) => format!("{what} failed: {error}"),
                        })
                    })
                }
                Err(error) => Err(CallFailure::from_session(&error, request.timeouts)),
            }
        };
        self.runtime.spawn(async move {
            // A panic while the call is made is this call's failure, said in the window.
            let result = match std::panic::AssertUnwindSafe(work).catch_unwind().await {
                Ok(result) => result,
                Err(payload) => Err(CallFailure::Failed(internal_failure::lost(
                    "making this call",
                    payload.as_ref(),
                ))),
            };
            emit.send(BackendEvent::CallDone { call, result });
        });
        cancel
    }
}

/// Everything needed to start one call.
pub struct CallRequest {
    pub id: CallId,
    pub server: ServerId,
    /// The tool and how it is sent, as the engine planned it (a task's statuses, in either
    /// era, come as [`BackendEvent::CallTaskStatus`]).
    pub plan: engine::CallPlan,
    pub arguments: Map<String, Value>,
    pub timeouts: Timeouts,
    /// The GPU's texture limit: images are scaled to fit it (see [`media::prepare_image`]).
    pub max_image_side: u32,
}
