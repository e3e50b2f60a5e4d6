//! Answers to what a server asks, built the same for the window and the command line: the
//! form of an elicitation (fields from `requestedSchema`, defaults, validation, the content
//! sent back) and the reply to a sampling request. Knows nothing of any UI.

pub mod elicitation_form;
pub mod sampling;

pub use elicitation_form::{ElicitationForm, FieldKind, FieldValue, FormField, elicit_result};
pub use sampling::{SamplingReply, SamplingRequest};
