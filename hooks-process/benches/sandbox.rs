//! The sandbox's overhead, measured by hand and printed as a table: one real
//! shell hook (a small `sh` script that reads its stdin and answers `{}`) run
//! through the process supervisor under the profiles `none`, `project`,
//! `project` with the kernel's record of denials (`recorded`: what a
//! fail-closed guard gets, `Context::record_denials`) and `strict`,
//! interleaved round by round (the order rotating), in one run, so
//! the ratios compare like with like on a machine whose load changes.
//! Each sample is what a hook run costs the host: [`Sandbox::prepare`] (the
//! rules, the home's enumeration, the Landlock ruleset) plus
//! [`run_sandboxed`] (fork, the child's namespaces and ruleset, exec, the
//! script, the reply, the reap). The home is a fake one shaped like a
//! developer's (dot folders, `.config`, secret stores holding a key),
//! left untouched for 2.5 s before the first sample.
//!
//! `cargo bench -p hermes-hooks-process --features sandbox --bench sandbox`
//! (`SANDBOX_BENCH_ROUNDS`, default 300, sets the rounds;
//! `SANDBOX_BENCH_PYTHON=1` makes the hook a Python script, whose start
//! looks many more paths up: what `recorded` costs per call grows with it).

use std::path::Path;
use std::time::{Duration, Instant};

use hermes_hooks_process::sandbox::{Context, Profile, Sandbox, Support};
use hermes_hooks_process::{Command, RunLimits, run_sandboxed};

/// The hook: reads the event, answers an empty decision.
const SCRIPT: &str = "#!/bin/sh\ncat >/dev/null\necho '{}'\n";
/// The same hook in Python.
const PYTHON_SCRIPT: &str =
    "#!/usr/bin/env python3\nimport json, sys\njson.loads(sys.stdin.read())\nprint('{}')\n";

/// A home shaped like a developer's: the secret stores (a key in `.ssh`)
/// beside the usual tool folders, so `project` cuts real holes in it.
fn fake_home(home: &Path) {
    let dirs = [
        ".ssh",
        ".aws",
        ".gnupg",
        ".kube",
        ".docker",
        ".cargo/bin",
        ".cargo/registry",
        ".rustup",
        ".npm",
        ".cache/pip",
        ".local/bin",
        ".local/share/keyrings",
        ".local/share/fonts",
        ".config/gh",
        ".config/git",
        ".config/nvim",
        ".config/fish",
        ".config/htop",
        ".config/Code",
        ".config/gcloud",
        ".vscode",
        ".claude/logs",
        ".codex",
        ".hermes",
        "code",
        "Downloads",
        "Documents",
        "bin",
    ];
    for dir in dirs {
        std::fs::create_dir_all(home.join(dir)).unwrap();
    }
    for file in [
        ".ssh/id_ed25519",
        ".docker/config.json",
        ".netrc",
        ".bashrc",
        ".profile",
        ".gitconfig",
        ".cargo/credentials.toml",
        ".claude/.credentials.json",
        ".hermes/.env",
    ] {
        std::fs::write(home.join(file), "secret or not\n").unwrap();
    }
}

/// One sample: prepare `sandbox` for the hook, then run it; (prepare, total).
async fn once(sandbox: &Sandbox, context: &Context, script: &Path) -> (Duration, Duration) {
    let start = Instant::now();
    let prepared = sandbox.prepare(context).expect("the profile applies here");
    let prepared_at = start.elapsed();
    let mut command = Command::new(script);
    command.current_dir(&context.project);
    let limits = RunLimits::new(Duration::from_secs(10), 1 << 16, Duration::from_millis(200));
    let output = run_sandboxed(command, b"{\"event\":\"pre_tool_call\"}", &limits, prepared)
        .await
        .expect("the hook runs");
    assert_eq!(output.exit_code, Some(0), "{output:?}");
    assert_eq!(output.stdout, b"{}\n", "{output:?}");
    (prepared_at, start.elapsed())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

fn main() {
    println!("sandbox support: {}", Support::detect().summary());
    let rounds: usize = std::env::var("SANDBOX_BENCH_ROUNDS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(300);
    // Outside /tmp, as a project usually is (a project under /tmp gets a
    // private folder there instead of a private /tmp).
    let root = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let home = root.path().join("home");
    let project = root.path().join("project");
    fake_home(&home);
    std::fs::create_dir_all(project.join(".hermes")).unwrap();
    let script = project.join(".hermes/hook.sh");
    let python = std::env::var_os("SANDBOX_BENCH_PYTHON").is_some();
    std::fs::write(&script, if python { PYTHON_SCRIPT } else { SCRIPT }).unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // As a home is between two edits: a folder changed within the last 2 s
    // is enumerated again on every spawn (its timestamp cannot be trusted yet).
    std::thread::sleep(Duration::from_millis(2500));
    let mut context = Context::new(&project);
    context.home = Some(home.clone());
    context.own_files = vec![project.join(".hermes")];

    let mut recorded = context.clone();
    recorded.record_denials = true;
    let profiles = [
        ("none", Sandbox::new(Profile::None), &context),
        ("project", Sandbox::new(Profile::Project), &context),
        ("recorded", Sandbox::new(Profile::Project), &recorded),
        ("strict", Sandbox::new(Profile::Strict), &context),
    ];
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut totals: Vec<Vec<Duration>> = vec![Vec::with_capacity(rounds); profiles.len()];
    let mut prepares: Vec<Vec<Duration>> = vec![Vec::with_capacity(rounds); profiles.len()];
    runtime.block_on(async {
        // Warm-up: the spawner thread, the page cache, the support probe.
        for (_, sandbox, context) in &profiles {
            for _ in 0..10 {
                once(sandbox, context, &script).await;
            }
        }
        for round in 0..rounds {
            for step in 0..profiles.len() {
                let index = (round + step) % profiles.len();
                let (_, sandbox, context) = &profiles[index];
                let (prepare, total) = once(sandbox, context, &script).await;
                prepares[index].push(prepare);
                totals[index].push(total);
            }
        }
    });
    // Each round ran the profiles back to back: the median of the
    // per-round ratios is the least sensitive to a load that drifts.
    let paired: Vec<f64> = (0..profiles.len())
        .map(|index| {
            let mut ratios: Vec<f64> = totals[index]
                .iter()
                .zip(&totals[0])
                .map(|(sample, none)| sample.as_secs_f64() / none.as_secs_f64())
                .collect();
            ratios.sort_by(f64::total_cmp);
            ratios[ratios.len() / 2]
        })
        .collect();
    for samples in totals.iter_mut().chain(prepares.iter_mut()) {
        samples.sort();
    }
    let none_p50 = micros(percentile(&totals[0], 0.5));
    let none_p99 = micros(percentile(&totals[0], 0.99));
    println!("{rounds} rounds, interleaved; µs per hook run (prepare + spawn + run + reap)");
    println!(
        "{:<8} {:>9} {:>9} {:>11} {:>11} {:>14} {:>12}",
        "profile", "p50", "p99", "p50 ratio", "p99 ratio", "paired median", "prepare p50"
    );
    for (index, (name, _, _)) in profiles.iter().enumerate() {
        let p50 = micros(percentile(&totals[index], 0.5));
        let p99 = micros(percentile(&totals[index], 0.99));
        println!(
            "{name:<8} {p50:>9.0} {p99:>9.0} {:>10.2}x {:>10.2}x {:>13.2}x {:>12.0}",
            p50 / none_p50,
            p99 / none_p99,
            paired[index],
            micros(percentile(&prepares[index], 0.5)),
        );
    }
}
