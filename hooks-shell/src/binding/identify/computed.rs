//! Whether a command runs a file whose name exists only when it runs: a
//! program or script named by a command's output (`sh "$(printf
//! tools/g.%s sh)"`, `sh "$(echo hs.g/sloot | rev)"`: red team R38-1,
//! R38-5), by a variable such output was put in, by `read`, by `$RANDOM`,
//! by `eval` of such text, by `xargs` feeding an interpreter, or code piped
//! into a shell from a program that computes it.
//!
//! No reading of the text can name that file, and binding the hook tree
//! does not cover it (the name may reach any file of the project, or of the
//! home folder): such a hook cannot be approved ([`super::super::BindError::Computed`]).
//! A substitution that only finds a place (`$(git rev-parse
//! --show-toplevel)`, `$(dirname "$0")`, `$(pwd)`, `$(command -v python3)`)
//! names no code by itself and is read as before.

use std::collections::BTreeSet;

use super::base_name;

mod cut;
mod interpreters;
use cut::{Command, cut, mark, without_redirections};
use interpreters::{Argument, from_input, script_argument, xargs_program};

/// The deepest substitution, `-c` string or `eval` text read.
const MAX_DEPTH: usize = 8;

/// Programs whose output is a folder or a program's path, never text a
/// repository chooses: `git` only as `git rev-parse --show-toplevel` and
/// its kin, `npm` only as `npm bin|root|prefix`, `command`/`type` only as a
/// look-up, `realpath`/`readlink` only of a variable or `.` (a link of the
/// repository's would name its target), `brew --prefix`, `pyenv
/// root`, `go env` and their kin, `echo` only of plain words (its
/// output is its words: `PATH=$(echo .v*/bin):$PATH`; dash's `echo` reads
/// backslashes, so none). Such output only leads a word
/// (`"$(git rev-parse --show-toplevel)"/.claude/hooks/x.sh`): the rest of
/// the word still names the file. Anything else in a name, `$(uname)`
/// included (`tools/$(uname).sh` names no file the text shows), is computed.
const PLACES: [&str; 15] = [
    "pwd", "dirname", "cd", "which", "type", "command", "git", "npm", "realpath", "readlink",
    "echo", "brew", "pyenv", "rbenv", "go",
];

/// `git rev-parse` options that print a folder.
const GIT_FOLDERS: [&str; 6] = [
    "--show-toplevel",
    "--show-cdup",
    "--show-prefix",
    "--git-dir",
    "--git-common-dir",
    "--absolute-git-dir",
];

/// Variables whose value changes from run to run.
const RUN_TIME_VARIABLES: [&str; 9] = [
    "RANDOM",
    "SRANDOM",
    "EPOCHSECONDS",
    "EPOCHREALTIME",
    "BASHPID",
    "SECONDS",
    "LINENO",
    "PPID",
    "BASH_COMMAND",
];

/// Why `raw` (a hook's command, shell text) runs a file named only when it
/// runs; `None` when every name it runs is written in its text.
pub(crate) fn computed_name(raw: &str) -> Option<String> {
    Reader::default().text(raw, 0)
}

/// What is known while reading: the variables holding computed text.
#[derive(Default)]
struct Reader {
    computed: BTreeSet<String>,
}

impl Reader {
    /// Why `text` runs a computed name, `depth` readings deep.
    fn text(&mut self, text: &str, depth: usize) -> Option<String> {
        if depth > MAX_DEPTH {
            return Some("its text nests deeper than can be read".to_owned());
        }
        let cut = cut(text);
        let places: Vec<bool> = cut
            .substitutions
            .iter()
            .map(|inner| self.is_place(inner, depth + 1))
            .collect();
        // A command's output names nothing run here, but its own commands run.
        for (inner, place) in cut.substitutions.iter().zip(&places) {
            if !place && let Some(why) = self.text(inner, depth + 1) {
                return Some(why);
            }
        }
        let mut previous: Option<&Command> = None;
        for command in &cut.commands {
            let reading = Words {
                places: &places,
                substitutions: &cut.substitutions,
            };
            let found = self.command(command, previous, &reading, depth);
            if found.is_some() {
                return found;
            }
            if !command.words.is_empty() {
                previous = Some(command);
            }
        }
        None
    }

    /// Whether the substitution `inner` only finds a place ([`PLACES`]).
    fn is_place(&mut self, inner: &str, depth: usize) -> bool {
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
                let words = &without_redirections(&command.words, true);
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
                        "npm" => ["bin", "root", "prefix"].iter().any(|a| has(a)),
                        "brew" => has("--prefix") || has("--cellar") || has("--repository"),
                        "pyenv" | "rbenv" => has("root") || has("prefix"),
                        "go" => has("env"),
                        "command" => has("-v") || has("-V"),
                        "type" => has("-p") || has("-P"),
                        "echo" => words[1..]
                            .iter()
                            .all(|w| !w.starts_with('-') && !w.contains('\\')),
                        "realpath" | "readlink" => words[1..]
                            .iter()
                            .all(|w| w.starts_with(['-', '$']) || w == "."),
                        _ => true,
                    }
            })
    }

    fn refers_to_computed(&self, word: &str) -> bool {
        expands(word, |name| self.computed.contains(name))
    }

    /// Why one simple command runs a computed name; records the variables
    /// it assigns computed text to.
    fn command(
        &mut self,
        command: &Command,
        previous: Option<&Command>,
        reading: &Words,
        depth: usize,
    ) -> Option<String> {
        let at = command
            .words
            .iter()
            .position(|w| !super::super::LEADING_KEYWORDS.contains(&w.as_str()))
            .unwrap_or(command.words.len());
        let words = &without_redirections(&command.words[at..], false);
        let first = words.first()?;
        if let Some(why) = self.assigns(words, reading) {
            return Some(why);
        }
        let computed = self.computed.clone();
        let is_computed = |word: &str| reading.is_computed(word, &computed);
        let unwrapped = crate::binding::unwrap(words).words;
        let (program_word, args) = unwrapped.split_first()?;
        if is_computed(program_word) {
            return Some(format!(
                "the program it runs is named by text computed when it runs (`{}`)",
                reading.shown(program_word)
            ));
        }
        let program = base_name(program_word);
        match program.as_str() {
            "eval" => {
                let text = args.join(" ");
                if args.iter().any(|w| is_computed(w)) {
                    return Some(format!(
                        "eval runs text computed when it runs (`{}`)",
                        reading.shown(&text)
                    ));
                }
                self.text(&reading.shown(&text), depth + 1)
            }
            // `cd "$(printf tools)" && sh g.sh`: every relative name after it.
            "cd" | "pushd" if args.iter().any(|w| is_computed(w)) => Some(format!(
                "it changes to a folder computed when it runs (`{first} {}`)",
                reading.shown(&args.join(" "))
            )),
            "xargs" => {
                let interprets = xargs_program(args).is_some_and(|p| {
                    let p = base_name(p);
                    super::INTERPRETERS.contains(&p.as_str())
                        || matches!(p.as_str(), "." | "source" | "eval")
                });
                // `echo tools/g.sh | xargs sh`: names written in the text.
                let echoed = previous.filter(|_| command.piped).is_some_and(|producer| {
                    producer
                        .words
                        .first()
                        .is_some_and(|p| base_name(p) == "echo")
                        && producer.words[1..]
                            .iter()
                            .all(|w| !is_computed(w) && !w.contains('\\'))
                });
                (interprets && !echoed)
                    .then(|| "xargs runs an interpreter on names read from its input".to_owned())
            }
            _ if super::INTERPRETERS.contains(&program.as_str())
                || matches!(program_word.as_str(), "." | "source") =>
            {
                match script_argument(&program, args) {
                    Argument::String(string) if is_computed(string) => Some(format!(
                        "its shell string is computed when it runs (`{}`)",
                        reading.shown(string)
                    )),
                    Argument::String(string) => self.text(&reading.shown(string), depth + 1),
                    Argument::Named(words) => {
                        let word = words.into_iter().find(|w| is_computed(w))?;
                        Some(format!(
                            "its script or module is named by text computed when it runs (`{}`)",
                            reading.shown(word)
                        ))
                    }
                    Argument::Inline => None,
                    Argument::Input => from_input(command.piped, previous, &is_computed),
                }
            }
            _ => None,
        }
    }

    /// Records what `words` (a simple command) assigns computed text to;
    /// why it is refused when that is a search path.
    fn assigns(&mut self, words: &[String], reading: &Words) -> Option<String> {
        let first = words.first()?;
        let mut newly = Vec::new();
        match first.as_str() {
            "for"
                if words.get(2).is_some_and(|w| w == "in")
                    && words[3..]
                        .iter()
                        .any(|w| reading.is_computed(w, &self.computed)) =>
            {
                newly.push(words[1].clone());
            }
            "read" | "mapfile" | "readarray" | "getopts" => {
                newly.extend(words[1..].iter().filter(|w| is_name(w)).cloned());
                newly.extend(["REPLY".to_owned(), "MAPFILE".to_owned()]);
            }
            "printf" => {
                if let Some(i) = words.iter().position(|w| w == "-v") {
                    newly.extend(words.get(i + 1).cloned());
                }
            }
            _ => {}
        }
        let declared = matches!(
            first.as_str(),
            "export" | "local" | "declare" | "typeset" | "readonly" | "env"
        );
        let mut refused = None;
        for word in words.iter().skip(usize::from(declared)) {
            let Some((name, value)) = crate::binding::wrappers::assignment(word) else {
                break;
            };
            if reading.is_computed(&value, &self.computed) {
                if SEARCH_PATHS.contains(&name.as_str()) {
                    refused.get_or_insert(format!(
                        "{name} is set to text computed when it runs (`{}`)",
                        reading.shown(word)
                    ));
                }
                newly.push(name);
            }
        }
        self.computed.extend(newly);
        refused
    }
}

/// Variables that choose which code runs by name.
const SEARCH_PATHS: [&str; 9] = [
    "PATH",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "NODE_PATH",
    "NODE_OPTIONS",
    "PERL5LIB",
    "RUBYLIB",
    "BASH_ENV",
    "ENV",
];

/// How the words of one piece of text are read.
#[derive(Clone, Copy)]
struct Words<'a> {
    /// Per substitution: whether it only finds a place.
    places: &'a [bool],
    substitutions: &'a [String],
}

impl Words<'_> {
    /// Whether `word` holds text computed when it runs: a substitution
    /// other than a place leading the word, a variable such text was put
    /// in, `${!…}`, arithmetic, `$$` or a variable that changes each run.
    fn is_computed(&self, word: &str, computed: &BTreeSet<String>) -> bool {
        let marked = self.marks(word).any(|i| {
            let place = self.places.get(i).copied().unwrap_or(false);
            !place || !word.starts_with(&mark(i))
        });
        marked
            || expands(word, |name| {
                computed.contains(name) || RUN_TIME_VARIABLES.contains(&name)
            })
            // A substitution inside `${…}` (`${X:-$(printf …)}`) is not
            // read apart: computed.
            || ["${!", "$((", "$[", "$$", "$(", "`"].iter().any(|s| word.contains(s))
    }

    fn marks<'w>(&self, word: &'w str) -> impl Iterator<Item = usize> + 'w {
        word.split('\u{e000}')
            .skip(1)
            .filter_map(|rest| rest.split_once('\u{e001}'))
            .filter_map(|(index, _)| index.parse().ok())
    }

    /// `word` with its substitutions written back.
    fn shown(&self, word: &str) -> String {
        let mut shown = word.to_owned();
        for (i, inner) in self.substitutions.iter().enumerate() {
            shown = shown.replace(&mark(i), &format!("$({inner})"));
        }
        shown
    }
}

/// Whether `word` expands a variable `named` accepts (`$N`, `${N}`,
/// `${N:-x}`, `${N[0]}`).
fn expands(word: &str, named: impl Fn(&str) -> bool) -> bool {
    let mut rest = word;
    while let Some(at) = rest.find('$') {
        rest = &rest[at + 1..];
        let name: String = rest
            .trim_start_matches('{')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() && named(&name) {
            return true;
        }
    }
    false
}

fn is_name(word: &str) -> bool {
    word.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests;
