//! The git hook `pre-commit install` writes: a bash script running
//! `pre-commit hook-impl` with the settings file and hook type its
//! templated lines give. Read as a script, it names what it runs by text
//! computed when it runs (`"${ARGS[@]}"`), so a `git commit` guard in such
//! a repository could not be approved once hooks were read (sweep 71). A
//! hook that is pre-commit's template byte for byte outside its templated
//! lines (known by the digest of that text), whose templated lines are the
//! two it writes, is read as the `pre-commit run` it comes to; any other
//! text is read as it is.

use std::path::PathBuf;
use std::sync::LazyLock;

use regex::Regex;
use sha2::{Digest, Sha256};

/// The SHA-256 of pre-commit's hook template (4.x) without what lies
/// between its `# start templated` and `# end templated` lines.
const TEMPLATE_SHA256: &str = "84130410b0a4de37b1f28426edcf37aaae38b0e0db28cdd8fc3ca6c060455cf5";

/// What the hook holding `text` runs when it is pre-commit's: the line it
/// comes to (`pre-commit run -c <settings>`), and the Python it runs
/// pre-commit with, when one is written.
pub(super) fn runs(text: &str) -> Option<(String, Option<PathBuf>)> {
    const START: &str = "# start templated\n";
    const END: &str = "# end templated\n";
    let start = text.find(START)? + START.len();
    let end = text[start..].find(END)? + start;
    let outside = format!("{}{}", &text[..start], &text[end..]);
    if hex::encode(Sha256::digest(outside.as_bytes())) != TEMPLATE_SHA256 {
        return None;
    }
    static TEMPLATED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"^INSTALL_PYTHON=([A-Za-z0-9_./+-]*|'')\nARGS=\(hook-impl((?: --(?:config|hook-type)=[A-Za-z0-9_./-]+| --skip-on-missing-config)*)\)\n$",
        )
        .expect("valid regex")
    });
    let templated = TEMPLATED.captures(&text[start..end])?;
    let python = Some(&templated[1])
        .filter(|python| !python.is_empty() && *python != "''")
        .map(PathBuf::from);
    let settings = templated[2]
        .split_whitespace()
        .find_map(|word| word.strip_prefix("--config="))
        .unwrap_or(".pre-commit-config.yaml");
    Some((format!("pre-commit run -c {settings}"), python))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_pre_commits_own_hook_is_read_as_pre_commit_run() {
        let text = "#!/usr/bin/env bash\n# start templated\nINSTALL_PYTHON=''\nARGS=(hook-impl)\n# end templated\nmake -s lint\n";
        assert!(runs(text).is_none(), "another script is read as it is");
        assert!(runs("#!/bin/sh\nmake -s lint\n").is_none());
    }
}
