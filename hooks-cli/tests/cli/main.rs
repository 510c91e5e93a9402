//! The `hooks` binary, run as a user would, against temporary Hermes homes.

mod emit_replay;
mod failsafe;
mod list_doctor;
mod reference;
mod support;
mod test_cmd;
