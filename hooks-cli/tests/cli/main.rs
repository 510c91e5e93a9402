//! The `hooks` commands run as a user would, against temporary Hermes homes:
//! output, list / doctor and their snapshots, emit / replay / test, inputs
//! and records. Shared helpers are in `tests/common/`.

#[allow(dead_code, unused_imports)]
#[path = "../common/dialects.rs"]
mod dialects;
#[allow(dead_code, unused_imports)]
#[path = "../common/harness.rs"]
mod harness;
#[allow(dead_code, unused_imports)]
#[path = "../common/project_fixtures.rs"]
mod project_fixtures;
#[allow(dead_code, unused_imports)]
#[path = "../common/support.rs"]
mod support;

mod bounded_output;
mod changed_script;
mod config_scopes;
mod emit_replay;
mod failsafe;
mod help;
mod host;
mod import_failures;
mod inputs;
mod list_doctor;
mod list_doctor_all;
mod list_doctor_snapshots;
mod output;
mod runs;
mod snapshots;
mod test_cmd;
mod top_level_keys;
