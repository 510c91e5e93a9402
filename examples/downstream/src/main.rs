//! `downstream-agent [--home DIR] [--accept-hooks] TOOL COMMAND...`: asks the
//! home's shell hooks and the agent's own guard about `terminal` calls.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[tokio::main]
async fn main() -> ExitCode {
    let mut home = None;
    let mut accept = false;
    let mut commands = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--home" => home = args.next().map(PathBuf::from),
            "--accept-hooks" => accept = true,
            _ => commands.push(arg),
        }
    }
    let Some(home) = home else {
        eprintln!("usage: downstream-agent --home DIR [--accept-hooks] COMMAND...");
        return ExitCode::from(2);
    };
    let calls: Vec<(&str, &str)> = commands.iter().map(|c| ("terminal", c.as_str())).collect();
    match downstream_agent::run(&home, accept, &calls).await {
        Ok((host, lines)) => {
            for warning in host.warnings() {
                eprintln!("warning: {warning}");
            }
            for line in lines {
                println!("{line}");
            }
            host.shutdown(Duration::from_secs(5)).await;
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("downstream-agent: {error}");
            ExitCode::from(2)
        }
    }
}
