//! husky's git hooks (v9): `core.hooksPath = .husky/_`, each hook there a
//! shim sourcing `.husky/_/h`, which runs the project's `.husky/<name>`
//! with `sh -e` and `node_modules/.bin` first on `PATH`. Read as a script,
//! `h` names what it runs by text computed when it runs (`$(basename
//! "$0")`), so a guard running `git commit` in a husky project could not be
//! approved (round 68, U-08). A shim and an `h` written exactly as husky
//! writes them (known by the digest of its text) are read as what they
//! run: the project's hook of that name. Any other text is read as it is.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// husky's shims, each a hook of `.husky/_` (v9.1, v9.0).
const SHIMS: [&str; 2] = [
    "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"",
    "#!/usr/bin/env sh\n. \"${0%/*}/h\"",
];

/// The SHA-256 of husky's `h` (v9.1), its lines without their blanks
/// joined by newlines: only that text is read as husky's.
const RUNNER_SHA256: &str = "1c61cbd4b7fc5201899e752dcad192d283e93ce416e257bc489255951a2dfba0";

/// What the git hook `hook` (holding `text`) runs when it is husky's shim
/// beside husky's own `h`: the line git's run of it comes to (the
/// project's hook by that name, with `node_modules/.bin` first on `PATH`),
/// and the files it reads besides (`h`, the user's `husky/init.sh`).
pub(super) fn runs(hook: &Path, text: &str) -> Option<(String, Vec<PathBuf>)> {
    let folder = hook.parent()?;
    let name = hook.file_name()?.to_str()?;
    if !SHIMS.contains(&lines(text).as_str()) || name == "h" {
        return None;
    }
    let runner = folder.join("h");
    let runner_text = crate::binding::peek::small_text(&runner)?;
    let digest = hex::encode(Sha256::digest(lines(&runner_text).as_bytes()));
    if digest != RUNNER_SHA256 {
        return None;
    }
    let project_hook = folder.parent()?.join(name);
    let quoted = shlex::try_quote(project_hook.to_str()?).ok()?.into_owned();
    let line = format!("PATH=\"node_modules/.bin:$PATH\" sh -e {quoted}");
    let mut read = vec![runner];
    if let Some(home) = hermes_hooks_core::home::user_home() {
        read.push(home.join(".config/husky/init.sh"));
    }
    if let Some(config) = std::env::var_os("XDG_CONFIG_HOME") {
        read.push(PathBuf::from(config).join("husky/init.sh"));
    }
    Some((line, read))
}

/// `text`'s lines, blank ones and their edges' blanks left out.
fn lines(text: &str) -> String {
    let kept: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    kept.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_husky_s_own_runner_is_read_as_husky_s() {
        let project = tempfile::tempdir().expect("project");
        let folder = project.path().join(".husky/_");
        std::fs::create_dir_all(&folder).expect("folder");
        let shim = folder.join("pre-commit");
        // Another runner beside a shim: read as it is (the real one is
        // tried through the binary in `trust/round68.rs`).
        let runner = "#!/usr/bin/env sh\nsh -e \"$1\"\nmake -s lint\n";
        std::fs::write(folder.join("h"), runner).expect("h");
        assert!(runs(&shim, SHIMS[0]).is_none());
        assert!(runs(&shim, "#!/bin/sh\nmake -s lint\n").is_none());
        assert_eq!(lines("  a \n\n\tb\n"), "a\nb");
    }
}
