//! Integration tests of hooks-shell, one binary with a module per area.
//! Numbers in test names are those of the reference implementation's own test cases (§7).

mod allowlist;
mod changed;
mod config;
mod consent;
mod dialects;
mod dispatcher;
mod faults;
mod parse;
mod records;
mod reference;
mod run;
mod runtime;
mod sandbox_line;
mod shared;
mod spellings;
mod support;
mod together;
