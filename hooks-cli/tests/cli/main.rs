//! The `hooks` binary, run as a user would, against temporary Hermes homes.

mod consent;
mod deliveries;
mod emit_replay;
mod harness;
mod help;
mod inputs;
mod list_doctor;
mod output;
mod reference;
mod snapshots;
mod support;
mod test_cmd;
