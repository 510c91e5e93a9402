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

/// Words without one of which no Python test starts a program
/// (`subprocess`, `os.system`, `os.popen`, `os.exec*`, `os.spawn*`,
/// `pty`, `getoutput`), as the reading of started commands finds them, or
/// imports a module by a name it builds (`import_module`, `__import__`).
const PYTHON_STARTS: [&str; 8] = [
    "subprocess",
    "system",
    "popen",
    "exec",
    "spawn",
    "pty",
    "import_module",
    "__import__",
];

/// The same for Node (`child_process`, `execa`).
const NODE_STARTS: [&str; 2] = ["child_process", "execa"];

/// The same for Perl (`system`, `exec`, backquotes, `qx`, `readpipe`,
/// a piped `open`, `IPC::`).
const PERL_STARTS: [&str; 7] = ["system", "exec", "`", "qx", "readpipe", "open", "IPC::"];

/// A folder test code names, written out, for what it starts
/// (`cwd="sub"`, `cwd: "sub"`, `os.chdir("sub")`, Perl's `chdir "sub"`).
static FOLDER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r#"(?:\bcwd\s*[=:]\s*|\bchdir\s*\(?\s*)["']([^"'$`\\]+)["']"#)
        .expect("valid regex")
});

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
        // Most tests start nothing: only those naming a way to are read
        // for what they start (reading every test so cost each emit of a
        // suite of 500 files seconds).
        let Some(text) = crate::binding::peek::small_text(test) else {
            continue;
        };
        let ending = test.extension().and_then(|e| e.to_str()).unwrap_or("");
        let (words, language): (&[&str], _) = match ending {
            "py" => (&PYTHON_STARTS, "python3"),
            "js" | "cjs" | "mjs" | "ts" | "cts" | "mts" | "jsx" | "tsx" => (&NODE_STARTS, "node"),
            "t" | "pl" | "pm" | "pmc" => (&PERL_STARTS, "perl"),
            _ => (&[""], ""),
        };
        if !words.iter().any(|word| text.contains(word)) {
            continue;
        }
        // `prove` hands a `.t` file to Perl, `#!` line or not (round 73).
        let interpreter = (ending == "t" && !text.starts_with("#!")).then_some("perl");
        // `os.spawnlp(…)`, `getattr(subprocess, "run")`, `promisify(exec)`:
        // a start no reading follows (round 73: TS-14, TS-15, JT-06).
        if let Some(how) = crate::binding::identify::unfollowed_start(language, &text) {
            return Err(BindError::Computed(format!(
                "a test it runs ({}) starts programs in a way this reading does not follow \
                 (`{how}`)",
                test.display()
            )));
        }
        let started = crate::binding::identify::started_by_file_in(test, interpreter);
        if started.is_empty() {
            continue;
        }
        // In the folder it runs in, and in each folder the test names as
        // theirs (`cwd="sub"`, `os.chdir("sub")`: round 73, TS-05).
        let mut folders = vec![cwd.to_path_buf()];
        folders.extend(
            FOLDER
                .captures_iter(&text)
                .map(|found| cwd.join(&found[1]))
                .take(8),
        );
        for folder in folders {
            let lines = started.join("\n");
            let reached = crate::binding::definitions::reached_from_code(&lines, &folder, false);
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
    }
    let roots: Vec<PathBuf> = roots
        .into_iter()
        .filter(|root| root.starts_with(project) && !mentioned.contains_key(root))
        .collect();
    crate::binding::named_digests::bind_named_files(roots, project, mentioned)
}
