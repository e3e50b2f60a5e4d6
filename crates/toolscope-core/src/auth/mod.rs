//! OAuth 2.1 for HTTP servers (egui-free): signing in through the browser, the tokens and
//! registrations kept in the secret store, and the auth timeline that shows every step.

pub mod browser;
pub mod kept_sign_in;
pub mod loopback;
pub mod sign_in;
pub mod sign_out;
pub mod timeline;

pub use kept_sign_in::KeptSignIn;
pub use sign_in::{
    AuthOptions, Grant, SignInError, SignInPrompt, SignInRequest, SignedIn, sign_in,
};
pub use timeline::{AuthStep, StepKind, StepSink};
