//! OAuth 2.1 for HTTP servers (egui-free): signing in through the browser, the tokens and
//! registrations kept in the secret store, and the auth timeline that shows every step; the
//! extensions: grants without a browser (client credentials, workload identity, enterprise-
//! managed authorization), `private_key_jwt` and DPoP.

pub mod browser;
pub mod dpop;
mod extension_grants;
pub mod extensions;
pub mod jwt;
pub mod kept_sign_in;
pub mod loopback;
pub mod sign_in;
pub mod sign_out;
pub mod timeline;

pub use extensions::{EnterpriseIdp, Grant, OAuthExtensions, TokenSource};
pub use kept_sign_in::KeptSignIn;
pub use sign_in::{AuthOptions, SignInError, SignInPrompt, SignInRequest, SignedIn, sign_in};
pub use timeline::{AuthStep, StepKind, StepSink};
