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

/// husky's shims, each a hook of `.husky/_` (v9.1, v9.0), with or without
/// a last newline.
const SHIMS: [&str; 2] = [
    "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"",
    "#!/usr/bin/env sh\n. \"${0%/*}/h\"",
];

/// The SHA-256 of husky's `h` (v9.1), byte for byte: only that text is
/// read as husky's (round 69: a vertical tab a trimmed comparison let
/// through named another hook file).
const RUNNER_SHA256: &str = "c795b47d881bda5919b76f8cba568f7e4081be88c16832800a752f06256d2ac7";

/// What the git hook `hook` (holding `text`) runs when it is husky's shim
/// beside husky's own `h`: the line git's run of it comes to (the
/// project's hook by that name, with `node_modules/.bin` first on `PATH`),
/// and the files it reads besides (`h`, the user's `husky/init.sh`).
pub(super) fn runs(hook: &Path, text: &str) -> Option<(String, Vec<PathBuf>)> {
    let folder = hook.parent()?;
    let name = hook.file_name()?.to_str()?;
    let shim = text.strip_suffix('\n').unwrap_or(text);
    if !SHIMS.contains(&shim) || name == "h" {
        return None;
    }
    let runner = folder.join("h");
    let bytes = hermes_hooks_core::regular_file::read_capped(&runner, 64 * 1024).ok()?;
    if hex::encode(Sha256::digest(&bytes)) != RUNNER_SHA256 {
        return None;
    }
    let project_hook = folder.parent()?.join(name);
    let quote = |path: &Path| Some(shlex::try_quote(path.to_str()?).ok()?.into_owned());
    let mut line = format!(
        "PATH=\"node_modules/.bin:$PATH\" sh -e {}",
        quote(&project_hook)?
    );
    // The user's `husky/init.sh`, sourced first where it is (round 69:
    // what it sources ran unread).
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| hermes_hooks_core::home::user_home().map(|home| home.join(".config")));
    let mut read = vec![runner];
    if let Some(init) = config.map(|config| config.join("husky/init.sh")) {
        if init.is_file() {
            line = format!(". {}; {line}", quote(&init)?);
        }
        read.push(init);
    }
    Some((line, read))
}

/// The SHA-256 of husky 8's `_/husky.sh`, byte for byte.
const V8_RUNNER_SHA256: &str = "ceaa8a7ff3d7f6e880b26a8139745fc842f1cfe91240455837bd443f8aa6adc3";

/// How a husky 8 hook starts: sourcing `_/husky.sh`, which runs the rest
/// of the hook with `sh -e` after the user's `~/.huskyrc`.
const V8_STARTS: [&str; 2] = [
    "#!/usr/bin/env sh\n. \"$(dirname -- \"$0\")/_/husky.sh\"\n",
    "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/_/husky.sh\"\n",
];

/// What the husky 8 hook `hook` (holding `text`) runs when it starts as
/// husky writes it beside husky's own `_/husky.sh`: the rest of its text
/// (after the user's `~/.huskyrc`, sourced when there), and the files it
/// reads besides.
pub(super) fn runs_v8(hook: &Path, text: &str) -> Option<(String, Vec<PathBuf>)> {
    let rest = V8_STARTS
        .iter()
        .find_map(|start| text.strip_prefix(start))?;
    let runner = hook.parent()?.join("_/husky.sh");
    let bytes = hermes_hooks_core::regular_file::read_capped(&runner, 64 * 1024).ok()?;
    if hex::encode(Sha256::digest(&bytes)) != V8_RUNNER_SHA256 {
        return None;
    }
    let mut read = vec![runner];
    let mut line = rest.to_owned();
    if let Some(rc) = hermes_hooks_core::home::user_home().map(|home| home.join(".huskyrc")) {
        if rc.is_file() {
            let quoted = shlex::try_quote(rc.to_str()?).ok()?.into_owned();
            line = format!(". {quoted}\n{line}");
        }
        read.push(rc);
    }
    Some((line, read))
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
    }
}
