//! Running exactly the bytes that were checked: the script a hook executes
//! is read once from one open file, hashed, and copied into a sealed memfd
//! (`memfd_create` + `F_SEAL_WRITE|SHRINK|GROW|SEAL`); the hook then runs
//! `/proc/self/fd/N` in place of the script's path. Renaming another file
//! over the script, or rewriting it, after the check changes nothing that runs.
//!
//! The memfd is inheritable (no close-on-exec: a `#!` script is opened by
//! its interpreter after the exec), so processes forked while it is open
//! inherit a read-only, sealed copy of the hook's script; it is closed as soon
//! as the run ends. Its number is 200 or above, past those scripts open
//! (`exec 9>lock`): a text redirecting it runs the script by path. Other programs see the script as `/proc/self/fd/N`
//! (`HERMES_HOOK_SCRIPT` holds its real path; a Python script's folder is put
//! first on `PYTHONPATH` so its sibling modules still import); a Python
//! interpreter's script runs through [`PYTHON_LOADER`], so `__file__` names
//! it, and a shell's (`bash x.sh`, or a `#!/bin/sh` script) is sourced by
//! `sh -c '. /proc/self/fd/N' <path> <args>`, so `$0` names it; where bash
//! sources a script reading `BASH_SOURCE`, from a second sealed copy with
//! those references renamed to an array the `-c` text sets to `($0)`
//! (`launch/bash_source.rs`). Where the hook's sandbox mounts the checked
//! copy of its tree over the tree and the copy holds the script, the script
//! runs by its own path, `$0` and `BASH_SOURCE` naming its folder
//! ([`Launch::for_command`]).

use std::ffi::CString;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, IntoRawFd, RawFd};
use std::path::{Path, PathBuf};

use hermes_hooks_process::sandbox::Prepared;
use nix::fcntl::{FcntlArg, SealFlag, fcntl};
use nix::sys::memfd::{MemFdCreateFlag, memfd_create};
use sha2::{Digest, Sha256};

use crate::binding::Code;
use crate::binding::base_name;

mod bash_source;
mod checked;
mod nested_text;
mod perl;
mod shell_text;
mod shell_words;

/// The largest script run from a sealed copy (bigger ones cannot be verified).
pub const MAX_SCRIPT_BYTES: u64 = 16 * 1024 * 1024;

/// The variable holding the real path of the script run from a sealed copy.
pub const SCRIPT_ENV: &str = "HERMES_HOOK_SCRIPT";

/// The bytes of `path`, read from one open file, and their hex SHA-256.
pub fn read_code(path: &Path) -> std::io::Result<(Vec<u8>, String)> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_SCRIPT_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_SCRIPT_BYTES {
        return Err(std::io::Error::other(format!(
            "{} is larger than {MAX_SCRIPT_BYTES} bytes",
            path.display()
        )));
    }
    let hash = hex::encode(Sha256::digest(&bytes));
    Ok((bytes, hash))
}

/// What a checked hook runs: its verified script sealed in memory, to run in
/// place of its path, and/or the checked copy of its tree
/// ([`crate::snapshot`]), to mount over the tree.
#[derive(Debug)]
pub struct Launch {
    script: Option<(Sealed, Code)>,
    /// The script's bytes with `BASH_SOURCE` renamed, for bash to source.
    renamed: Option<bash_source::Renamed>,
    snapshot: Option<std::sync::Arc<crate::snapshot::Snapshot>>,
    /// The files it reads by path, watched since the check.
    watched: Option<std::sync::Arc<crate::watched::Watched>>,
}

impl Launch {
    /// Seals `bytes` (the verified content of `code`) into a memfd.
    pub fn seal(code: &Code, bytes: &[u8]) -> std::io::Result<Launch> {
        Ok(Launch {
            script: Some((sealed_memfd(bytes)?, code.clone())),
            renamed: bash_source::Renamed::seal(bytes, &code.path)?,
            snapshot: None,
            watched: None,
        })
    }

    /// The script it replaces, when it runs one sealed.
    pub fn code(&self) -> Option<&Code> {
        self.script.as_ref().map(|(_, code)| code)
    }

    /// The checked copy of the hook tree, when one was made.
    pub fn snapshot(&self) -> Option<&crate::snapshot::Snapshot> {
        self.snapshot.as_deref()
    }

    /// The launch a run builds its command from: `None` when the script
    /// runs by its own path, the checked bytes mounted there
    /// (`script_by_path`, see `overlay`), so its `$0`, `BASH_SOURCE`,
    /// `__file__` and `FindBin` name its folder as the user wrote them (red
    /// team round 8); else `self` (the sealed memfd runs in its place).
    pub fn for_command(&self, script_by_path: bool) -> Option<&Launch> {
        (!script_by_path).then_some(self)
    }

    /// `/proc/self/fd/N` of the sealed copy (`None`: no script sealed).
    pub fn fd_path(&self) -> Option<String> {
        let (fd, _) = self.script.as_ref()?;
        Some(format!("/proc/self/fd/{}", fd.as_raw_fd()))
    }

    /// Replaces the script's word in `argv` (resolved against `cwd` as the
    /// binding resolved it) with [`Launch::fd_path`]. Returns the extra
    /// environment the run needs, or `None` when the word is not in `argv`
    /// (the run then goes by path, verified just before).
    ///
    /// A Python interpreter's script is run as `python -c <loader> <path>
    /// <args>`: the loader compiles the sealed bytes under the script's own
    /// path, so `__file__`, `sys.argv[0]`, `sys.path[0]` and tracebacks name
    /// the script, not `/proc/self/fd/N` ([`PYTHON_LOADER`]).
    pub fn rewrite(&self, argv: &mut Vec<String>, cwd: &Path) -> Option<Vec<(String, String)>> {
        let code = self.code()?;
        let Some(at) = argv.iter().position(|word| *word == code.word).or_else(|| {
            argv.iter()
                .position(|word| resolves_to(word, cwd, &code.path))
        }) else {
            // `bash -c "sh g.sh"`: the string the shell runs (R34-1).
            let at = *crate::binding::shell_string_positions(argv).first()?;
            return self.rewrite_text(&mut argv[at], cwd);
        };
        if at == 0 && !code.is_program {
            return None;
        }
        let fd_path = self.fd_path()?;
        let python_interpreter = at > 0
            && argv
                .first()
                .is_some_and(|program| base_name(program).starts_with("python"));
        let path = code.path.display().to_string();
        let safe_path = python_interpreter && python_safe_path(&argv[1..at]);
        if python_interpreter {
            let loader = PYTHON_LOADER.replace("{fd}", &fd_path);
            // `python3 -- check.py`: `-c` must come before the end of options.
            let from = if argv[at - 1] == "--" { at - 1 } else { at };
            // `sys.argv[0]` as written (R34-12), `__file__` absolute.
            let written = match argv[at].starts_with('~') {
                true => path,
                false => argv[at].clone(),
            };
            argv.splice(from..=at, ["-c".to_owned(), loader, written]);
        } else if let Some(shell) = shell_sourcing(argv, at, &fd_path) {
            // `$0` names the script (`. "$(dirname "$0")/rules.sh"`): the
            // shell sources the sealed bytes (R28b-12), `BASH_SOURCE`
            // its path too (R42-13).
            let source = self.sourcing(&shell, &fd_path);
            argv.splice(..=at, shell.into_iter().chain([source, path]));
        } else if let Some(perl) = perl::perl_loading(argv, at, &fd_path, &argv[at].clone()) {
            // `$0`, `__FILE__` and `FindBin` name the script (R33-8).
            argv.splice(..=at, perl);
        } else if at == 1 && matches!(argv[0].as_str(), "." | "source") {
            // Sourced: the copy naming its path where it reads `BASH_SOURCE`.
            argv[at] = self.renamed_fd_path().unwrap_or(fd_path);
        } else {
            argv[at] = fd_path;
        }
        let mut env = vec![(SCRIPT_ENV.to_owned(), code.path.display().to_string())];
        let python = (code.path.extension().is_some_and(|e| e == "py")
            || argv.first().is_some_and(|p| p.contains("python")))
            && !safe_path;
        if python && let Some(dir) = code.path.parent() {
            env.push(("PYTHONPATH".to_owned(), python_path(dir)));
        }
        Some(env)
    }
}

/// Whether Python's options `options` ask for no script folder on the
/// module path (`-P`, `-I`, alone or among other letters: `-uP`).
fn python_safe_path(options: &[String]) -> bool {
    options.iter().any(|option| {
        option
            .strip_prefix('-')
            .is_some_and(|letters| !letters.starts_with('-') && letters.contains(['P', 'I']))
    })
}

/// The script's folder, to put first on `PYTHONPATH` ([`set_env`]).
fn python_path(dir: &Path) -> String {
    dir.display().to_string()
}

/// Sets `env` (from [`Launch::rewrite`]) on `command`: `PYTHONPATH`'s
/// folder goes first on the value the command has by now, the project's
/// entries already withheld from it (`host_env`), never the host's whole
/// value (a project's `src/json.py` on the host's `PYTHONPATH` shadowed
/// a user's guard once its script ran sealed from a shell-form command).
pub(crate) fn set_env(command: &mut tokio::process::Command, env: Vec<(String, String)>) {
    for (name, value) in env {
        if name != "PYTHONPATH" {
            command.env(name, value);
            continue;
        }
        let set = command
            .as_std()
            .get_envs()
            .find(|(key, _)| *key == "PYTHONPATH");
        let current = match set {
            Some((_, value)) => value.map(std::ffi::OsStr::to_os_string),
            None => std::env::var_os("PYTHONPATH"),
        };
        let mut path = std::ffi::OsString::from(value);
        if let Some(current) = current.filter(|c| !c.is_empty()) {
            path.push(":");
            path.push(current);
        }
        command.env("PYTHONPATH", path);
    }
}

/// What [`overlay`] mounted in a sandboxed child.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Overlaid {
    /// The checked copy of the tree is mounted over the tree.
    pub tree: bool,
    /// The checked script is read at its own path (the tree's copy holds
    /// it): it runs by that path.
    pub script_by_path: bool,
}

/// Mounts what `launch` checked over the paths in `prepared`'s child, where
/// it has a mount namespace: the checked copy of the tree over the tree; a
/// script that copy holds then runs by its path. A mount that fails fails
/// the spawn: nothing runs from a path unverified.
pub(crate) fn overlay(
    launch: Option<&Launch>,
    prepared: Option<Prepared>,
) -> Result<(Option<Prepared>, Overlaid), String> {
    let snapshot = launch.and_then(Launch::snapshot);
    let (prepared, tree) = crate::snapshot::overlay(snapshot, prepared)?;
    let mut overlaid = Overlaid {
        tree,
        script_by_path: false,
    };
    // The checked copy of the tree holds the script: its path reads the
    // checked bytes. (A memfd cannot be mounted: it is in no namespace.)
    let code = launch.and_then(Launch::code);
    overlaid.script_by_path = tree
        && launch.and_then(Launch::fd_path).is_some()
        && code
            .zip(snapshot)
            .is_some_and(|(code, snapshot)| snapshot.covers(&code.path));
    Ok((prepared, overlaid))
}

/// What `python -c` runs in place of a sealed script (`{fd}`: its
/// `/proc/self/fd/N`): the sealed bytes compiled under the script's path
/// (`sys.argv[1]`) and run as `__main__`, with `sys.argv` and `sys.path[0]`
/// as Python gives a script (the script's real folder, not the working
/// directory `-c` would put first). As Python itself tells them, a zip
/// application (an end record in its last 64 KiB: `app.pyz`) runs its
/// `__main__` from the sealed copy, its own modules imported from there
/// too, `sys.argv[0]` its path as Python gives it (R32-15), and a
/// compiled file (this Python's magic number) runs its code
/// object (red team R30-7: both were compiled as source and failed).
pub const PYTHON_LOADER: &str = r#"import sys, os
if not getattr(sys.flags, 'safe_path', 0): sys.path[0] = os.path.dirname(os.path.realpath(sys.argv[1]))
__file__ = os.path.join(os.getcwd(), sys.argv[1])
__cached__ = None
del sys.argv[0]
with open('{fd}', 'rb') as __hermes_sealed:
    __hermes_code = __hermes_sealed.read()
del __hermes_sealed
if b'PK\x05\x06' in __hermes_code[-65558:]:
    import runpy
    del __hermes_code, __file__, __cached__
    if not getattr(sys.flags, 'safe_path', 0): del sys.path[0]
    sys.path.insert(0, '{fd}')
    runpy._run_module_as_main('__main__', False)
elif __hermes_code[:4] == __import__('importlib.util').util.MAGIC_NUMBER:
    import marshal
    exec(marshal.loads(__hermes_code[16:]))
else:
    exec(compile(__hermes_code, __file__, 'exec'))
"#;

/// Shells whose `sh -c '. FILE' NAME ARGS` runs FILE as the script NAME
/// would run: `$0` is NAME, the arguments are its own.
const SOURCING_SHELLS: [&str; 7] = ["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash"];

/// The words to run in place of `argv[..=at]` when the sealed script at
/// `at` is run by a shell (`bash -e x.sh`, or `x.sh` whose `#!` line names
/// one): the shell and its options, then `-c`; the caller adds `. FD` and
/// the script's path, so `$0` names the script as the shell gives it
/// (and `BASH_SOURCE`: [`Launch::sourcing`]). `None` for any other run,
/// or options that take a value or end the options (`-o x`, `--`).
fn shell_sourcing(argv: &[String], at: usize, fd_path: &str) -> Option<Vec<String>> {
    let is_shell = |word: &str| SOURCING_SHELLS.contains(&base_name(word).as_str());
    let plain_option = |word: &String| {
        word.starts_with('-')
            && word.len() > 1
            && !word.starts_with("--")
            && !word.contains(['c', 's', 'o', 'O'])
    };
    let mut shell: Vec<String> = if at > 0 {
        // `sh -- x.sh`: the end of the options goes; `-c` takes its place
        // (R34-11: the copy's fd path became `$0`).
        let options = match argv[at - 1] == "--" {
            true => &argv[1..at - 1],
            false => &argv[1..at],
        };
        if !is_shell(&argv[0]) || !options.iter().all(plain_option) {
            return None;
        }
        argv[..=options.len()].to_vec()
    } else {
        // Its `#!` line: `#!/bin/sh -e`, `#!/usr/bin/env bash`.
        let mut head = Vec::new();
        let file = std::fs::File::open(fd_path).ok()?;
        file.take(256).read_to_end(&mut head).ok()?;
        let line = String::from_utf8_lossy(&head);
        let line = line.strip_prefix("#!")?.lines().next()?.trim().to_owned();
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        let (program, rest) = words.split_first()?;
        let rest = match base_name(program).as_str() {
            "env" => rest.split_first().filter(|(shell, _)| is_shell(shell))?.1,
            _ if is_shell(program) => rest,
            _ => return None,
        };
        if rest.len() > 1 || !rest.iter().all(plain_option) {
            return None;
        }
        words
    };
    shell.push("-c".to_owned());
    Some(shell)
}

/// A memfd holding `bytes`, sealed against any change.
fn sealed_memfd(bytes: &[u8]) -> std::io::Result<Sealed> {
    let name = CString::new("hermes-hook").unwrap_or_default();
    let fd = memfd_create(&name, MemFdCreateFlag::MFD_ALLOW_SEALING)?;
    let mut file = std::fs::File::from(fd);
    file.write_all(bytes)?;
    let seals = SealFlag::F_SEAL_WRITE
        | SealFlag::F_SEAL_SHRINK
        | SealFlag::F_SEAL_GROW
        | SealFlag::F_SEAL_SEAL;
    fcntl(file.as_raw_fd(), FcntlArg::F_ADD_SEALS(seals))?;
    // Above the descriptors scripts name (`exec 9>lock; flock 9`): a text
    // redirecting the copy's number runs the script by its path. (Not
    // close-on-exec: a `#!` script is opened by its interpreter.)
    match fcntl(file.as_raw_fd(), FcntlArg::F_DUPFD(HIGH_DESCRIPTOR)) {
        Ok(high) => Ok(Sealed(high)),
        Err(_) => Ok(Sealed(file.into_raw_fd())),
    }
}

/// A sealed copy's descriptor, owned by this process and closed when
/// dropped (a number `F_DUPFD` gave cannot become an `OwnedFd` without
/// `unsafe`, which this crate does not use).
#[derive(Debug)]
pub(crate) struct Sealed(RawFd);

impl AsRawFd for Sealed {
    fn as_raw_fd(&self) -> RawFd {
        self.0
    }
}

impl Drop for Sealed {
    fn drop(&mut self) {
        let _ = nix::unistd::close(self.0);
    }
}

const HIGH_DESCRIPTOR: std::os::fd::RawFd = 200;

fn resolves_to(word: &str, cwd: &Path, path: &Path) -> bool {
    let candidate = PathBuf::from(hermes_hooks_core::home::expand_tilde(word));
    let candidate = if candidate.is_absolute() {
        candidate
    } else {
        cwd.join(candidate)
    };
    candidate == path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sealed_copy_cannot_be_changed_and_reads_back() {
        let code = Code {
            path: PathBuf::from("/x/hook.sh"),
            word: "/x/hook.sh".to_owned(),
            fd_safe: true,
            is_program: true,
        };
        let launch = Launch::seal(&code, b"#!/bin/sh\necho ok\n").expect("memfd");
        assert_eq!(
            std::fs::read(launch.fd_path().expect("sealed")).expect("read back"),
            b"#!/bin/sh\necho ok\n"
        );
        let writable = std::fs::OpenOptions::new()
            .write(true)
            .open(launch.fd_path().expect("sealed"))
            .and_then(|mut f| f.write_all(b"evil"));
        assert!(writable.is_err(), "sealed against writes");
        let mut argv = vec!["/x/hook.sh".to_owned(), "a".to_owned()];
        let env = launch
            .rewrite(&mut argv, Path::new("/"))
            .expect("rewritten");
        // A `#!/bin/sh` script is sourced with `$0` its path (R28b-12).
        let fd = launch.fd_path().expect("sealed");
        let source = format!(". {fd}");
        assert_eq!(argv, ["/bin/sh", "-c", &source, "/x/hook.sh", "a"]);
        assert_eq!(env[0], (SCRIPT_ENV.to_owned(), "/x/hook.sh".to_owned()));
        // Any other program runs the sealed copy by its fd path.
        let node = Launch::seal(
            &code,
            b"#!/usr/bin/env node
",
        )
        .expect("memfd");
        let mut argv = vec!["/x/hook.sh".to_owned(), "a".to_owned()];
        node.rewrite(&mut argv, Path::new("/")).expect("rewritten");
        assert_eq!(argv, [node.fd_path().expect("sealed"), "a".to_owned()]);
    }

    #[test]
    fn a_shell_form_text_runs_the_sealed_copy_where_it_runs_the_script() {
        let code = Code {
            path: PathBuf::from("/p/tools/g.sh"),
            word: "tools/g.sh".to_owned(),
            fd_safe: true,
            is_program: false,
        };
        let launch = Launch::seal(&code, b"exit 0\n").expect("memfd");
        let fd = launch.fd_path().expect("sealed");
        let mut text = "[ -f tools/g.sh ] && cd /p && sh -e tools/g.sh a; exit $?".to_owned();
        launch
            .rewrite_text(&mut text, Path::new("/p"))
            .expect("rewritten");
        let want = format!("[ -f tools/g.sh ] && cd /p && sh -e -c '. {fd}' tools/g.sh a; exit $?");
        assert_eq!(text, want);
        let mut text = "cd /p && sh -- tools/g.sh a".to_owned();
        launch
            .rewrite_text(&mut text, Path::new("/p"))
            .expect("rewritten");
        assert_eq!(text, format!("cd /p && sh -c '. {fd}' tools/g.sh a"));
        let mut argv: Vec<String> = ["bash", "-e", "--", "/p/tools/g.sh", "a"]
            .map(String::from)
            .to_vec();
        launch
            .rewrite(&mut argv, Path::new("/"))
            .expect("rewritten");
        assert_eq!(
            argv,
            ["bash", "-e", "-c", &format!(". {fd}"), "/p/tools/g.sh", "a"]
        );
        let mut text = "cp tools/g.sh x; rm -f tools/g.sh".to_owned();
        assert!(launch.rewrite_text(&mut text, Path::new("/p")).is_none());
        // A text redirecting the copy's descriptor runs the script by path.
        let number = fd.rsplit('/').next().expect("number");
        for redirect in [format!("exec {number}>lock"), format!("cat <&{number}")] {
            let mut text = format!("{redirect}; sh tools/g.sh");
            assert!(
                launch.rewrite_text(&mut text, Path::new("/p")).is_none(),
                "{text}"
            );
        }
    }
}
