//! Answers to what a server asks, built the same for the window and the command line: the
//! form of an elicitation (fields from `requestedSchema`, defaults, validation, the content
//! sent back), the reply to a sampling request, and answers given beforehand for runs nobody
//! attends (`fixed.rs`: the command line's flags, a case's answers). Knows nothing of any UI.

pub mod elicitation_form;
pub mod fixed;
pub mod sampling;

pub use elicitation_form::{
    DefaultsIncomplete, ElicitationForm, FieldKind, FieldValue, FormField, elicit_result,
};
pub use fixed::{ElicitChoice, FixedAnswers};
pub use sampling::{SamplingReply, SamplingRequest};
