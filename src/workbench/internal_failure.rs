//! A panic inside Toolscope, on any thread: said in one line on stderr (the log), counted, and
//! turned into words for what it ended, so a failure on a worker thread is neither silent nor
//! the end of the window.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Panics seen since the process started, on every thread.
static PANICS: AtomicUsize = AtomicUsize::new(0);

/// How many panics the hook has logged in this process, on every thread.
pub fn panics_seen() -> usize {
    PANICS.load(Ordering::Relaxed)
}

/// What a panic carried, as text (a `&str` or a `String` payload; anything else unnamed).
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_owned())
}

/// One line for a panic: its message (on one line, clipped) and where it was.
fn describe(info: &std::panic::PanicHookInfo<'_>) -> String {
    let place = info
        .location()
        .map(|location| format!(" at {}:{}", location.file(), location.line()))
        .unwrap_or_default();
    format!(
        "{}{place}",
        toolscope_core::text_util::one_line(&panic_message(info.payload()), 300)
    )
}

/// Counts the panic and writes it to stderr with its thread's name: what every panic hook of
/// the app does first, whichever thread it is on.
pub fn log(info: &std::panic::PanicHookInfo<'_>) -> String {
    PANICS.fetch_add(1, Ordering::Relaxed);
    let line = describe(info);
    let thread = std::thread::current();
    eprintln!(
        "toolscope: internal error on thread {}: {}",
        thread.name().unwrap_or("(unnamed)"),
        toolscope_core::text_util::terminal_safe(&line)
    );
    line
}

/// What the window says when work on a worker thread panicked: what was lost, and what to do.
pub fn lost(what: &str, payload: &(dyn std::any::Any + Send)) -> String {
    format!(
        "Toolscope failed inside while {what}: {}. That work was lost (the server may still \
         have done it); the window goes on. Try again, and please report this with the line \
         starting \"toolscope: internal error\" from the terminal.",
        toolscope_core::text_util::one_line(&panic_message(payload), 300)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_says_its_message_and_what_was_lost() {
        let payload: Box<dyn std::any::Any + Send> = Box::new(String::from("boom\nnext"));
        let said = lost("making the call", payload.as_ref());
        assert!(said.starts_with("Toolscope failed inside while making the call: boom"));
        assert!(!said.contains('\n'), "one line: {said}");
        let unnamed: Box<dyn std::any::Any + Send> = Box::new(7_u8);
        assert_eq!(panic_message(unnamed.as_ref()), "(no message)");
    }

    #[test]
    fn a_panic_on_a_worker_thread_is_counted_by_the_hook() {
        let before = panics_seen();
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(|info| {
            log(info);
        }));
        let ended = std::thread::Builder::new()
            .name("worker-under-test".to_owned())
            .spawn(|| panic!("on purpose"))
            .map(std::thread::JoinHandle::join);
        std::panic::set_hook(previous);
        assert!(matches!(ended, Ok(Err(_))), "the thread panicked");
        assert!(panics_seen() > before);
    }
}
