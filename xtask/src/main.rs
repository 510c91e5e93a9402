//! Repository automation, run as `cargo xtask <command>` (alias in `.cargo/config.toml`).
//!
//! * `cargo xtask codegen` rewrites every generated file from
//!   `hooks-core/schema/events.yaml`.
//! * `cargo xtask codegen --check` writes nothing and fails, naming the stale file,
//!   when a generated file differs from what the schema gives (CI runs this).
//! * `cargo xtask demo` replays `examples/session.jsonl` through every mechanism
//!   (the README's main job).
//! * `cargo xtask release-check` checks what a release needs (`cargo fetch`
//!   first; real repository/homepage URLs, names free or ours on crates.io,
//!   fresh generated files, clean rustdoc, offline packaging, versions,
//!   CHANGELOG, rust-version, licenses, the dependency rule), naming the crate
//!   or file at fault.
//! * `cargo xtask dist` writes the stripped release binary, completions, man
//!   page, licenses, README and SHA256SUMS to `target/dist/`, and
//!   `hermes-hooks-<version>-<target>.tar.gz` of them.
//! * `cargo xtask bump [--dry-run] [--allow-dirty] VERSION` sets every crate
//!   version and inter-crate requirement and turns CHANGELOG's Unreleased
//!   section into a release; it refuses a downgrade and a dirty tree.

mod codegen;
mod demo;
mod release;
#[cfg(test)]
mod tidy;

use std::process::ExitCode;

const USAGE: &str =
    "usage: cargo xtask codegen [--check] | demo | release-check | dist | bump [--dry-run] VERSION";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["codegen"] => codegen::run(false),
        ["codegen", "--check"] => codegen::run(true),
        ["demo"] => demo::run(&codegen::project_root()),
        ["release-check"] => release::check::run(&codegen::project_root()),
        ["dist"] => release::dist::run(&codegen::project_root()),
        ["bump", rest @ ..] => release::bump::command(&codegen::project_root(), rest),
        ["help" | "--help" | "-h"] => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
