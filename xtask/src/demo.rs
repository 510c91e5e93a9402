//! `cargo xtask demo`: the README's main job. Replays `examples/session.jsonl`
//! through every mechanism — native plugins built on hooks-plugin-sdk, shell hooks, outbound
//! webhooks to a local `hooks listen`, and a gateway hook — in a temporary copy of
//! `examples/home`, then checks that each mechanism did its part.

use std::fs;
use std::io::Read;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};

/// The port `examples/home/config.yaml` sends webhooks to.
const LISTEN_PORT: u16 = 8644;
/// The signing secret the demo shares between sender and receiver.
const SECRET_ENV: &str = "HERMES_DEMO_WEBHOOK_SECRET";
/// The example home's native plugins: (folder under `plugins/`, package in
/// `hooks-plugin/examples/`).
const NATIVE_PLUGINS: [(&str, &str); 3] = [
    ("guard", "plugin-guard"),
    ("context", "plugin-context"),
    ("redactor", "plugin-redactor"),
];

/// Runs the demo from the workspace root.
pub fn run(root: &Path) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    step("building the hooks command and the example native plugins");
    let mut build = Command::new(&cargo);
    build
        .current_dir(root)
        .args(["build", "--quiet", "-p", "hermes-hooks-cli"]);
    for (_, package) in NATIVE_PLUGINS {
        build.args(["-p", package]);
    }
    let status = build.status().context("running cargo build")?;
    ensure!(status.success(), "cargo build failed");
    let target = target_dir(root);
    let hooks_bin = target.join("debug/hooks");

    let scratch = std::env::temp_dir().join(format!("hooks-demo-{}", std::process::id()));
    let home = scratch.join(".hermes");
    step(&format!("copying examples/home to {}", home.display()));
    let example = root.join("examples/home");
    copy_dir(&example, &home, &in_place_state(&example)?)?;
    for (folder, package) in NATIVE_PLUGINS {
        point_at_built_library(&home, &target, folder, package)?;
    }

    let result = replay(root, &hooks_bin, &scratch, &home);
    let _ = fs::remove_dir_all(&scratch);
    result
}

/// Rewrites `plugins/<folder>/plugin.yaml` in the demo's copy of the home so
/// its `library:` is the absolute path of the library cargo just built.
fn point_at_built_library(home: &Path, target: &Path, folder: &str, package: &str) -> Result<()> {
    let file_name = format!(
        "{}{}{}",
        std::env::consts::DLL_PREFIX,
        package.replace('-', "_"),
        std::env::consts::DLL_SUFFIX
    );
    let library = target.join("debug").join(&file_name);
    ensure!(library.exists(), "{} was not built", library.display());
    let manifest = home.join("plugins").join(folder).join("plugin.yaml");
    let text =
        fs::read_to_string(&manifest).with_context(|| format!("reading {}", manifest.display()))?;
    // The checked-in manifests name the Linux file under the repository's
    // target/debug (the home used in place); the copy names this build's file.
    let linux_name = format!("lib{}.so", package.replace('-', "_"));
    let mut replaced = false;
    let text: String = text
        .lines()
        .map(|line| match line.strip_prefix("library:") {
            Some(value) if value.trim().ends_with(&linux_name) => {
                replaced = true;
                format!("library: {}\n", library.display())
            }
            _ => format!("{line}\n"),
        })
        .collect();
    ensure!(
        replaced,
        "{} has no `library:` naming {linux_name}",
        manifest.display()
    );
    fs::write(&manifest, text).with_context(|| format!("writing {}", manifest.display()))
}

fn replay(root: &Path, hooks_bin: &Path, scratch: &Path, home: &Path) -> Result<()> {
    let hooks = |args: &[&str]| {
        let mut command = Command::new(hooks_bin);
        command
            .current_dir(root)
            .env("HOME", scratch)
            .env("HERMES_HOME", home)
            .env(SECRET_ENV, "demo-secret-please-change")
            .env_remove("HERMES_SAFE_MODE")
            .args(args);
        command
    };

    // Taken, `hooks listen` could not bind and the demo would talk to whatever holds it.
    ensure_port_free(LISTEN_PORT)?;
    step(&format!(
        "starting `hooks listen` on 127.0.0.1:{LISTEN_PORT}"
    ));
    let listener = hooks(&[
        "listen",
        "--port",
        &LISTEN_PORT.to_string(),
        "--secret-env",
        SECRET_ENV,
        "--json",
    ])
    .stdout(Stdio::piped())
    .stderr(Stdio::inherit())
    .spawn()
    .context("starting hooks listen")?;
    let mut listener = KillOnDrop(listener);
    wait_for_port(LISTEN_PORT, Duration::from_secs(10))?;

    step("hooks --accept-hooks replay examples/session.jsonl");
    let status = hooks(&["--accept-hooks", "replay", "examples/session.jsonl"])
        .status()
        .context("running hooks replay")?;
    ensure!(status.success(), "hooks replay failed ({status})");

    step("hooks --accept-hooks replay --json (checking what every mechanism did)");
    let output = hooks(&[
        "--accept-hooks",
        "replay",
        "--json",
        "examples/session.jsonl",
    ])
    .output()
    .context("running hooks replay --json")?;
    ensure!(output.status.success(), "hooks replay --json failed");
    let timeline = String::from_utf8_lossy(&output.stdout);
    check_timeline(&timeline)?;

    // The listener has had the replay's flush to receive everything.
    let _ = listener.0.kill();
    let _ = listener.0.wait();
    let mut received = String::new();
    if let Some(mut stdout) = listener.0.stdout.take() {
        stdout.read_to_string(&mut received)?;
    }
    let verified = received
        .lines()
        .filter(|line| line.contains("\"verified\":true"))
        .count();
    step("what `hooks listen` received (one JSON line per delivery; first 120 characters)");
    for line in received.lines() {
        let shown: String = line.chars().take(120).collect();
        println!("  {shown}...");
    }
    ensure!(
        verified > 0,
        "hooks listen verified no webhook delivery; it printed:\n{received}"
    );
    step(&format!(
        "done: every mechanism ran; {verified} signed webhook deliveries verified"
    ));
    Ok(())
}

/// Checks the decisions the example session is built to produce.
fn check_timeline(timeline: &str) -> Result<()> {
    let expectations = [
        (
            "the shell hook blocks rm -rf",
            "recursive deletes are not allowed",
        ),
        (
            "the native guard plugin blocks rm -rf",
            "plugin-guard: refusing `rm -rf build /`",
        ),
        (
            "the native context plugin adds context",
            "plugin-context: the user wrote 5 word(s)",
        ),
        (
            "the native redactor masks the API key in a tool result",
            "OPENAI_API_KEY=[REDACTED]",
        ),
        (
            "the Python plugin signs the final answer",
            "checked by the signoff plugin (hermes-4)",
        ),
        ("the gateway hook denies /reset", "reset refused"),
        (
            "the Claude Code guard (.claude/settings.json) denies writing .env",
            "protect-env (Claude Code guard): .env files hold secrets",
        ),
    ];
    for (what, needle) in expectations {
        if !timeline.contains(needle) {
            bail!("demo expectation failed: {what} (no {needle:?} in the replay):\n{timeline}");
        }
        println!("  ok: {what}");
    }
    Ok(())
}

fn step(what: &str) {
    println!("==> {what}");
}

fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
}

/// Fails, saying what to do, when something already listens on 127.0.0.1:`port`.
pub fn ensure_port_free(port: u16) -> Result<()> {
    match std::net::TcpListener::bind(("127.0.0.1", port)) {
        Ok(probe) => {
            drop(probe);
            Ok(())
        }
        Err(error) => bail!(
            "port {port} on 127.0.0.1 is taken ({error}): the example home sends its webhooks \
             there (examples/home/config.yaml, hooks.outbound[0].url), so the demo's \
             `hooks listen` needs it. Another `hooks listen` or an earlier demo may still run: \
             find it with `ss -ltnp 'sport = :{port}'`, stop it, and run `cargo xtask demo` again"
        ),
    }
}

fn wait_for_port(port: u16, limit: Duration) -> Result<()> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    bail!("hooks listen did not open 127.0.0.1:{port} within {limit:?}")
}

/// The names `examples/home/.gitignore` keeps out of git: what using the home
/// in place writes there (approvals, caches, logs). The demo's copy starts
/// without them, as a fresh clone does.
fn in_place_state(home: &Path) -> Result<Vec<String>> {
    let file = home.join(".gitignore");
    let text = fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| line.trim_end_matches('/').to_owned())
        .collect())
}

fn copy_dir(from: &Path, to: &Path, skip: &[String]) -> Result<()> {
    fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        if skip.iter().any(|name| entry.file_name() == name.as_str()) {
            continue;
        }
        let destination = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &destination, skip)?;
        } else {
            // fs::copy keeps the permission bits, so hook scripts stay executable.
            fs::copy(entry.path(), &destination)
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}

/// Ends the listener even when the demo fails half-way.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_taken_port_is_named_with_what_to_do() {
        let holder = std::net::TcpListener::bind(("127.0.0.1", 0)).expect("bind");
        let port = holder.local_addr().expect("addr").port();
        let error = super::ensure_port_free(port).expect_err("taken");
        let message = format!("{error:#}");
        assert!(
            message.starts_with(&format!("port {port} on 127.0.0.1 is taken")),
            "{message}"
        );
        assert!(message.contains("hooks.outbound[0].url"), "{message}");
        assert!(
            message.contains(&format!("ss -ltnp 'sport = :{port}'")),
            "{message}"
        );
        drop(holder);
        assert!(super::ensure_port_free(port).is_ok());
    }
}
