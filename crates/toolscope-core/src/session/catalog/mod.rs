//! What a server offers and says of itself: the tool list, the handshake's summary, its
//! capabilities in words.

pub mod capability_words;
pub mod server_summary;
pub mod tool_catalog;
