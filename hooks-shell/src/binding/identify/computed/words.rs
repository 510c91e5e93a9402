//! How a word of shell text is read for [`super::computed_name`]: whether
//! it holds text computed when it runs, and the substitutions written back.

use std::collections::BTreeSet;

use super::cut::mark;

/// Variables whose value changes from run to run.
pub(super) const RUN_TIME_VARIABLES: [&str; 17] = [
    "RANDOM",
    "SRANDOM",
    "EPOCHSECONDS",
    "EPOCHREALTIME",
    "BASHPID",
    "SECONDS",
    "LINENO",
    "PPID",
    "BASH_COMMAND",
    "_",
    "REPLY",
    "MAPFILE",
    "BASH_REMATCH",
    "OPTARG",
    "COPROC",
    "PIPESTATUS",
    "BASH_ARGV",
];

/// What carries computed text while reading.
#[derive(Default, Clone)]
pub(super) struct Taint {
    /// Variables holding it.
    pub(super) variables: BTreeSet<String>,
    /// The positional parameters (`set --`, a function's or a `-c`
    /// string's arguments).
    pub(super) positional: bool,
    /// `IFS` is set (the assignment): an unquoted expansion splits as the
    /// text chooses.
    pub(super) splitting: Option<String>,
    /// `$0` holds it (a `-c` string's first argument).
    pub(super) zero: bool,
    /// A literal `set --` gave the positional parameters.
    pub(super) pieces: bool,
    /// A `cd` to a computed folder ran: every relative name after it.
    pub(super) cwd: bool,
    /// Every variable the text assigns (computed or not).
    pub(super) assigned: BTreeSet<String>,
    /// The plain values the text gives variables (`X=sh`).
    pub(super) values: std::collections::BTreeMap<String, String>,
    /// Variables the text sets to text of its own (no computed text).
    pub(super) plain: BTreeSet<String>,
    /// Variables of a `for` loop over plain words.
    pub(super) looped: BTreeSet<String>,
    /// How many times the text sets each variable, so far.
    pub(super) counts: std::collections::BTreeMap<String, usize>,
    /// How many times the whole text sets each (the first reading's count).
    pub(super) totals: std::collections::BTreeMap<String, usize>,
}

impl Taint {
    /// Records that the text sets `name`.
    pub(super) fn count(&mut self, name: &str) {
        *self.counts.entry(name.to_owned()).or_default() += 1;
    }

    /// Whether the text sets `name` once at most.
    pub(super) fn once(&self, name: &str) -> bool {
        let count = |counts: &std::collections::BTreeMap<String, usize>| {
            counts.get(name).copied().unwrap_or(0)
        };
        count(&self.counts).max(count(&self.totals)) <= 1
    }

    /// The plain value of `word` when it is one variable the text set to
    /// plain words (`$X`, `${X}`, `"$X"` after shlex).
    pub(super) fn static_value(&self, word: &str) -> Option<String> {
        let name = word.strip_prefix('$')?;
        let name = name
            .strip_prefix('{')
            .and_then(|n| n.strip_suffix('}'))
            .unwrap_or(name);
        (!self.variables.contains(name))
            .then(|| self.values.get(name).cloned())
            .flatten()
    }

    /// Whether `word` is a relative path after a `cd` to a computed folder.
    pub(super) fn moved(&self, word: &str) -> bool {
        word.contains('/') && self.moved_script(word)
    }

    /// Whether `word`, a script's name (found from the folder, not on
    /// `PATH`), is relative after a `cd` to a computed folder.
    pub(super) fn moved_script(&self, word: &str) -> bool {
        self.cwd && !word.starts_with(['/', '~', '$', '\u{e000}'])
    }
}

/// How the words of one piece of text are read.
#[derive(Clone, Copy)]
pub(super) struct Words<'a> {
    /// Per substitution: whether it only finds a place.
    pub(super) places: &'a [bool],
    pub(super) substitutions: &'a [String],
}

impl Words<'_> {
    /// Whether `word`, in a name's place, holds text computed when it
    /// runs: a substitution other than a place leading the word (or
    /// leading a `${NAME:-…}` default), a variable such text was put in,
    /// the positional parameters when they hold it, `${!…}`, arithmetic,
    /// `$$`, `$?`, a variable that changes each run, or any expansion once
    /// the text sets `IFS`.
    pub(super) fn is_computed(&self, word: &str, taint: &Taint) -> bool {
        self.holds_run_time_text(word, taint)
            // `tools/g${NOPE}.sh`: pieces no reading joins (R42-1).
            || super::pieces::pieced(word, taint)
    }

    /// [`Words::is_computed`] of a program's word: one found on `PATH` by
    /// a variable's value alone (`"$EDITOR"`, `${PYTHON:-python3}`) is the
    /// environment's choice, not pieces of a file's name; `"$R.sh"` is
    /// (R43-10).
    pub(super) fn is_computed_program(&self, word: &str, taint: &Taint) -> bool {
        let chosen = !word.contains('/') && super::pieces::is_one_expansion(word);
        self.holds_run_time_text(word, taint) || (!chosen && super::pieces::pieced(word, taint))
    }

    /// [`Words::is_computed`] but for names joined from pieces.
    pub(super) fn holds_run_time_text(&self, word: &str, taint: &Taint) -> bool {
        let marked = self.marks(word).any(|i| {
            let place = self.places.get(i).copied().unwrap_or(false);
            !place || !leads(word, &mark(i))
        });
        marked
            || self.holds_computed(word, taint)
            // A substitution not read apart: computed.
            || ["${!", "$((", "$[", "$$", "$?", "$!", "$(", "`"].iter().any(|s| word.contains(s))
            || (taint.splitting.is_some() && word.contains('$'))
            // `${X%XX}sh` of a value the text set: a name made of pieces
            // no reading joins (R41-5); `~` after `HOME=…`.
            || transforms(word, &taint.assigned)
            || (taint.pieces && joins_positional(word))
            || (word.starts_with('~') && taint.variables.contains("HOME"))
            // `${X@P}`: X expanded as a prompt, its `$(…)` run (R41-4).
            || word.contains("@P}")
    }

    /// Whether `text`, code of its own (a `-c` string, `eval`'s words, a
    /// trap), was made of computed text before it runs: a substitution
    /// (other than a place) the outer shell runs in it. Its own `$(…)` is
    /// code, and a variable in it is read where the code is read (the
    /// taint carries over): quotes are gone by now.
    pub(super) fn is_computed_text(&self, text: &str) -> bool {
        self.marks(text)
            .any(|i| !self.places.get(i).copied().unwrap_or(false))
    }

    pub(super) fn holds_computed(&self, word: &str, taint: &Taint) -> bool {
        let positional =
            |name: &str| name.chars().all(|c| c.is_ascii_digit()) && (name != "0" || taint.zero);
        expands(word, |name| {
            taint.variables.contains(name)
                || RUN_TIME_VARIABLES.contains(&name)
                || (taint.positional && positional(name))
        }) || (taint.positional && ["$@", "$*", "${@", "${*"].iter().any(|s| word.contains(s)))
    }

    /// Whether `word` is one substitution of a program's set-up code
    /// (`eval "$(brew shellenv)"`, `pyenv init -`).
    pub(super) fn is_setup(&self, word: &str) -> bool {
        let Some(i) = self.marks(word).next().filter(|i| word == mark(*i)) else {
            return false;
        };
        let inner = self
            .substitutions
            .get(i)
            .map(|s| s.split_whitespace().collect::<Vec<_>>());
        matches!(
            inner.as_deref(),
            Some(
                ["brew", "shellenv", ..]
                    | ["pyenv" | "rbenv" | "nodenv", "init", ..]
                    | ["ssh-agent", ..]
            )
        )
    }

    pub(super) fn marks<'w>(&self, word: &'w str) -> impl Iterator<Item = usize> + 'w {
        word.split('\u{e000}')
            .skip(1)
            .filter_map(|rest| rest.split_once('\u{e001}'))
            .filter_map(|(index, _)| index.parse().ok())
    }

    /// `word` with its substitutions written back.
    pub(super) fn shown(&self, word: &str) -> String {
        let mut shown = word.to_owned();
        for (i, inner) in self.substitutions.iter().enumerate() {
            shown = shown.replace(&mark(i), &format!("$({inner})"));
        }
        shown
    }
}

/// Whether `word` starts with `mark`, or with a `${NAME:-…}` default that
/// does (`${CLAUDE_PROJECT_DIR:-$(pwd)}/x.sh`: R40-5).
pub(super) fn leads(word: &str, mark: &str) -> bool {
    if word.starts_with(mark) {
        return true;
    }
    let Some(rest) = word.strip_prefix("${") else {
        return false;
    };
    let name_end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let after = &rest[name_end..];
    ["-", ":-", "=", ":="].iter().any(|op| {
        after
            .strip_prefix(op)
            .is_some_and(|default| default.starts_with(mark))
    })
}

/// Whether `word` expands a variable `named` accepts (`$N`, `${N}`,
/// `${N:-x}`, `${N[0]}`).
pub(super) fn expands(word: &str, named: impl Fn(&str) -> bool) -> bool {
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

pub(super) fn is_name(word: &str) -> bool {
    word.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `word` expands `${NAME<op>…}` with an operator that changes the
/// text (`%`, `#`, `/`, `^`, `,`, `:N`, `@`) of a variable in `assigned`.
/// A transform leading a folder (`"${D#x}/check.py"`) is read as any
/// folder elsewhere (round 32); one that makes the file's name is not.
fn transforms(word: &str, assigned: &BTreeSet<String>) -> bool {
    word.match_indices("${").any(|(at, _)| {
        let rest = &word[at + 2..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let (name, after) = rest.split_at(end);
        let changes = after.starts_with(['%', '#', '/', '^', ',', '@'])
            || after.starts_with(':') && !after[1..].starts_with(['-', '=', '?', '+']);
        let names_file = after
            .find('}')
            .is_none_or(|close| !after[close + 1..].starts_with('/'));
        changes && names_file && assigned.contains(name)
    })
}

/// Whether `word` joins positional parameters a literal `set --` gave into
/// a name (`"$1/$2.$3"`, `g.$1`), rather than leading a folder with one
/// (`"$1"/bin/lint`, read as the folders its words match: R41-5).
fn joins_positional(word: &str) -> bool {
    static POSITIONAL: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\$(?:[1-9@*]|\{[1-9@*][^}]*\})").expect("valid regex")
    });
    let found: Vec<_> = POSITIONAL.find_iter(word).collect();
    match found.as_slice() {
        [] => false,
        [one] => !word[one.end()..].starts_with('/') || one.start() > 0,
        _ => true,
    }
}
