//! Tasks and rounds: a call that runs as a task (the 2025-11-25 experimental tasks in
//! `augmented.rs`, the 2026-07-28 extension where the server decides in `task_extension.rs`),
//! the task's statuses (`task_status.rs`, a leaf), and the `input_required` rounds of a call
//! (`input_rounds.rs`). [`choose`] is the one rule for which a call gets.

mod augmented;
pub mod input_rounds;
pub(in crate::session) mod task_extension;
pub mod task_status;

pub(in crate::session) use augmented::{DEFAULT_POLL, MAX_POLL, MIN_POLL};
pub use task_status::{OnTaskStatus, TaskStatus, TaskTrack};

use crate::session::catalog::tool_catalog::TaskSupport;

/// How a call is sent as far as tasks go, and a word for the person when that is not what
/// they asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskChoice {
    /// Sent as a 2025-11-25 task-augmented `tools/call` ([`Session::call_tool_as_task`]).
    pub augmented: bool,
    pub note: Option<String>,
}

/// The rule the window and the command line share. `modern`: the server speaks 2026-07-28
/// or later (the server then decides, and does only when the tasks extension is declared);
/// `declared`: tasks are declared to this server; `asked`: the person asked for a task (the
/// command line's `--task`; the window asks whenever the tool allows one).
pub fn choose(
    modern: bool,
    declared: bool,
    support: TaskSupport,
    asked: bool,
    tool: &str,
) -> TaskChoice {
    let choice = |augmented, note: Option<String>| TaskChoice { augmented, note };
    if modern {
        let note = asked.then(|| {
            if declared {
                "on a 2026-07-28 server the server decides whether a call runs as a task \
                 (Toolscope declares the io.modelcontextprotocol/tasks extension in the request)"
                    .to_owned()
            } else {
                "tasks are turned off for this server: the call does not declare the tasks \
                 extension, so the server answers it at once"
                    .to_owned()
            }
        });
        return choice(false, note);
    }
    match (support, declared) {
        (TaskSupport::Required, true) => choice(
            true,
            (!asked).then(|| format!("`{tool}` requires a task, so it runs as one")),
        ),
        (TaskSupport::Required, false) => choice(
            false,
            Some(format!(
                "`{tool}` requires a task but tasks are turned off for this server: called \
                 without one (the server should refuse it)"
            )),
        ),
        (TaskSupport::Optional, true) => choice(asked, None),
        (TaskSupport::Optional, false) => choice(
            false,
            asked.then(|| "tasks are turned off for this server: called without a task".to_owned()),
        ),
        (TaskSupport::Forbidden, _) => choice(
            false,
            asked.then(|| format!("`{tool}` does not declare task support; called without a task")),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_rule_decides_whether_a_call_is_sent_as_a_task() {
        use TaskSupport::{Forbidden, Optional, Required};
        let sent = |modern, declared, support, asked| {
            choose(modern, declared, support, asked, "t").augmented
        };
        // 2025-11-25: the tool's taskSupport and the person decide, if tasks are declared.
        assert!(sent(false, true, Required, false));
        assert!(sent(false, true, Optional, true) && !sent(false, true, Optional, false));
        assert!(!sent(false, true, Forbidden, true));
        assert!(!sent(false, false, Required, true) && !sent(false, false, Optional, true));
        // 2026-07-28: never a 2025-style task; the server decides.
        assert!(!sent(true, true, Required, true) && !sent(true, true, Optional, true));
        let note =
            |modern, declared, support, asked| choose(modern, declared, support, asked, "t").note;
        assert!(note(true, true, Optional, true).is_some_and(|n| n.contains("server decides")));
        assert!(note(true, true, Optional, false).is_none());
        assert!(note(false, false, Required, false).is_some_and(|n| n.contains("turned off")));
        assert!(note(false, true, Required, false).is_some_and(|n| n.contains("requires a task")));
        assert!(note(false, true, Forbidden, true).is_some());
    }
}
