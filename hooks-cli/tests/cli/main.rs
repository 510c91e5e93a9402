//! The `hooks` binary, run as a user would, against temporary Hermes homes.

mod emit_replay;
mod list_doctor;
mod native_plugins;
mod reference;
mod support;
mod test_cmd;
