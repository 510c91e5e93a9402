//! The git hooks a `git` command may run (`githooks(5)`), and what they run
//! read as git runs them from the top of the work tree (red team rounds
//! 67–70). Each subcommand runs its own hooks: `git status` and `git diff`
//! may write the index (`post-index-change`), a ref update runs
//! `reference-transaction`, `git commit` its commit hooks; a subcommand this
//! reading does not know (an alias) may run any. Only those are read, so a
//! `git status` guard in a repository whose `pre-commit` hook the reading
//! cannot follow stays approvable (sweep 71); every file of the folders is
//! bound all the same.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use super::{Reached, reached_within};

/// The names of the hooks git runs (`githooks(5)`).
const GIT_HOOKS: [&str; 28] = [
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "p4-changelist",
    "p4-prepare-changelist",
    "p4-post-changelist",
    "p4-pre-submit",
    "post-index-change",
];

/// The hooks one `git` command may run.
#[derive(Debug)]
pub(super) enum Run {
    /// Those named.
    These(Vec<&'static str>, Option<String>),
    /// Any (a subcommand this reading does not know).
    Any,
}

impl Run {
    /// Whether the hook file `name` may be run.
    fn runs(&self, name: &str) -> bool {
        match self {
            Run::These(names, extra) => names.contains(&name) || extra.as_deref() == Some(name),
            Run::Any => GIT_HOOKS.contains(&name),
        }
    }
}

/// The hooks `args` (git's words after `git`) may run; `named`: the hook
/// `git hook run` is given.
pub(super) fn run_by(args: &[String], named: Option<&str>) -> Run {
    const INDEX: &str = "post-index-change";
    const REFS: &str = "reference-transaction";
    const COMMIT: [&str; 7] = [
        "pre-commit",
        "prepare-commit-msg",
        "commit-msg",
        "post-commit",
        "post-rewrite",
        "pre-auto-gc",
        "post-index-change",
    ];
    let subcommand = subcommand(args);
    let these = |names: &[&'static str]| Run::These(names.to_vec(), named.map(str::to_owned));
    match subcommand {
        None | Some("version" | "help" | "config" | "var") => these(&[]),
        Some(
            "log" | "show" | "rev-parse" | "rev-list" | "ls-files" | "ls-tree" | "cat-file"
            | "grep" | "blame" | "shortlog" | "for-each-ref" | "show-ref" | "check-ignore"
            | "check-attr" | "name-rev" | "whatchanged",
        ) => these(&[]),
        // `describe --dirty` refreshes the index (round 72).
        Some("status" | "diff" | "add" | "rm" | "mv" | "restore" | "update-index" | "describe") => {
            these(&[INDEX])
        }
        Some("branch" | "tag" | "update-ref" | "symbolic-ref") => these(&[REFS, "post-checkout"]),
        // A fetch may end in `gc --auto` (round 72).
        Some("fetch" | "remote") => these(&[REFS, "post-checkout", "pre-auto-gc"]),
        Some("commit") => these(&[&COMMIT[..], &[REFS]].concat()),
        Some("checkout" | "switch" | "reset" | "clone" | "worktree") => {
            these(&[REFS, INDEX, "post-checkout"])
        }
        Some("merge" | "pull" | "cherry-pick" | "revert" | "rebase" | "am" | "stash") => Run::Any,
        Some("push") => these(&[REFS, "pre-push", "post-update", "pre-auto-gc"]),
        Some("gc" | "maintenance") => these(&["pre-auto-gc", REFS]),
        Some("hook") => these(&[]),
        Some(_) => Run::Any,
    }
}

/// git's subcommand in `args` (its words after `git`), its own options
/// before it skipped.
pub(super) fn subcommand(args: &[String]) -> Option<&str> {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path" => {
                words.next();
            }
            _ if word.starts_with('-') => {}
            found => return Some(found),
        }
    }
    None
}

/// The most hook files read for one `git`.
const MAX_HOOKS: usize = 32;

/// Reads what the hooks in `folders` (the git folder's `hooks`,
/// `core.hooksPath`) run, as git runs them from the top of the work tree:
/// a `pre-commit` hook running `make -s lint` binds the Makefile (round
/// 67: each hook was bound as a file, and what it ran was not read).
pub(super) fn hooks(
    folders: &[PathBuf],
    work_tree: &Path,
    run: &Run,
    at: (bool, usize),
    found: &mut Reached,
) {
    // A `git` a hook runs (`git checkout` in a `pre-commit` hook runs
    // `post-checkout`: round 72) reads the hooks its subcommand runs, each
    // hook file once per outermost reading (sweep 71: git-lfs's four hooks
    // running `git lfs …` read each other past the reading's bound).
    thread_local! {
        static READ: std::cell::RefCell<(usize, Vec<PathBuf>)> =
            const { std::cell::RefCell::new((0, Vec::new())) };
    }
    /// Ends one reading; the outermost forgets the hooks read.
    struct Reading;
    impl Drop for Reading {
        fn drop(&mut self) {
            READ.with_borrow_mut(|(depth, read)| {
                *depth -= 1;
                if *depth == 0 {
                    read.clear();
                }
            });
        }
    }
    READ.with_borrow_mut(|(depth, _)| *depth += 1);
    let _reading = Reading;
    let first_time = |hook: &Path| {
        READ.with_borrow_mut(|(_, read)| {
            let new = !read.iter().any(|known| known == hook);
            if new {
                read.push(hook.to_path_buf());
            }
            new
        })
    };
    read_hooks(folders, work_tree, run, at, found, &first_time);
}

/// [`hooks`], outermost.
fn read_hooks(
    folders: &[PathBuf],
    work_tree: &Path,
    run: &Run,
    (project_hook, depth): (bool, usize),
    found: &mut Reached,
    first_time: &dyn Fn(&Path) -> bool,
) {
    let mut hooks: Vec<PathBuf> = Vec::new();
    for folder in folders {
        let Ok(listing) = std::fs::read_dir(folder) else {
            continue;
        };
        for entry in listing.flatten() {
            let path = entry.path();
            let sample = path.extension().is_some_and(|ending| ending == "sample");
            if !sample && path.is_file() {
                hooks.push(path);
            }
        }
    }
    hooks.sort();
    if hooks.len() > MAX_HOOKS {
        found.computed.get_or_insert_with(|| {
            format!("its git runs hooks from folders holding more than {MAX_HOOKS} files")
        });
        return;
    }
    for hook in hooks {
        // What git never runs (husky's `h`, a `.gitignore`): bound, and
        // read where a hook sources it.
        let name = hook
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or("");
        if !run.runs(name) || !first_time(&hook) {
            found.add(hook);
            continue;
        }
        let Some(text) = super::follow::read_or_refuse(&hook, found) else {
            continue;
        };
        // pre-commit's own hook: the `pre-commit run` it comes to.
        if let Some((line, python)) = super::pre_commit_hook::runs(&text) {
            python.into_iter().for_each(|python| found.add(python));
            super::follow::recipe_files(&line, work_tree, found);
            reached_within(&line, work_tree, project_hook, found, depth + 1);
            found.add(hook);
            continue;
        }
        // husky's shim: the project's hook it runs; husky 8's hook: the
        // rest of its text.
        let husky =
            super::husky::runs(&hook, &text).or_else(|| super::husky::runs_v8(&hook, &text));
        if let Some((line, read)) = husky {
            read.into_iter().for_each(|file| found.add(file));
            super::follow::recipe_files(&line, work_tree, found);
            reached_within(&line, work_tree, project_hook, found, depth + 1);
            found.add(hook);
            continue;
        }
        // A hook in Python, Node or Perl: the commands its code starts
        // (`subprocess.run(["make", "lint"])`: round 68), unless it starts
        // them in a way that reading does not follow (round 70).
        if let Some(how) = unfollowed_start(&text) {
            found.computed.get_or_insert_with(|| {
                format!(
                    "the git hook {} starts programs in a way this reading does not follow \
                     (`{how}`)",
                    hook.display()
                )
            });
            return;
        }
        let mut lines = crate::binding::identify::started_by_file(&hook);
        lines.push(text);
        for line in &lines {
            super::follow::recipe_files(line, work_tree, found);
            reached_within(line, work_tree, project_hook, found, depth + 1);
        }
        found.add(hook);
    }
}

/// How the code `text` (a git hook in Python, Perl or Node) starts a
/// program in a way the reading of what code starts does not follow: a
/// Python module's call reached by `getattr` or `__dict__`, `os.spawn*`
/// or `os.exec*`; Perl's `system` or `exec` given an array; Node's
/// `child_process` reached by a computed key (round 70: G-08b, G-09b,
/// G-13b, G-13c).
fn unfollowed_start(text: &str) -> Option<String> {
    static PYTHON: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\bimport\s+(?:subprocess|os|pty)\b|\bfrom\s+(?:subprocess|os|pty)\s+import\b")
            .expect("valid regex")
    });
    static DYNAMIC: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"\bgetattr\s*\(|__dict__|\bos\.(?:spawn|exec|posix_spawn)\w*|\bpty\.spawn|\b(?:system|exec)\s*\(?\s*@|child_process["']?\s*\)?\s*\["#,
        )
        .expect("valid regex")
    });
    let first = text.lines().next().unwrap_or("");
    let code =
        first.starts_with("#!") && ["python", "perl", "node"].iter().any(|l| first.contains(l));
    if !code {
        return None;
    }
    let language = ["python", "perl", "node"]
        .into_iter()
        .find(|language| first.contains(language))
        .map_or("", |language| {
            if language == "python" {
                "python3"
            } else {
                language
            }
        });
    let Some(found) = DYNAMIC.find(text) else {
        // `promisify(exec)`, a function taken as a value (round 73, JT-06).
        return crate::binding::identify::unfollowed_start(language, text);
    };
    let python_only = found.as_str().starts_with("getattr") || found.as_str() == "__dict__";
    (!python_only || PYTHON.is_match(text)).then(|| found.as_str().to_owned())
}
