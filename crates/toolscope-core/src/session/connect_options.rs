//! How a session connects: timeouts, where it reports, its tap, the era remembered, the
//! client side it declares, OAuth, and a cancel.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::analysis::ProtocolEra;
use crate::session::{
    asks::client_side::ClientSide,
    config::Timeouts,
    events::EventSink,
    transports::tap::{ProtocolTap, TapLimits},
};

/// Options for [`Session::connect`].
#[derive(Clone)]
pub struct ConnectOptions {
    pub timeouts: Timeouts,
    pub events: EventSink,
    pub tap_limits: TapLimits,
    /// A tap of the caller's to log into (the window shows a sign-in's timeline while the
    /// connection is still under way); `None`: the session makes one.
    pub tap: Option<ProtocolTap>,
    /// Called whenever the tap records something (the window repaints).
    pub tap_waker: Option<Arc<dyn Fn() + Send + Sync>>,
    /// The era this server spoke last time: a legacy server skips the `server/discover` probe.
    pub known_era: Option<ProtocolEra>,
    /// The server answered `server/discover` moments ago (started again after a late answer):
    /// rmcp starts it with `server/discover` alone. Its `Auto` mode would fall back to
    /// `initialize` after 10 s and then take a slow server's late discover answer for the
    /// answer to it ("conflict initialized response id").
    pub discover_answered: bool,
    /// What Toolscope declares, the roots it offers, and who answers the server's requests.
    pub client_side: ClientSide,
    /// OAuth for HTTP servers: where tokens are kept and how to sign in. `None`: no OAuth (a
    /// 401 fails the connection with its challenge). Not used when the server's settings carry
    /// their own Authorization header.
    pub auth: Option<crate::auth::AuthOptions>,
    /// Stops a connection under way (a sign-in waiting for the browser).
    pub cancel: CancellationToken,
}

impl ConnectOptions {
    pub fn new(timeouts: Timeouts, events: EventSink) -> Self {
        Self {
            timeouts,
            events,
            tap_limits: TapLimits::default(),
            tap: None,
            tap_waker: None,
            known_era: None,
            discover_answered: false,
            client_side: ClientSide::default(),
            auth: None,
            cancel: CancellationToken::new(),
        }
    }
}
