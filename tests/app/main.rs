//! Toolscope's integration tests: the real binary, the session layer and the window against
//! real and hostile servers. One test binary, each former test file a module, so a build links
//! the window once instead of once per file.

mod support;

mod agent_mcp;
mod apps;
mod cli_cases;
mod cli_check;
mod cli_demo;
mod cli_history;
mod cli_http;
mod cli_interface;
mod cli_server_features;
mod cli_skills;
mod conformance;
mod deep_records;
mod doctor;
mod hostile_cli;
mod hostile_http;
mod hostile_stdio;
mod house_rules;
mod import_configs;
mod interop;
mod keyring;
mod layers;
mod load;
mod media_limits;
mod oauth;
mod packaging;
mod proxy;
mod reload;
mod server_requests;
mod session_layer;
mod task_extension;
mod team_history;
mod telemetry;
mod window;
mod window_images;
