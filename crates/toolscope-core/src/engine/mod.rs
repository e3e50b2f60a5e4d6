//! The engine every face drives: one way to name a server ([`server`]), one way to start a
//! session ([`connect`]) and to reach a server for calls ([`reach`]: connected and listed),
//! one rule for how a call is sent ([`plan`]), one way to make it ([`call`]: sent, analysed,
//! its history row), and one way to read a resource or get a prompt ([`feature`]). The window's
//! backend, the command line's `call` and `run` (and their `--watch`), the window's case runs
//! and the proxy's recorder (its rows) go through it, so what one of them does to a call the
//! others do too.

pub mod call;
pub mod connect;
pub mod feature;
pub mod plan;
pub mod reach;
pub mod server;

pub use call::{AnsweredCall, MadeCall, call, make};
pub use connect::{ConnectError, OpenSecrets, connect, no_secret_store, with_kept_secrets};
pub use feature::{FeatureAnswer, FeatureAsk};
pub use plan::{CallEnd, CallPlan, CallRefused, CallWish, ServerView, plan};
pub use reach::{ReachError, Reached, ToolsForCalls, reach, tools_for_calls};
pub use server::{MissingValues, NamedServerError, ServerSources, fill_placeholders, named_server};
