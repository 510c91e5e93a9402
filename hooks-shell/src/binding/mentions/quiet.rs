//! Where shell code names a folder without loading it (red-team R6b-9): a
//! guard `grep -rq console.log "$CLAUDE_PROJECT_DIR/src"` or a comment
//! `# checks src/` names `src`, and binding `src/index.js` for it made the
//! guard ask again after each edit the agent made there.
//!
//! A word of shell code is *quiet* when each of its occurrences is on a
//! comment line (not `#!`) or an operand of a simple command that runs
//! nothing and prints nothing a caller could read as a name (the list the
//! fail-closed `if` rule uses, `dialect/known_programs.rs`: `test`, `[`,
//! `grep -q`...; not `cd`, which changes where what follows runs). A folder
//! named only by quiet words is a place but its entry files are not bound.
//! Whatever is not read for sure loads: a line inside quotes, `$( )`,
//! backquotes or a here-document, a line the strict reading
//! (`dialect/shell_words.rs`) cannot read, `$'...'` anywhere in the text.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use super::read;
use crate::dialect::known_programs::{
    Kind, args_run_nothing, changes_what_runs, known, prints_nothing,
};
use crate::dialect::shell_words::{SimpleCommand, simple_commands};

/// A text's words, split into those that may load what they name, the
/// operands of programs that run nothing (data), and the quiet rest.
#[derive(Debug)]
pub(super) struct Reading {
    /// The text with each quiet or data part blanked.
    loading: String,
    /// The quiet parts, one a line (`None`: the whole text loads).
    quiet: Option<String>,
    /// The commands that run nothing but print (`grep x f`, `cat f`), one a
    /// line.
    data: String,
}

/// Where a word of shell code was read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Tier {
    /// Only in comments and commands that run and print nothing.
    Quiet,
    /// Also as an operand of a program that runs nothing but prints (what
    /// it prints may be read as a name: it may load a folder, not run a
    /// data file).
    Data,
    /// Anywhere else: a program it is given may run it.
    Loading,
}

impl Reading {
    /// `text` (shell code) read for the words it only names.
    pub(super) fn shell(text: &str) -> Reading {
        let chunks = if text.contains("$'") || text.contains("$\"") || text.contains("$_") {
            // (`$_`: the last word of the command before, `: f; sh "$_"`.)
            // ANSI-C quoting spells any name (`$'\x73rc'`).
            None
        } else {
            top_level_chunks(text)
        };
        let Some(chunks) = chunks else {
            return Reading::loading(text);
        };
        let mut loading = String::with_capacity(text.len());
        let (mut quiet, mut data) = (String::new(), String::new());
        for chunk in chunks {
            split_chunk(chunk, &mut loading, &mut quiet, &mut data);
        }
        Reading {
            loading,
            quiet: Some(quiet),
            data,
        }
    }

    /// `text`, every word of which may load what it names.
    pub(super) fn loading(text: &str) -> Reading {
        Reading {
            loading: text.to_owned(),
            quiet: None,
            data: String::new(),
        }
    }

    /// The text with its quiet parts blanked.
    pub(super) fn loading_part(&self) -> &str {
        &self.loading
    }

    /// The words of `text` (the text read), each with where it was read;
    /// then the words the loading part spells with its quotes and escapes
    /// removed (`s""rc`, `s\rc`), which load.
    pub(super) fn words(&self, text: &str) -> Vec<(String, Tier)> {
        let all = read::words(text);
        let Some(quiet) = &self.quiet else {
            // And the words quotes split (`"$DIR/tools/.."/lib/x`).
            let known: BTreeSet<String> = all.iter().cloned().collect();
            let unquoted = read::words(&read::without_quotes(text));
            let joined = unquoted.into_iter().filter(|word| !known.contains(word));
            return all
                .into_iter()
                .chain(joined)
                .map(|word| (word, Tier::Loading))
                .collect();
        };
        let quiet: BTreeSet<String> = read::words(quiet).into_iter().collect();
        let data: BTreeSet<String> = read::words(&self.data).into_iter().collect();
        let unquoted = read::words(&read::without_quotes(&self.loading));
        let mut loading: BTreeSet<&String> = unquoted.iter().collect();
        let raw = read::words(&self.loading);
        loading.extend(&raw);
        let tier = |word: &String| {
            if loading.contains(word) || !(quiet.contains(word) || data.contains(word)) {
                Tier::Loading
            } else if data.contains(word) {
                Tier::Data
            } else {
                Tier::Quiet
            }
        };
        let mut out: Vec<(String, Tier)> =
            all.iter().map(|word| (word.clone(), tier(word))).collect();
        let known: BTreeSet<&String> = all.iter().collect();
        out.extend(
            unquoted
                .iter()
                .filter(|word| !known.contains(word))
                .map(|word| (word.clone(), Tier::Loading)),
        );
        out
    }

    /// The globs of the loading part but `case` patterns: each may name a
    /// folder only quiet words spell (`cd s?c && make`).
    pub(super) fn loading_globs(&self) -> Vec<String> {
        read::words(&read::without_case_patterns(&self.loading))
            .into_iter()
            .filter(|word| read::is_glob(word))
            .collect()
    }
}

/// Whether shell code `text` may change what a program's name runs or make
/// the shell print the commands it runs: a function (`grep() { ...; }`),
/// `alias`, `hash`, `enable`, `source` or `.` (what it reads may define
/// them), `eval`, `trap`, an assignment to what picks the program (`PATH`,
/// `BASH_ENV`, `BASH_FUNC_grep%%`...), a `SHELL` a makefile runs recipes
/// with, `set -x` / `-v` or a shell run so. Then no word of any text read is
/// quiet: `grep -q x src` may be anything. Read in the loading part of the
/// text (a comment that says `source` is not one).
pub(super) fn redefines_what_runs(text: &str) -> bool {
    static COMMANDS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"(?m)(?:^|[\s;&|(){}`/])(?:",
            r"function[ \t]|alias\b|hash\b|enable\b|source\b|\.[ \t]|eval\b|trap\b",
            r"|[^\s;&|()<>'`]+[ \t]*\([ \t]*\)",
            r"|set[ \t]+(?:-[a-zA-Z]*[xv]|[-+]o[ \t]+(?:xtrace|verbose))",
            r"|[a-z]*sh[ \t]+-[a-zA-Z]*[xv]",
            r")",
        ))
        .expect("valid regex")
    });
    static ASSIGNED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"([A-Za-z_][A-Za-z0-9_%]*)[ \t]*[:+?!]?=").expect("valid regex")
    });
    COMMANDS.is_match(text)
        || ASSIGNED.captures_iter(text).any(|captures| {
            let name = &captures[1];
            changes_what_runs(name) || name == "SHELL"
        })
}

/// Whether the glob `pattern` may name the folder called `name`: one of its
/// parts matches it.
pub(super) fn glob_may_name(pattern: &str, name: &str) -> bool {
    pattern
        .split('/')
        .any(|part| read::is_glob(part) && crate::binding::globbing::wildcard(part, name))
}

/// Appends `chunk` (a top-level piece of shell code) to `loading`, its
/// quiet parts blanked and appended to `quiet`, the commands that run
/// nothing but print blanked and appended to `data`.
fn split_chunk(chunk: &str, loading: &mut String, quiet: &mut String, data: &mut String) {
    let line = chunk.strip_suffix('\n').unwrap_or(chunk);
    let trimmed = line.trim_start();
    if trimmed.starts_with('#') && !trimmed.starts_with("#!") && !line.contains('\n') {
        quiet.push_str(line);
        quiet.push('\n');
        loading.push_str(&" ".repeat(line.len()));
        loading.push_str(&chunk[line.len()..]);
        return;
    }
    let commands = simple_commands(chunk).unwrap_or_default();
    // What a command prints may be piped into one that runs it (`cat f |
    // /bin/sh`, `| while read l; do $l; done`): in a line with a pipe only
    // what prints nothing is quiet (red team round 7, R7c-1).
    let piped = chunk.replace("||", "").contains('|');
    let mut chars: Vec<char> = chunk.chars().collect();
    for command in commands.iter() {
        let (Some((start, end)), Some(prints)) = (command.span, runs_nothing(command)) else {
            continue;
        };
        if prints && piped {
            continue;
        }
        let into = if prints { &mut *data } else { &mut *quiet };
        into.extend(&chars[start..end]);
        into.push('\n');
        for c in &mut chars[start..end] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    }
    loading.extend(chars);
}

/// Whether `command` runs nothing — a known inert program (not `cd`) with
/// arguments that keep it so, writing no file and assigning nothing that
/// changes what runs — and then whether it prints (`Some(true)`).
fn runs_nothing(command: &SimpleCommand) -> Option<bool> {
    if command.writes_file || command.assigned.iter().any(|name| changes_what_runs(name)) {
        return None;
    }
    // `if [ -f x ]`, `while test -e x`, `! grep -q`: the command after
    // a reserved word.
    let keywords = crate::binding::shell::LEADING_KEYWORDS;
    let start = (command.words.iter())
        .take_while(|word| word.literal && keywords.contains(&word.text.as_str()))
        .count();
    let (program, args) = command.words[start..].split_first()?;
    if !program.literal {
        return None;
    }
    let known = known(&program.text)?;
    (known.kind == Kind::Inert && known.name != "cd" && args_run_nothing(known.name, args))
        .then(|| !prints_nothing(known.name, args))
}

/// What a scan of shell code is inside.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Context {
    /// `( )`, `$( )`, `<( )`, `$(( ))`.
    Parens,
    /// `"..."`.
    Double,
    /// `` `...` ``.
    Backquotes,
    /// `${...}`.
    Braces,
}

/// The pieces of `text` that end at a newline outside any quote, `( )`,
/// backquotes, `${ }` or line continuation, each here-document's body with
/// the line that starts it; `None` when the scan is unsure.
fn top_level_chunks(text: &str) -> Option<Vec<&str>> {
    let bytes = text.as_bytes();
    let mut chunks = Vec::new();
    let mut stack: Vec<Context> = Vec::new();
    let mut heredocs: Vec<(String, bool)> = Vec::new();
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        let top = stack.last().copied();
        let next = bytes.get(at + 1).copied();
        if byte == b'\n' && top.is_some() && !heredocs.is_empty() {
            // A here-document's body after a line that goes on.
            return None;
        }
        match (top, byte) {
            (_, b'\\') => at += 1,
            (Some(Context::Backquotes), b'`') | (Some(Context::Double), b'"') => {
                stack.pop();
            }
            (Some(Context::Braces), b'}') => {
                stack.pop();
            }
            (Some(Context::Backquotes | Context::Braces), b'\'' | b'"') => return None,
            (_, b'$') if next == Some(b'(') => {
                stack.push(Context::Parens);
                at += 1;
            }
            (_, b'$') if next == Some(b'{') => {
                stack.push(Context::Braces);
                at += 1;
            }
            (Some(Context::Backquotes), b'$') => {}
            (Some(Context::Double | Context::Braces), b'`') => stack.push(Context::Backquotes),
            (Some(Context::Double | Context::Braces | Context::Backquotes), _) => {}
            // Unquoted, at the top or inside parentheses.
            (_, b'`') => stack.push(Context::Backquotes),
            (_, b'"') => stack.push(Context::Double),
            (_, b'\'') => {
                let close = bytes[at + 1..].iter().position(|b| *b == b'\'')?;
                at += close + 1;
            }
            (_, b'(') => stack.push(Context::Parens),
            // (At the top, a `)` ends a `case` pattern: nothing to close.)
            (Some(Context::Parens), b')') => {
                stack.pop();
            }
            (_, b'#') if at == 0 || b" \t\n;&|()<>".contains(&bytes[at - 1]) => {
                while at + 1 < bytes.len() && bytes[at + 1] != b'\n' {
                    at += 1;
                }
            }
            (_, b'<') if next == Some(b'<') && bytes.get(at + 2) == Some(&b'<') => at += 2,
            (_, b'<') if next == Some(b'<') => {
                if top.is_some() {
                    return None;
                }
                let (delimiter, strip, end) = heredoc_delimiter(bytes, at + 2)?;
                heredocs.push((delimiter, strip));
                at = end;
                continue;
            }
            (None, b'\n') => {
                at += 1;
                for (delimiter, strip) in heredocs.drain(..) {
                    at = after_heredoc(text, at, &delimiter, strip);
                }
                chunks.push(&text[start..at]);
                start = at;
                continue;
            }
            (_, b'c') if top.is_some() && at_word(bytes, at, "case") => return None,
            _ => {}
        }
        at += 1;
    }
    if !stack.is_empty() {
        return None;
    }
    if !heredocs.is_empty() {
        // The body starts after a newline the text does not have.
        return None;
    }
    if start < text.len() {
        chunks.push(&text[start..]);
    }
    Some(chunks)
}

/// Whether `word` stands as a word of its own at `at`.
fn at_word(bytes: &[u8], at: usize, word: &str) -> bool {
    let boundary = |b: Option<&u8>| b.is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'_'));
    bytes[at..].starts_with(word.as_bytes())
        && boundary(at.checked_sub(1).and_then(|before| bytes.get(before)))
        && boundary(bytes.get(at + word.len()))
}

/// The delimiter of a here-document whose `<<` ends before `at`: its word
/// (quotes removed), whether leading tabs are stripped (`<<-`), and where
/// the word ends; `None` when it is not a plain word.
fn heredoc_delimiter(bytes: &[u8], mut at: usize) -> Option<(String, bool, usize)> {
    let strip = bytes.get(at) == Some(&b'-');
    if strip {
        at += 1;
    }
    while matches!(bytes.get(at), Some(b' ' | b'\t')) {
        at += 1;
    }
    let mut word = String::new();
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')' => break,
            b'\'' | b'"' | b'\\' => {}
            b'$' | b'`' => return None,
            b if b.is_ascii() => word.push(b as char),
            _ => return None,
        }
        at += 1;
    }
    (!word.is_empty()).then_some((word, strip, at))
}

/// Where the here-document body that starts at `at` ends: after the line
/// that is `delimiter` (leading tabs stripped when `strip`), or at the end.
fn after_heredoc(text: &str, mut at: usize, delimiter: &str, strip: bool) -> usize {
    while at < text.len() {
        let end = text[at..].find('\n').map_or(text.len(), |n| at + n + 1);
        let line = text[at..end].strip_suffix('\n').unwrap_or(&text[at..end]);
        let line = if strip {
            line.trim_start_matches('\t')
        } else {
            line
        };
        at = end;
        if line == delimiter {
            break;
        }
    }
    at
}

/// How far a word reaches what it names, by where it was read.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(in crate::binding) enum Reach {
    /// Only named (a comment, `grep -q`): a code file, and a folder as a
    /// place without its entry files.
    Quiet,
    /// Where code may load what it names: code files and a folder's entry
    /// files.
    Loads,
    /// Where code may run or read as code any file it names: shell code
    /// (`/bin/sh f`, `"sh" f`, `$SHELL f`, `run=sh; $run f`: red team round
    /// 7, R7b-4), and other code that runs programs or code it reads
    /// (`subprocess.run(['sh', f])`, `exec(open(f).read())`): any file.
    AnyFile,
}
