//! Which substitutions only find a place (a folder, a program's path):
//! their output leading a word names no code by itself.

use super::cut::{cut, redirections};
use super::{MAX_DEPTH, base_name};

/// Programs whose output is a folder or a program's path, never text a
/// repository chooses: `git` only as `git rev-parse --show-toplevel` and
/// its kin, `npm` only as `npm bin|root|prefix`, `command`/`type` only as a
/// look-up, `realpath`/`readlink` (what they resolve is named in the text),
/// `pnpm`/`yarn bin`, `poetry env info -p`, `brew --prefix`, `pyenv
/// root`, `go env` and their kin, `echo` only of plain words (its
/// output is its words: `PATH=$(echo .v*/bin):$PATH`; dash's `echo` reads
/// backslashes, so none). Such output only leads a word
/// (`"$(git rev-parse --show-toplevel)"/.claude/hooks/x.sh`): the rest of
/// the word still names the file. Anything else in a name, `$(uname)`
/// included (`tools/$(uname).sh` names no file the text shows), is computed.
const PLACES: [&str; 18] = [
    "pwd", "dirname", "cd", "which", "type", "command", "git", "npm", "pnpm", "yarn", "poetry",
    "realpath", "readlink", "echo", "brew", "pyenv", "rbenv", "go",
];

/// `git rev-parse` options that print a folder.
const GIT_FOLDERS: [&str; 7] = [
    "--git-path",
    "--show-toplevel",
    "--show-cdup",
    "--show-prefix",
    "--git-dir",
    "--git-common-dir",
    "--absolute-git-dir",
];

impl super::Reader {
    /// Whether the substitution `inner` only finds a place ([`PLACES`]).
    pub(super) fn is_place(&mut self, inner: &str, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let cut = cut(inner);
        let nested_places = cut
            .substitutions
            .iter()
            .all(|nested| self.is_place(nested, depth + 1));
        nested_places
            && !cut.commands.iter().any(|c| c.piped)
            && cut.commands.iter().all(|command| {
                let words = &redirections(&command.words).0;
                let Some(first) = words.first() else {
                    return true;
                };
                let program = base_name(first);
                let has = |arg: &str| words.iter().any(|w| w == arg);
                let computed = words.iter().any(|w| self.refers_to_computed(w));
                !computed
                    && PLACES.contains(&program.as_str())
                    && match program.as_str() {
                        "git" => has("rev-parse") && GIT_FOLDERS.iter().any(|a| has(a)),
                        "npm" | "pnpm" => ["bin", "root", "prefix"].iter().any(|a| has(a)),
                        "yarn" => has("bin") || has("dir"),
                        "poetry" => has("env") && (has("-p") || has("--path")),
                        "brew" => has("--prefix") || has("--cellar") || has("--repository"),
                        "pyenv" | "rbenv" => has("root") || has("prefix"),
                        "go" => has("env"),
                        "command" => has("-v") || has("-V"),
                        "type" => has("-p") || has("-P"),
                        // Of a literal path, the output is a name the text
                        // never shows (`$(dirname tools/g.sh/x)`: R42-6).
                        "dirname" | "realpath" | "readlink" | "cd" => words[1..].iter().all(|w| {
                            w.starts_with(['-', '$', '\u{e000}', '~'])
                                || matches!(w.as_str(), "." | "..")
                        }),
                        "echo" => words[1..]
                            .iter()
                            .all(|w| !w.starts_with('-') && !w.contains('\\')),
                        _ => true,
                    }
            })
    }
}

impl super::Reader {
    /// Why `git`, run with `args` (and `words`, the command before its
    /// wrappers were read through: `GIT_DIR=… git`), reads the settings of
    /// a repository named when it runs: after a `cd` to a computed folder,
    /// `-C`, `--git-dir`, `--work-tree` or `GIT_DIR`/`GIT_WORK_TREE`/
    /// `GIT_CONFIG*` computed (red team round 50, k25: a nested repository
    /// whose `core.fsmonitor` runs what it likes). The binding reads the
    /// settings of the folders it can name; such a git cannot be approved.
    pub(super) fn git_in_computed_place(
        &self,
        args: &[String],
        words: &[String],
        run_time: &dyn Fn(&str) -> bool,
    ) -> Option<String> {
        const SETTINGS: [&str; 6] = [
            "GIT_DIR",
            "GIT_WORK_TREE",
            "GIT_COMMON_DIR",
            "GIT_CONFIG",
            "GIT_CONFIG_GLOBAL",
            "GIT_CONFIG_SYSTEM",
        ];
        // `-c include.path=…`, `-c core.fsmonitor=…`: settings read as code.
        let options = ["--git-dir", "--work-tree", "-C", "-c"];
        let mut computed = self.taint.cwd
            || SETTINGS
                .iter()
                .any(|name| self.taint.variables.contains(*name));
        for (at, word) in args.iter().enumerate() {
            computed |= options.iter().any(|option| {
                let joined = word
                    .strip_prefix(option)
                    .map(|rest| rest.trim_start_matches('='))
                    .filter(|rest| !rest.is_empty());
                let value = match joined {
                    Some(value) => Some(value),
                    None if word == option => args.get(at + 1).map(String::as_str),
                    None => None,
                };
                value.is_some_and(run_time)
            });
        }
        computed |= words.iter().any(|word| {
            word.split_once('=')
                .is_some_and(|(name, value)| SETTINGS.contains(&name) && run_time(value))
        });
        computed.then(|| {
            "it runs git in a repository named when it runs, whose settings (`core.fsmonitor`, \
             aliases) no reading binds"
                .to_owned()
        })
    }
}
