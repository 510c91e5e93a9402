//! What the tests a runner finds start (red team round 72: a pytest test
//! running `subprocess.run(["make", "-s", "lint"])`, a Jest test's
//! `execSync("make -s lint")`, one giving `git commit` a
//! `GIT_CONFIG_GLOBAL`): the test files are bound by content, but the
//! definitions the commands written out in them execute (the `Makefile`,
//! a `package.json`'s scripts, git's hooks) were not, and an edit of those
//! ran unasked. They are read as a hook's own code's are
//! ([`crate::binding::definitions::reached_from_code`]). A command a test
//! builds when it runs is not read (a test suite often starts the program
//! it tests by a computed path): see `docs/decisions/what-consent-does-not-bind.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::binding::BindError;

/// The most test files read for what they start.
const MAX_READ: usize = 2_000;

/// Binds in `mentioned` the definitions the commands written out in the
/// test files `tests` start execute, run in `cwd` of `project`.
pub(super) fn bind(
    tests: &[PathBuf],
    (cwd, project): (&Path, &Path),
    mentioned: &mut BTreeMap<PathBuf, String>,
) -> Result<(), BindError> {
    let mut roots: Vec<PathBuf> = Vec::new();
    for test in tests.iter().take(MAX_READ) {
        let started = crate::binding::identify::started_by_file(test);
        if started.is_empty() {
            continue;
        }
        let reached =
            crate::binding::definitions::reached_from_code(&started.join("\n"), cwd, false);
        if let Some(why) = reached.computed {
            return Err(BindError::Computed(format!(
                "a test it runs ({}) starts commands that {why}",
                test.display()
            )));
        }
        for root in reached.roots {
            if !roots.contains(&root) {
                roots.push(root);
            }
        }
    }
    let roots: Vec<PathBuf> = roots
        .into_iter()
        .filter(|root| root.starts_with(project) && !mentioned.contains_key(root))
        .collect();
    crate::binding::named_digests::bind_named_files(roots, project, mentioned)
}
