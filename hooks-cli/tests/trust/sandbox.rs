//! Sandboxed hooks through the real binary (issue 30), as root and as an
//! unprivileged user (`nobody`, dropped to with `setpriv` when the tests
//! run as root, as CI does; the user itself otherwise).
//!
//! Each scene lives outside `/tmp` (under cargo's target tmp dir): a
//! project, a home with a fake `~/.ssh/id_ed25519`, a Claude Code project
//! hook that probes what it may do and prints one word per probe.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

/// One scene: HOME, the Hermes home in it, and a project beside it.
pub(super) struct Scene {
    _dir: tempfile::TempDir,
    pub(super) home: PathBuf,
    pub(super) hermes: PathBuf,
    pub(super) project: PathBuf,
    /// Drop to `nobody` for every `hooks` run.
    drop_to_nobody: bool,
    /// A marker name for the real `/tmp`.
    tmp_marker: PathBuf,
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

impl Scene {
    pub(super) fn new(unprivileged: bool) -> Scene {
        let dir = tempfile::Builder::new()
            .prefix("sandbox-cli-")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("scratch");
        let home = dir.path().join("home");
        let hermes = home.join(".hermes");
        let project = dir.path().join("project");
        let managed = home.join("managed-scope");
        for folder in [
            &hermes,
            &home.join(".ssh"),
            &project.join(".claude/hooks"),
            &managed,
        ] {
            std::fs::create_dir_all(folder).unwrap();
        }
        std::fs::write(home.join(".ssh/id_ed25519"), "FAKE-PRIVATE-KEY\n").unwrap();
        std::fs::write(project.join("readme"), "project file\n").unwrap();
        let drop_to_nobody = unprivileged && is_root();
        let tmp_marker = PathBuf::from(format!(
            "/tmp/hermes-sandbox-cli-{}-{}",
            std::process::id(),
            dir.path().file_name().unwrap().to_string_lossy()
        ));
        Scene {
            _dir: dir,
            home,
            hermes,
            project,
            drop_to_nobody,
            tmp_marker,
        }
    }

    /// Writes the project's `.claude/settings.json` with one PreToolUse
    /// handler running `script` (saved as `.claude/hooks/<name>`).
    pub(super) fn claude_hook(&self, name: &str, script: &str, extra: Value) -> &Self {
        let path = self.project.join(".claude/hooks").join(name);
        std::fs::write(&path, script).unwrap();
        set_mode(&path, 0o755);
        let mut handler = json!({
            "type": "command",
            "command": format!("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/{name}"),
        });
        if let (Value::Object(handler), Value::Object(extra)) = (&mut handler, extra) {
            handler.extend(extra);
        }
        let settings = json!({"hooks": {"PreToolUse": [{"matcher": "", "hooks": [handler]}]}});
        std::fs::write(
            self.project.join(".claude/settings.json"),
            settings.to_string(),
        )
        .unwrap();
        self
    }

    pub(super) fn config(&self, yaml: &str) -> &Self {
        std::fs::write(self.hermes.join("config.yaml"), yaml).unwrap();
        self
    }

    /// `hooks --home <hermes> --project <project> ARGS` as the scene's user.
    pub(super) fn hooks(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        if self.drop_to_nobody {
            let status = Command::new("chown")
                .args(["-R", "65534:65534"])
                .arg(self._dir.path())
                .status()
                .expect("chown");
            assert!(status.success());
        }
        let binary = env!("CARGO_BIN_EXE_hooks");
        let mut command = if self.drop_to_nobody {
            let mut command = Command::new("setpriv");
            command.args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "--",
                binary,
            ]);
            command
        } else {
            Command::new(binary)
        };
        command
            .arg("--home")
            .arg(&self.hermes)
            .arg("--project")
            .arg(&self.project)
            .args(args)
            .current_dir(&self.project)
            .env("HOME", &self.home)
            .env("HERMES_MANAGED_DIR", self.home.join("managed-scope"))
            .env_remove("HERMES_HOME")
            .env_remove("HERMES_ACCEPT_HOOKS")
            .env_remove(hermes_hooks_process::sandbox::UNAVAILABLE_ENV)
            .env_remove("TMPDIR");
        for (key, value) in env {
            command.env(key, value);
        }
        command.output().expect("run hooks")
    }

    /// `hooks test PreToolUse --for-tool Bash --json --explain --accept-hooks`: the one hook's line.
    pub(super) fn test_hook(&self, env: &[(&str, &str)]) -> Value {
        let output = self.hooks(
            &[
                "test",
                "PreToolUse",
                "--for-tool",
                "Bash",
                "--json",
                "--explain",
                "--accept-hooks",
            ],
            env,
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        let document: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|error| {
            panic!(
                "not JSON ({error}): {stdout}\nstderr: {}",
                String::from_utf8_lossy(&output.stderr)
            )
        });
        document["hooks"][0].clone()
    }
}

impl Drop for Scene {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.tmp_marker);
    }
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Probes, one word each; a grandchild (`sh -c` inside `sh -c`) probes too.
fn probe_script(port: u16, tmp_marker: &Path) -> String {
    format!(
        r#"#!/bin/sh
cat "$HOME/.ssh/id_ed25519" && echo SSH-READ || echo SSH-DENIED
(echo x > "$HOME/x") 2>/dev/null && echo HOME-WROTE || echo HOME-DENIED
(echo x > {tmp}) 2>/dev/null && echo TMP-WROTE || echo TMP-DENIED
(echo x > "$CLAUDE_PROJECT_DIR/written") 2>/dev/null && echo PROJECT-WROTE || echo PROJECT-WRITE-DENIED
cat "$CLAUDE_PROJECT_DIR/readme" >/dev/null && echo PROJECT-READ || echo PROJECT-READ-DENIED
bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}' 2>/dev/null && echo NET-CONNECTED || echo NET-DENIED
sh -c 'sh -c "cat \"\$HOME/.ssh/id_ed25519\" >/dev/null 2>&1 && echo GC-SSH-READ || echo GC-SSH-DENIED; (echo y > \"\$HOME/gc\") 2>/dev/null && echo GC-HOME-WROTE || echo GC-HOME-DENIED"'
exit 0
"#,
        tmp = tmp_marker.display()
    )
}

/// Whether `nobody` may create user namespaces here (else the documented
/// block / skip applies to it instead of the sandbox).
pub(super) fn nobody_has_user_namespaces() -> bool {
    let mut command = if is_root() {
        let mut command = Command::new("setpriv");
        command.args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--",
            "unshare",
        ]);
        command
    } else {
        Command::new("unshare")
    };
    command
        .args(["--user", "--net", "true"])
        .status()
        .is_ok_and(|status| status.success())
}

pub(super) fn words(line: &Value) -> String {
    line["stdout"].as_str().unwrap_or_default().to_owned()
}

/// The whole `project` profile, for the scene's user.
fn project_profile_binds(unprivileged: bool) {
    let scene = Scene::new(unprivileged);
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().unwrap().port();
    scene.config("hooks_from: [claude]\n").claude_hook(
        "probe.sh",
        &probe_script(port, &scene.tmp_marker),
        json!({}),
    );
    let line = scene.test_hook(&[]);
    if unprivileged && !nobody_has_user_namespaces() {
        // Documented: a profile that cannot be applied never runs weaker.
        assert_eq!(line["stdout"], "", "{line}");
        assert!(
            line["error"]
                .as_str()
                .unwrap_or("")
                .contains("cannot be applied"),
            "{line}"
        );
        return;
    }
    let out = words(&line);
    assert_eq!(line["sandbox"], "project", "{line}");
    for word in [
        "SSH-DENIED",
        "HOME-DENIED",
        "TMP-WROTE",
        "PROJECT-WROTE",
        "PROJECT-READ",
        "NET-DENIED",
        "GC-SSH-DENIED",
        "GC-HOME-DENIED",
    ] {
        assert!(out.contains(word), "{word} missing: {line}");
    }
    assert!(!out.contains("FAKE-PRIVATE-KEY"), "{line}");
    assert!(!scene.home.join("x").exists() && !scene.home.join("gc").exists());
    assert!(
        !scene.tmp_marker.exists(),
        "the write reached the real {}",
        scene.tmp_marker.display()
    );
    assert!(scene.project.join("written").exists());
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "the hook reached the listener");
    // --explain names the denied read it saw on stderr.
    let denied = line["denied"].to_string();
    assert!(denied.contains("id_ed25519"), "{line}");
}

#[test]
fn a_project_hook_is_bound_by_the_project_profile_as_root() {
    project_profile_binds(false);
}

#[test]
fn a_project_hook_is_bound_by_the_project_profile_as_an_unprivileged_user() {
    project_profile_binds(true);
}

fn strict_binds(unprivileged: bool) {
    let scene = Scene::new(unprivileged);
    let settings = scene.project.join(".claude/settings.json");
    scene.config(&format!(
        "hooks_from:\n  - {{format: claude, path: '{}', sandbox: strict}}\n",
        settings.display()
    ));
    scene.claude_hook("probe.sh", &probe_script(9, &scene.tmp_marker), json!({}));
    let line = scene.test_hook(&[]);
    if unprivileged && !nobody_has_user_namespaces() {
        assert!(
            line["error"]
                .as_str()
                .unwrap_or("")
                .contains("cannot be applied"),
            "{line}"
        );
        return;
    }
    let out = words(&line);
    assert_eq!(line["sandbox"], "strict", "{line}");
    for word in [
        "PROJECT-WRITE-DENIED",
        "PROJECT-READ",
        "SSH-DENIED",
        "TMP-WROTE",
    ] {
        assert!(out.contains(word), "{word} missing: {line}");
    }
    assert!(!scene.project.join("written").exists());
}

#[test]
fn strict_cannot_write_the_project_as_root() {
    strict_binds(false);
}

#[test]
fn strict_cannot_write_the_project_as_an_unprivileged_user() {
    strict_binds(true);
}

/// `hooks emit pre_tool_call --json` for a Bash call, with consent given.
fn emit(scene: &Scene, env: &[(&str, &str)]) -> (Value, String) {
    let payload = scene.hermes.join("payload.json");
    std::fs::write(
        &payload,
        json!({"tool_name": "terminal", "args": {"command": "ls"}}).to_string(),
    )
    .unwrap();
    let output = scene.hooks(
        &[
            "emit",
            "pre_tool_call",
            "--payload-file",
            payload.to_str().unwrap(),
            "--json",
            "--accept-hooks",
        ],
        env,
    );
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let document = serde_json::from_str(stdout.trim()).unwrap_or_else(|_| {
        panic!(
            "not JSON: {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (
        document,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn an_unapplicable_profile_blocks_a_fail_closed_hook_and_skips_a_fail_open_one() {
    let unavailable = [(hermes_hooks_process::sandbox::UNAVAILABLE_ENV, "landlock")];
    // Fail-closed: blocked, saying what is missing.
    let scene = Scene::new(false);
    scene.config("hooks_from: [claude]\n").claude_hook(
        "allow.sh",
        "#!/bin/sh\nexit 0\n",
        json!({"failClosed": true}),
    );
    let (document, _) = emit(&scene, &unavailable);
    let text = document.to_string();
    assert!(text.contains("\"block\""), "{text}");
    assert!(text.contains("Landlock"), "{text}");
    // The same hook with the sandbox available allows.
    let (document, _) = emit(&scene, &[]);
    assert!(!document.to_string().contains("\"block\""), "{document}");
    // Fail-open: skipped, with a warning naming what is missing; allowed.
    let scene = Scene::new(false);
    scene.config("hooks_from: [claude]\n").claude_hook(
        "deny.sh",
        "#!/bin/sh\necho no >&2\nexit 2\n",
        json!({}),
    );
    let (document, stderr) = emit(&scene, &unavailable);
    let text = document.to_string();
    assert!(!text.contains("\"block\""), "{text}");
    assert!(
        text.contains("skipped") && text.contains("Landlock"),
        "{text}"
    );
    assert!(stderr.contains("Landlock"), "no warning: {stderr}");
    // best_effort runs it (without Landlock): its exit 2 blocks.
    scene.config("hooks_from: [claude]\nhooks_sandbox: {project: best_effort}\n");
    let (document, _) = emit(&scene, &unavailable);
    assert!(document.to_string().contains("\"block\""), "{document}");
}

/// The Claude Code example of `examples/` decides the same under `project`
/// as under `none`; so does a guard that logs to /tmp and ~/.claude/logs
/// (denied there) before it exits 2.
#[test]
fn real_guards_decide_the_same_under_project_as_under_none() {
    let examples = crate::support::workspace_root().join("examples/home/.claude");
    for profile in ["none", "project"] {
        let scene = Scene::new(false);
        let claude = scene.project.join(".claude");
        crate::support::copy_dir(&examples, &claude);
        scene.config(&format!(
            "hooks_from: [claude]\nhooks_sandbox: {{project: {profile}}}\n"
        ));
        let payload = scene.hermes.join("payload.json");
        std::fs::write(
            &payload,
            json!({"args": {"file_path": "config/.env"}}).to_string(),
        )
        .unwrap();
        let output = scene.hooks(
            &[
                "test",
                "PreToolUse",
                "--for-tool",
                "Write",
                "--payload-file",
                payload.to_str().unwrap(),
                "--json",
                "--accept-hooks",
            ],
            &[],
        );
        let document: Value = serde_json::from_str(String::from_utf8_lossy(&output.stdout).trim())
            .unwrap_or_else(|_| panic!("{output:?}"));
        let outcome = document["outcome"].to_string();
        assert!(
            outcome.contains("block") && outcome.contains("protect-env"),
            "{profile}: {document}"
        );
        assert_eq!(
            document["hooks"][0]["sandbox"],
            if profile == "none" {
                Value::Null
            } else {
                json!("project")
            }
        );

        let logger = "#!/bin/sh\nmkdir -p \"$HOME/.claude/logs\"\n\
                      echo \"$(date) guard\" >> /tmp/guard.log\n\
                      echo \"$(date) guard\" >> \"$HOME/.claude/logs/guard.log\"\n\
                      echo 'blocked by the logging guard' >&2\nexit 2\n";
        scene.claude_hook("logging-guard.sh", logger, json!({}));
        let line = scene.test_hook(&[]);
        assert_eq!(line["exit_code"], 2, "{profile}: {line}");
    }
}
