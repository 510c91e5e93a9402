//! Matchers as Claude Code matches them, and the `if` permission rules of a
//! handler, both decided in process before anything is spawned.
//!
//! A matcher made only of `[A-Za-z0-9_ ,|-]` is an exact list split on `|`
//! and `,` (so `Edit|Write` does not match `NotebookEdit`); anything else is
//! an unanchored regex; `*`, `""` or no matcher match everything.

use regex::Regex;

use super::file_paths::file_paths;
use super::{path_rule, web_rule};

/// A hook group's `matcher`, compiled.
#[derive(Debug, Clone)]
pub enum DialectMatcher {
    /// No matcher, `""` or `*`.
    All,
    /// An exact list of names.
    Exact(Vec<String>),
    /// An unanchored regex.
    Regex(DialectRegex),
    /// A regex that does not compile: compared literally (with a warning at load).
    Literal(String),
}

/// A compiled unanchored matcher regex. The regex engine stays private: the
/// pattern's text and a match are the API.
#[derive(Debug, Clone)]
pub struct DialectRegex(Regex);

impl DialectRegex {
    /// The pattern as configured (trimmed).
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// Whether the pattern matches somewhere in `value` (unanchored, as Claude Code matches).
    pub fn is_match(&self, value: &str) -> bool {
        self.0.is_match(value)
    }
}

impl DialectMatcher {
    /// Compiles `pattern`; the second value is a warning when it is not a valid regex.
    pub fn build(pattern: Option<&str>) -> (DialectMatcher, Option<String>) {
        let pattern = pattern.unwrap_or("").trim();
        if pattern.is_empty() || pattern == "*" {
            return (DialectMatcher::All, None);
        }
        let exact = pattern
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ' ' | ',' | '|' | '-'));
        if exact {
            let names = pattern
                .split(['|', ','])
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(str::to_owned)
                .collect();
            return (DialectMatcher::Exact(names), None);
        }
        match Regex::new(pattern) {
            Ok(regex) => (DialectMatcher::Regex(DialectRegex(regex)), None),
            Err(error) => (
                DialectMatcher::Literal(pattern.to_owned()),
                Some(format!(
                    "matcher '{pattern}' is not a valid regex ({}); it is compared literally",
                    error.to_string().lines().last().unwrap_or("invalid")
                )),
            ),
        }
    }

    /// Whether `value` (the event's match field) is matched.
    pub fn matches(&self, value: &str) -> bool {
        match self {
            DialectMatcher::All => true,
            DialectMatcher::Exact(names) => names.iter().any(|name| name == value),
            DialectMatcher::Regex(regex) => regex.is_match(value),
            DialectMatcher::Literal(text) => text == value,
        }
    }

    /// The matcher as configured, for `list`; `None` for match-all.
    pub fn describe(&self) -> Option<String> {
        match self {
            DialectMatcher::All => None,
            // `|` alone: never shown as '' (which reads as every tool).
            DialectMatcher::Exact(names) if names.is_empty() => Some("(no tool)".into()),
            DialectMatcher::Exact(names) => Some(names.join("|")),
            DialectMatcher::Regex(regex) => Some(regex.as_str().to_owned()),
            DialectMatcher::Literal(text) => Some(text.clone()),
        }
    }
}

/// A handler's `if`: one permission rule, `Tool` or `Tool(pattern)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Condition {
    /// A rule that parsed.
    Rule {
        /// The Claude tool name (`Bash`, `Edit`).
        tool: String,
        /// The glob inside the parentheses; `None` for the bare tool.
        pattern: Option<String>,
    },
    /// A rule that could not be parsed: the hook runs (as Claude Code does).
    Unparsed(String),
}

impl Condition {
    /// Parses one permission rule.
    pub fn parse(rule: &str) -> Condition {
        let rule = rule.trim();
        let valid_tool = |tool: &str| {
            !tool.is_empty() && tool.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        match rule.split_once('(') {
            None if valid_tool(rule) => Condition::Rule {
                tool: rule.to_owned(),
                pattern: None,
            },
            Some((tool, rest)) if valid_tool(tool) && rest.ends_with(')') => {
                let inner = &rest[..rest.len() - 1];
                // The older `npm run:*` prefix syntax means `npm run*`.
                let inner = inner
                    .strip_suffix(":*")
                    .map_or(inner.to_owned(), |p| format!("{p}*"));
                Condition::Rule {
                    tool: tool.to_owned(),
                    pattern: (!inner.is_empty() && inner != "*").then_some(inner),
                }
            }
            _ => Condition::Unparsed(rule.to_owned()),
        }
    }

    /// Whether the hook runs for a call of `tool` (Claude name) with `input`
    /// (Claude arguments). `Unparsed` always runs.
    pub fn allows(&self, tool: &str, input: &serde_json::Map<String, serde_json::Value>) -> bool {
        let Condition::Rule {
            tool: wanted,
            pattern,
        } = self
        else {
            return true;
        };
        if !rule_covers(wanted, tool) {
            return false;
        }
        let Some(pattern) = pattern else {
            return true;
        };
        let text = |key: &str| input.get(key).and_then(serde_json::Value::as_str);
        match tool {
            "Bash" => {
                let Some(command) = text("command") else {
                    return false;
                };
                match subcommands(command) {
                    Some(parts) => parts.iter().any(|part| {
                        glob(pattern, part)
                            || spellings(part).iter().any(|spelled| glob(pattern, spelled))
                    }),
                    // A command line we cannot split: the hook runs (fail open, as Claude Code).
                    None => true,
                }
            }
            "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit" | "Glob" | "Grep" => {
                file_paths(tool, input)
                    .paths
                    .iter()
                    .any(|path| path_rule::matches(pattern, path))
                    || (matches!(tool, "Glob" | "Grep") && any_value(pattern, input))
            }
            "WebFetch" => text("url").is_some_and(|url| web_rule::matches(pattern, url)),
            "WebSearch" => text("query").is_some_and(|query| glob(pattern, query)),
            _ => any_value(pattern, input),
        }
    }
}

/// The tools a rule of tool `wanted` covers besides itself, as Claude Code
/// applies its permission rules: `Edit` rules to every tool that edits
/// files, `Read` rules to the tools that read them (Grep, Glob, LS).
const COVERED: &[(&str, &[&str])] = &[
    ("Edit", &["Write", "MultiEdit", "NotebookEdit"]),
    ("Read", &["Grep", "Glob", "LS", "NotebookRead"]),
];

/// Whether a rule of tool `wanted` applies to a call of `tool`.
fn rule_covers(wanted: &str, tool: &str) -> bool {
    super::events::answers_to(tool)
        .iter()
        .any(|name| super::events::rule_names(wanted, name))
        || COVERED
            .iter()
            .any(|(rule, tools)| *rule == wanted && tools.contains(&tool))
}

impl Condition {
    /// Whether this rule applies to calls of `tool` (Claude name) at all:
    /// its own tool, or one its rules cover (`Edit` covers `Write`).
    /// `Unparsed` applies to every tool.
    pub fn covers(&self, tool: &str) -> bool {
        match self {
            Condition::Rule { tool: wanted, .. } => rule_covers(wanted, tool),
            Condition::Unparsed(_) => true,
        }
    }
}

/// Whether some string argument matches `pattern` (a tool without a rule
/// syntax of its own).
fn any_value(pattern: &str, input: &serde_json::Map<String, serde_json::Value>) -> bool {
    input
        .values()
        .filter_map(serde_json::Value::as_str)
        .any(|value| glob(pattern, value))
}

impl Condition {
    /// [`Condition::allows`] for a fail-closed handler: a guard must never
    /// be skipped for a call its rule names, so a file path the text does
    /// not settle (`$F`, `~user/x`, `..` under a folder rule) or a file call
    /// whose paths cannot be found runs it, and a Bash command runs it
    /// unless every simple command is shown not to run the program the
    /// rule names (`guard_rule.rs`): cannot decide means run.
    pub fn may_allow(
        &self,
        tool: &str,
        input: &serde_json::Map<String, serde_json::Value>,
    ) -> bool {
        if self.allows(tool, input) {
            return true;
        }
        let Condition::Rule {
            tool: wanted,
            pattern: Some(pattern),
        } = self
        else {
            return false;
        };
        if !rule_covers(wanted, tool) {
            return false;
        }
        match tool {
            // A command that is not a string cannot be read: the guard runs.
            "Bash" => input
                .get("command")
                .and_then(serde_json::Value::as_str)
                .is_none_or(|command| super::guard_rule::may_run(pattern, command)),
            // A call whose files cannot all be found (a V4A body line not
            // read, no path at all) runs the guard too (R6-10).
            "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit" | "Glob" | "Grep" => {
                let found = file_paths(tool, input);
                found.unsure
                    || found.paths.is_empty()
                    || found
                        .paths
                        .iter()
                        .any(|path| path_rule::may_match(pattern, path))
            }
            // A URL that is not a string cannot be read: the guard runs.
            "WebFetch" => input.get("url").is_some_and(|url| {
                url.as_str()
                    .is_none_or(|url| web_rule::may_match(pattern, url))
            }),
            _ => false,
        }
    }
}

/// `*` (and `**`) match any run of characters, `?` one character; the rest is literal.
pub fn glob(pattern: &str, text: &str) -> bool {
    glob_joined(pattern, text, "")
}

/// [`glob`] against `head` followed by `tail`, without joining them.
pub(crate) fn glob_joined(pattern: &str, head: &str, tail: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let char_at = |at: usize| {
        if at < head.len() {
            head[at..].chars().next()
        } else {
            tail[at - head.len()..].chars().next()
        }
    };
    let (mut p, mut t) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while let Some(c) = char_at(t) {
        if p < pattern.len() && (pattern[p] == '?' || pattern[p] == c) {
            p += 1;
            t += c.len_utf8();
        } else if p < pattern.len() && pattern[p] == '*' {
            star = Some(p);
            mark = t;
            p += 1;
        } else if let Some(at) = star {
            p = at + 1;
            mark += char_at(mark).map_or(1, char::len_utf8);
            t = mark;
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

/// The simple commands of a command line: split on `;`, `&&`, `||`, `|`,
/// `&`, newlines, `$(...)` and backticks, each with leading `VAR=value`
/// words stripped. `None` when quotes are unbalanced.
pub fn subcommands(line: &str) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut chars = line.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            current.push(c);
            if c == q {
                quote = None;
            } else if c == '\\'
                && q == '"'
                && let Some(next) = chars.next()
            {
                current.push(next);
            }
            continue;
        }
        match c {
            '\'' | '"' => {
                quote = Some(c);
                current.push(c);
            }
            '\\' => {
                current.push(c);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            ';' | '|' | '&' | '\n' | '`' | '(' | ')' => {
                parts.push(std::mem::take(&mut current));
            }
            '$' if chars.peek() == Some(&'(') => {
                chars.next();
                parts.push(std::mem::take(&mut current));
            }
            _ => current.push(c),
        }
    }
    if quote.is_some() {
        return None;
    }
    parts.push(current);
    Some(
        parts
            .into_iter()
            .map(|part| strip_assignments(part.trim()))
            .filter(|part| !part.is_empty())
            .collect(),
    )
}

/// Words that only lead into the command after them: grouping, compound
/// keywords, and wrappers that run their arguments.
const LEADING_WORDS: &[&str] = &[
    "{", "!", "if", "then", "else", "elif", "do", "while", "until", "time", "command", "builtin",
    "exec", "nohup", "env", "sudo", "doas", "nice", "stdbuf", "timeout",
];

/// How many words of one simple command are tried as its program (`sudo
/// -u root env X=1 timeout 5 rm` needs 9): past it the reading stops, which
/// keeps the work linear in the command (red-team F19: `{ { { … rm` nested
/// 50 000 deep). A fail-closed guard's rule is then undecidable and runs.
pub const MAX_STARTS: usize = 32;

/// The ways a simple command may be the one an `if` rule names, for
/// matching: its words with quotes and backslashes removed and blanks made
/// single spaces (`\rm`, `"rm"`, `rm<TAB>-rf`), from the first word and from
/// each word that only leading words come before (`{ rm`, `then rm`, `sudo
/// -u root rm`, `timeout 5 rm`, `env X=1 rm`): a guard narrowed to
/// `Bash(rm *)` runs for every spelling of `rm`, and `echo 'rm -rf'` stays
/// `echo`. Text that does not split is taken as it is. At most
/// [`MAX_STARTS`] readings.
pub fn spellings(part: &str) -> Spellings {
    let Some(words) = shlex::split(part) else {
        return Spellings {
            text: part.to_owned(),
            starts: vec![0],
            cut: false,
        };
    };
    let mut text = String::with_capacity(part.len());
    let mut offsets = Vec::with_capacity(words.len());
    for word in &words {
        if !text.is_empty() || !offsets.is_empty() {
            text.push(' ');
        }
        offsets.push(text.len());
        text.push_str(word);
    }
    let starts = command_starts(&words);
    Spellings {
        starts: starts.at.iter().map(|&at| offsets[at]).collect(),
        cut: starts.cut,
        text,
    }
}

/// The readings of one simple command ([`spellings`]): suffixes of one
/// text, so their number, not their length, is what they cost.
#[derive(Debug, Clone)]
pub struct Spellings {
    text: String,
    starts: Vec<usize>,
    cut: bool,
}

impl Spellings {
    /// How many readings there are.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether there is none (a command with no words).
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The readings, first word first.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.starts.iter().map(|&at| &self.text[at..])
    }

    /// Whether more words could have been the program than were read
    /// ([`MAX_STARTS`]).
    pub fn cut(&self) -> bool {
        self.cut
    }
}

/// The positions of a simple command's words that may be its program.
pub(crate) struct CommandStarts {
    /// The first word, and each one only leading words come before, at most
    /// [`MAX_STARTS`].
    pub(crate) at: Vec<usize>,
    /// Whether the reading stopped at [`MAX_STARTS`] with leading words left.
    pub(crate) cut: bool,
}

/// The positions of `words` (a simple command, quotes removed) that may be
/// its program: the first, and each one only leading words come before.
pub(crate) fn command_starts(words: &[String]) -> CommandStarts {
    let mut at = Vec::new();
    for position in 0..words.len() {
        if at.len() == MAX_STARTS {
            return CommandStarts { at, cut: true };
        }
        at.push(position);
        let word = words[position].as_str();
        let after_option = position > 0 && words[position - 1].starts_with('-');
        let leads = LEADING_WORDS.contains(&word)
            || is_assignment(word)
            || word.starts_with('-')
            || word
                .chars()
                .all(|c| c.is_ascii_digit() || ".smhd".contains(c))
            || (after_option && position > 1);
        if !leads {
            break;
        }
    }
    CommandStarts { at, cut: false }
}

fn strip_assignments(mut part: &str) -> String {
    loop {
        let Some((word, rest)) = part.split_once(char::is_whitespace) else {
            return if is_assignment(part) {
                String::new()
            } else {
                part.to_owned()
            };
        };
        if !is_assignment(word) {
            return part.to_owned();
        }
        part = rest.trim_start();
    }
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}
