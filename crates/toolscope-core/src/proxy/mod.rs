//! Toolscope between a real client and its server (`toolscope proxy`): every line relayed
//! exactly as it came, and offered to a recorder that may fall behind without slowing the
//! relay, which keeps each call, read and prompt in the history with the client it came from.
//! Egui-free; the command line drives it.

mod followed_session;
pub mod http_relay;
pub mod http_setup;
pub mod recorder;
pub mod stdio_relay;
pub mod traffic;

pub use http_relay::{BearerSource, HttpRelay, NewRecording};
pub use http_setup::{HttpProxyError, http_relay, listen_locally};
pub use recorder::{NoHistory, RecordingReport, record};
pub use stdio_relay::{RelayEnd, RelayError, relay_stdio};
pub use traffic::{Traffic, TrafficEvent, TrafficReceiver, TrafficSide};
