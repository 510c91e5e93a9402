//! `BASH_SOURCE` in a script a shell sources from its sealed copy (red
//! team R42-13): bash names the copy there (`/proc/self/fd/N`) and ignores
//! an assignment to it, so `"$(dirname "${BASH_SOURCE[0]}")"/lib.sh` failed
//! every run and `[[ "${BASH_SOURCE[0]}" == "$0" ]] && main` never ran
//! `main`, and a guard approved so guarded nothing, in silence. Where the
//! checked bytes read it as a parameter, a second sealed copy has those
//! references renamed to a variable named afresh for each run (the script
//! cannot set it first), which the `-c` text sets to an array of `$0`, the
//! script's path, before it sources that copy. What runs is still a function of the
//! checked bytes alone; their hash is of the bytes as written.

use std::io::Read;
use std::os::fd::AsRawFd;
use std::path::Path;

use super::Launch;
use crate::binding::base_name;

/// The parameter renamed.
const NAME: &[u8] = b"BASH_SOURCE";

/// A script's bytes with `BASH_SOURCE` renamed, sealed, and the name.
#[derive(Debug)]
pub(super) struct Renamed {
    fd: super::Sealed,
    name: String,
}

impl Renamed {
    /// `bytes` (the script at `path`) with their `BASH_SOURCE` references
    /// renamed to a fresh name, sealed; `None` when they have none. The
    /// copy sets the name to `path` itself where bash sources it and no
    /// `-c` text set it first: a command's own `. x.sh` (`bash -c '.
    /// x.sh'`, or `sh -c` where `sh` is bash) sources it by its descriptor,
    /// and `${BASH_SOURCE%/*}/../cwd` would reach the folder the hook runs
    /// in while the reading binds the script's own folder (red team
    /// round 46).
    pub(super) fn seal(bytes: &[u8], path: &Path) -> std::io::Result<Option<Renamed>> {
        if references(bytes).is_empty() {
            return Ok(None);
        }
        let name = fresh_name()?;
        let mut copy = own_path(&name, path).into_bytes();
        copy.extend(renamed(bytes, &name));
        let fd = super::sealed_memfd(&copy)?;
        Ok(Some(Renamed { fd, name }))
    }
}

/// The text put before the renamed copy's first line (on that line, so
/// line numbers hold: `…;#!/bin/bash` leaves the `#!` a comment): in bash,
/// unless set, `name` becomes the array of `path`, read-only; in another
/// shell, nothing (it has no `BASH_SOURCE`, nor arrays: the assignment is
/// `eval`'s, never parsed there).
fn own_path(name: &str, path: &Path) -> String {
    let path = path.display().to_string();
    let value = shlex::try_quote(&path)
        .map_or_else(|_| super::shell_text::quoted(&path), |q| q.into_owned());
    let assign = super::shell_text::quoted(&format!("{name}=({value}); readonly {name}"));
    format!("[ -z \"${{BASH_VERSION+x}}\" ] || [ -n \"${{{name}+x}}\" ] || eval {assign};")
}

/// `__hermes_source_` and 16 random hex digits.
fn fresh_name() -> std::io::Result<String> {
    let mut random = [0u8; 8];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut random)?;
    Ok(format!("__hermes_source_{}", hex::encode(random)))
}

/// Where `bytes` read `BASH_SOURCE` as a parameter (`$BASH_SOURCE`,
/// `${BASH_SOURCE…`, `${#BASH_SOURCE…`, `${!BASH_SOURCE…`, the name ending
/// there): the offsets of the name.
fn references(bytes: &[u8]) -> Vec<usize> {
    let identifier = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = bytes[from..]
        .windows(NAME.len())
        .position(|w| w == NAME)
        .map(|p| p + from)
    {
        from = at + NAME.len();
        if bytes.get(from).is_some_and(identifier) {
            continue;
        }
        let before = &bytes[..at];
        let dollar = match before {
            [.., b'$', b'{', b'#' | b'!'] => at - 3,
            [.., b'$', b'{'] => at - 2,
            [.., b'$'] => at - 1,
            _ => continue,
        };
        // `$$BASH_SOURCE` is the shell's process number, then text.
        let dollars = before[..=dollar]
            .iter()
            .rev()
            .take_while(|b| **b == b'$')
            .count();
        if dollars % 2 == 1 {
            found.push(at);
        }
    }
    found
}

/// `bytes` with each `BASH_SOURCE` reference ([`references`]) renamed to
/// `name`.
fn renamed(bytes: &[u8], name: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut copied = 0;
    for at in references(bytes) {
        out.extend_from_slice(&bytes[copied..at]);
        out.extend_from_slice(name.as_bytes());
        copied = at + NAME.len();
    }
    out.extend_from_slice(&bytes[copied..]);
    out
}

impl Launch {
    /// `/proc/self/fd/N` of the copy with `BASH_SOURCE` renamed, when
    /// there is one.
    pub(super) fn renamed_fd_path(&self) -> Option<String> {
        let renamed = self.renamed.as_ref()?;
        Some(format!("/proc/self/fd/{}", renamed.fd.as_raw_fd()))
    }

    /// The `-c` text with which `shell` (its words, the program first or
    /// after `env`) sources the sealed script (`fd_path`): `. FD`, or,
    /// when the script reads `BASH_SOURCE` and the shell may be bash (the
    /// only shell that sets it), the renamed name made an array of `$0`
    /// (in `sh`, only when it is bash; `${V[-1]}` of a scalar fails) and
    /// the renamed copy sourced.
    pub(super) fn sourcing(&self, shell: &[String], fd_path: &str) -> String {
        let program = shell
            .iter()
            .map(|word| base_name(word))
            .find(|name| super::SOURCING_SHELLS.contains(&name.as_str()));
        let (Some(renamed), Some(path)) = (&self.renamed, self.renamed_fd_path()) else {
            return format!(". {fd_path}");
        };
        let name = &renamed.name;
        match program.as_deref() {
            Some("bash") => format!("{name}[0]=$0; readonly {name}; . {path}"),
            Some("sh") => format!(
                "[ -z \"${{BASH_VERSION+x}}\" ] || {{ {name}[0]=$0; readonly {name}; }}; . {path}"
            ),
            _ => format!(". {fd_path}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::binding::Code;

    fn with(text: &str) -> String {
        String::from_utf8(renamed(text.as_bytes(), "V")).expect("UTF-8")
    }

    #[test]
    fn only_references_to_the_parameter_are_renamed() {
        for (text, want) in [
            ("${BASH_SOURCE[0]%/*}", "${V[0]%/*}"),
            ("\"${BASH_SOURCE:-$0}\"", "\"${V:-$0}\""),
            ("$BASH_SOURCE/x $BASH_SOURCE", "$V/x $V"),
            ("${#BASH_SOURCE[@]} ${!BASH_SOURCE[@]}", "${#V[@]} ${!V[@]}"),
            ("$$$BASH_SOURCE", "$$$V"),
            (
                "$BASH_SOURCE_X ${BASH_SOURCE_X}",
                "$BASH_SOURCE_X ${BASH_SOURCE_X}",
            ),
            (
                "MY_BASH_SOURCE=1 $MY_BASH_SOURCE",
                "MY_BASH_SOURCE=1 $MY_BASH_SOURCE",
            ),
            ("$$BASH_SOURCE $#BASH_SOURCE", "$$BASH_SOURCE $#BASH_SOURCE"),
            ("$${BASH_SOURCE}", "$${BASH_SOURCE}"),
            ("declare -p BASH_SOURCE", "declare -p BASH_SOURCE"),
        ] {
            assert_eq!(with(text), want, "{text}");
        }
        assert!(references(b"echo $0 MY_BASH_SOURCE").is_empty());
    }

    fn installed(program: &str) -> bool {
        std::process::Command::new(program)
            .args(["-c", ":"])
            .status()
            .is_ok_and(|status| status.success())
    }

    /// What `argv`, rewritten by a launch of `bytes` as `/p/x.sh`, prints.
    fn run(bytes: &str, argv: &[&str]) -> String {
        let code = Code {
            path: PathBuf::from("/p/x.sh"),
            word: "/p/x.sh".to_owned(),
            fd_safe: true,
            is_program: false,
        };
        let launch = Launch::seal(&code, bytes.as_bytes()).expect("memfd");
        let mut argv: Vec<String> = argv.iter().map(|w| (*w).to_owned()).collect();
        launch
            .rewrite(&mut argv, Path::new("/"))
            .expect("rewritten");
        let output = std::process::Command::new(&argv[0])
            .args(&argv[1..])
            .output()
            .expect("runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    #[test]
    fn bash_sees_the_scripts_path_as_its_source() {
        let script = "d=\"${BASH_SOURCE%/*}\"; echo \"$d ${BASH_SOURCE[-1]} ${#BASH_SOURCE[@]}\"\n\
                      [[ \"${BASH_SOURCE[0]}\" == \"$0\" ]] && echo main\n";
        assert_eq!(
            run(script, &["bash", "-e", "/p/x.sh"]),
            "/p /p/x.sh 1\nmain\n"
        );
        // A script that sets the renamed name itself cannot know it.
        let preset = "__hermes_source_0000000000000000=/x; echo ${BASH_SOURCE[0]}\n";
        assert_eq!(run(preset, &["bash", "/p/x.sh"]), "/p/x.sh\n");
        // `sh` sets it only where it is bash; dash leaves it unset, as it
        // would by path.
        let unset = "echo \"${BASH_SOURCE-unset}\"\n";
        if installed("dash") {
            assert_eq!(run(unset, &["dash", "/p/x.sh"]), "unset\n");
        }
        let sh_is_bash = std::process::Command::new("sh")
            .args(["-c", "echo ${BASH_VERSION+bash}"])
            .output()
            .is_ok_and(|out| out.stdout == b"bash\n");
        let want = if sh_is_bash { "/p/x.sh\n" } else { "unset\n" };
        assert_eq!(run(unset, &["sh", "/p/x.sh"]), want);
    }

    #[test]
    fn the_copy_read_by_path_and_the_text_name_the_renamed_copy() {
        let code = Code {
            path: PathBuf::from("/p/tools/g.sh"),
            word: "tools/g.sh".to_owned(),
            fd_safe: true,
            is_program: false,
        };
        let launch = Launch::seal(&code, b"echo \"$BASH_SOURCE\"\n").expect("memfd");
        let renamed = launch.renamed_fd_path().expect("renamed");
        let bytes = std::fs::read(&renamed).expect("read back");
        let name = &launch.renamed.as_ref().expect("renamed").name;
        let prefix = own_path(name, Path::new("/p/tools/g.sh"));
        assert_eq!(bytes, format!("{prefix}echo \"${name}\"\n").as_bytes());
        assert!(name.starts_with("__hermes_source_") && name.len() == 32);
        let mut text = "cd /p && bash tools/g.sh a".to_owned();
        launch
            .rewrite_text(&mut text, Path::new("/p"))
            .expect("rewritten");
        let want =
            format!("cd /p && bash -c '{name}[0]=$0; readonly {name}; . {renamed}' tools/g.sh a");
        assert_eq!(text, want);
        // Redirecting the renamed copy's descriptor runs the script by path.
        let number = renamed.rsplit('/').next().expect("number");
        let mut text = format!("exec {number}>lock; bash tools/g.sh");
        assert!(launch.rewrite_text(&mut text, Path::new("/p")).is_none());
        // Bytes that do not read it seal no second copy.
        let plain = Launch::seal(&code, b"echo $0\n").expect("memfd");
        assert!(plain.renamed_fd_path().is_none());
    }

    #[test]
    fn the_strings_a_command_runs_source_the_renamed_copy() {
        let dir = tempfile::tempdir().expect("tempdir");
        let script = dir.path().join("tools/g.sh");
        std::fs::create_dir_all(dir.path().join("tools")).expect("tools");
        std::fs::write(&script, "echo swapped\n").expect("script");
        let code = Code {
            path: script,
            word: "tools/g.sh".to_owned(),
            fd_safe: true,
            is_program: false,
        };
        let sealed = b"[[ ${BASH_SOURCE[0]} == \"$0\" ]] && echo \"${BASH_SOURCE%/*} $1\"\n";
        let launch = Launch::seal(&code, sealed).expect("memfd");
        for text in [
            "bash tools/g.sh a",
            r#"bash -c "bash tools/g.sh a""#,
            "eval 'bash tools/g.sh a'",
            r#"sh -c "bash -c 'bash tools/g.sh a'""#,
        ] {
            let (rewritten, stdout) = rewritten_run(&launch, text, dir.path());
            assert_eq!(stdout, "tools a\n", "{text} ran as {rewritten}");
        }
        // Sourced by the text itself: its own path, not the descriptor's
        // (`${BASH_SOURCE%/*}/../cwd` reached the folder it runs in).
        let sourced = Launch::seal(&code, b"echo \"${BASH_SOURCE%/*}\"\n").expect("memfd");
        let (rewritten, stdout) = rewritten_run(&sourced, "bash -c '. tools/g.sh'", dir.path());
        let want = format!("{}\n", dir.path().join("tools").display());
        assert_eq!(stdout, want, "{rewritten}");
    }

    /// `text` rewritten by `launch` and run by `sh` in `dir`: the text and
    /// what it printed.
    fn rewritten_run(launch: &Launch, text: &str, dir: &Path) -> (String, String) {
        let mut rewritten = text.to_owned();
        launch.rewrite_text(&mut rewritten, dir).expect("rewritten");
        let output = std::process::Command::new("sh")
            .args(["-c", &rewritten])
            .current_dir(dir)
            .output()
            .expect("sh runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        (rewritten, stdout)
    }
}
