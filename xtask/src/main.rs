//! Repository automation, run as `cargo xtask <command>` (alias in `.cargo/config.toml`).
//!
//! * `cargo xtask codegen` rewrites every generated file from
//!   `hooks-core/schema/events.yaml`.
//! * `cargo xtask codegen --check` writes nothing and fails, naming the stale file,
//!   when a generated file differs from what the schema gives (CI runs this).
//! * `cargo xtask demo` replays `examples/session.jsonl` through every mechanism
//!   (the README's main job).

mod codegen;
mod demo;
#[cfg(test)]
mod tidy;

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask codegen [--check] | cargo xtask demo";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["codegen"] => codegen::run(false),
        ["codegen", "--check"] => codegen::run(true),
        ["demo"] => demo::run(&codegen::project_root()),
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
