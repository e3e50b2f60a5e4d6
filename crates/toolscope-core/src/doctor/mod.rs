//! The connection doctor (`toolscope doctor`, the window's Diagnose): a connection walked step
//! by step (for a URL: the name, the connection, TLS, HTTP, sign-in, the handshake, the tools;
//! for a command: starting it, the handshake, the tools), stopping at the first step that
//! fails, each with its time, what was seen and what to try.
//! Every face calls [`diagnose`]; each step is a file of its own.

mod auth_step;
mod http_step;
mod network;
mod redact;
mod session_steps;
mod start_step;
mod tls_step;
mod walk;

use std::time::{Duration, Instant};

use serde::Serialize;

pub use network::{connect_step, resolve_step};
pub use session_steps::{failed_step, session_steps};
pub use walk::diagnose;

/// One step of a diagnosis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// What was tried: `resolve`, `connect`, `tls`, `http`, `auth`, `initialize`, `tools/list`,
    /// `start`.
    pub name: &'static str,
    pub ok: bool,
    /// How long it took.
    pub ms: u64,
    /// What was seen (addresses, a status, a challenge quoted, the stderr tail), with secrets
    /// redacted.
    pub detail: String,
    /// What to try when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advice: Option<String>,
}

impl Step {
    /// A step that failed before anything was timed (the settings cannot be used).
    pub fn failed(name: &'static str, detail: String, advice: impl Into<String>) -> Self {
        Self {
            name,
            ok: false,
            ms: 0,
            detail,
            advice: Some(advice.into()),
        }
    }
}

/// The steps walked, the last one the first that failed (if any).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Diagnosis {
    pub ok: bool,
    pub steps: Vec<Step>,
}

impl Diagnosis {
    /// One step per line (`ok    resolve     12 ms  detail`), a detail of several lines and
    /// the advice (`try: …`) indented under it: what the command line prints and the window
    /// copies.
    pub fn as_text(&self) -> String {
        let mut out = String::new();
        for step in &self.steps {
            let mark = if step.ok { "ok  " } else { "FAIL" };
            let detail = step.detail.replace('\n', "\n      ");
            out.push_str(&format!(
                "{mark}  {:<11} {:>6} ms  {detail}\n",
                step.name, step.ms
            ));
            if let Some(advice) = &step.advice {
                out.push_str(&format!("      try: {advice}\n"));
            }
        }
        out
    }

    /// Adds a step; false once one has failed (the walk stops there). A failure of the step
    /// just passed (a program found, then exiting at once) becomes that step's verdict, with
    /// what was seen before it.
    pub fn push(&mut self, mut step: Step) -> bool {
        let ok = step.ok;
        match self.steps.last_mut() {
            Some(last) if last.name == step.name && last.ok && !ok => {
                step.detail = format!("{}\n{}", last.detail, step.detail);
                step.ms += last.ms;
                *last = step;
            }
            _ => self.steps.push(step),
        }
        self.ok = self.steps.iter().all(|step| step.ok);
        ok
    }
}

/// Why a step failed: what was seen, what to try, and the step it belongs to when that is
/// not the one tried (a handshake that fails because the command never started fails at
/// `start`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Failed {
    pub detail: String,
    pub advice: String,
    pub at: Option<&'static str>,
}

impl Failed {
    pub(crate) fn new(detail: String, advice: impl Into<String>) -> Self {
        Self {
            detail,
            advice: advice.into(),
            at: None,
        }
    }
}

/// Times `work` as the step `name`.
pub(crate) async fn timed<T>(
    name: &'static str,
    work: impl Future<Output = Result<(T, String), Failed>>,
) -> (Step, Option<T>) {
    let started = Instant::now();
    let outcome = work.await;
    let ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    match outcome {
        Ok((value, detail)) => (
            Step {
                name,
                ok: true,
                ms,
                detail,
                advice: None,
            },
            Some(value),
        ),
        Err(failed) => (
            Step {
                name: failed.at.unwrap_or(name),
                ok: false,
                ms,
                detail: failed.detail,
                advice: Some(failed.advice),
            },
            None,
        ),
    }
}

/// How long a network step may take before it is said to have timed out.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(10);
