//! The engine both faces drive: one way to name a server ([`server`]), one way to start a
//! session ([`connect`]) and one way to call a tool ([`call`]). The window's backend, the command line's `call` and `run`, and the window's
//! case runs go through it, so what one of them does to a call the others do too.

pub mod call;
pub mod connect;
pub mod feature;
pub mod server;

pub use call::{CallEnd, CallPlan, CallRefused, CallWish, SentCall, ServerView, plan, send};
pub use connect::{ConnectError, OpenSecrets, connect, no_secret_store};
pub use feature::{FeatureAnswer, FeatureAsk};
pub use server::{MissingValues, NamedServerError, ServerSources, fill_placeholders, named_server};
