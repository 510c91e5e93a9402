//! The `hooks` binary, run as a user would, against temporary Hermes homes.

mod changed_script;
mod config_scopes;
mod consent;
mod deliveries;
mod durable;
mod emit_replay;
mod failsafe;
mod gateway_hooks;
mod harness;
mod help;
mod host;
mod inputs;
mod jetstream;
mod list_doctor;
mod list_doctor_all;
mod list_doctor_snapshots;
mod native_plugins;
mod output;
mod process_faults;
mod python_faults;
mod python_plugins;
mod reference;
mod signals;
mod snapshots;
mod support;
mod test_cmd;
