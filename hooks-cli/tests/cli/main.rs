//! The `hooks` binary, run as a user would, against temporary Hermes homes.

mod consent;
mod deliveries;
mod dialects;
mod emit_replay;
mod failsafe;
mod gateway_hooks;
mod harness;
mod help;
mod host;
mod inputs;
mod list_doctor;
mod list_doctor_all;
mod list_doctor_snapshots;
mod native_plugins;
mod output;
mod python_plugins;
mod reference;
mod snapshots;
mod support;
mod test_cmd;
