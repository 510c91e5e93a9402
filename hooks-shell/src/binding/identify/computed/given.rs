//! The scripts a shell text runs with arguments computed when it runs
//! (`~/bin/y "$(printf tools/g.%s sh)"`, `g=$(…); bash ~/lib/y.sh "$g"`,
//! `xargs ~/bin/y`), and the words of those calls, so that a script it
//! reaches is read with them: there `sh "$1"` runs a name computed when
//! the first script runs (red team R45-1), while `exec timeout "$t" "$@"`
//! runs the caller's own program, its computed words data.

use std::collections::BTreeMap;
use std::path::Path;

/// The calls of one script with arguments computed when it runs: each
/// call's arguments, a computed one as `$RANDOM` (computed wherever it is
/// read).
pub(crate) type Calls = Vec<Vec<String>>;

/// The key of calls of a script named through a value no reading holds.
pub(crate) const ANY: &str = "*";

/// A word computed when it runs, as a call's argument.
const COMPUTED: &str = "$RANDOM";

/// The most calls kept per script.
const MAX_KEPT: usize = 16;

use super::Reader;
use super::code_written::Written;
use super::words::Words;

/// The scripts `raw` runs with an argument computed when it runs, by file
/// name, and those calls' arguments; `raw` itself run by `calls` (a script
/// given computed arguments in turn: `~/bin/y "$1"`).
pub(crate) fn scripts_given_computed(raw: &str, calls: &Calls) -> BTreeMap<String, Calls> {
    let (_, first, second) = read_twice(raw, calls, &Written::default());
    let mut given = first.given;
    for (name, calls) in second.given {
        let kept = given.entry(name).or_default();
        for call in calls {
            if !kept.contains(&call) && kept.len() < MAX_KEPT {
                kept.push(call);
            }
        }
    }
    given
}

/// Why `raw` runs a file named only when it runs, run by `calls` (a
/// script its caller gives computed arguments: R45-1): its positional
/// parameters hold computed text, and its `"$@"` is each call's words.
pub(crate) fn computed_name_given(raw: &str, calls: &Calls) -> Option<String> {
    super::through_proc(raw)
        .or_else(|| super::steering_shell::steering_given_unread(raw))
        .or_else(|| super::steering_shell::trap_after_move(raw))
        .or_else(|| read_twice(raw, calls, &Written::default()).0)
}

/// [`super::computed_name`] of `raw`, run after what ran before it wrote
/// `written`: another language's code that runs it (round 49), or the
/// scripts the hook runs (a bound helper copying what a computed name
/// names, then the hook running the copy: H4).
pub(crate) fn computed_name_after(raw: &str, written: &Written) -> Option<String> {
    super::through_proc(raw)
        .or_else(|| super::steering_shell::steering_given_unread(raw))
        .or_else(|| super::steering_shell::trap_after_move(raw))
        .or_else(|| read_twice(raw, &Vec::new(), written).0)
}

/// The files a script's `text` writes when it runs that may hold code no
/// reading binds, in its `language` (`None`: shell text, as its second
/// reading holds them): what [`super::computed_name`] compares with what
/// the hook runs. A path code builds with no written end is left out (it
/// would match every file).
pub(crate) fn files_written(text: &str, language: Option<&str>) -> Written {
    let Some(language) = language else {
        let (_, _, second) = read_twice(text, &Vec::new(), &Written::default());
        return Written {
            paths: second.written.into_iter().collect(),
            ends: second.written_ends.into_iter().collect(),
        };
    };
    let mut written = super::code_written::written(text, language).unwrap_or_default();
    written.ends.retain(|end| !end.is_empty());
    written
}

/// The files shell `text` writes by a full path written out and never runs
/// (`cat > /tmp/in.json; jq . /tmp/in.json`, `git diff > d.patch`): its
/// own data, whose content before it runs is no code of it (binding it
/// asked again on every run: round 49, U1). A file named only in text
/// another program is given is left out (what it does is not read).
pub(crate) fn data_written(text: &str) -> Vec<String> {
    let (_, first, second) = read_twice(text, &Vec::new(), &Written::default());
    let runs = |path: &String| first.runs.contains(path) || second.runs.contains(path);
    let in_text = |path: &String| {
        first.text_written.contains_key(path) || second.text_written.contains_key(path)
    };
    first
        .written
        .union(&second.written)
        .filter(|path| !runs(path) && !in_text(path))
        // A relative path may be read from a folder a `cd` moved to.
        .filter(|path| path.starts_with(['/', '~']))
        .filter(|path| !path.contains(['$', '`', '*', '?', '[', '\u{e000}']))
        .cloned()
        .collect()
}

/// [`super::computed_name`]'s two readings of `raw`, and both readers:
/// what the first learns (a variable holding computed text, arguments a
/// function gets) holds from the start of the second (a function's body
/// comes before its call).
fn read_twice(raw: &str, calls: &Calls, written: &Written) -> (Option<String>, Reader, Reader) {
    let positional = !calls.is_empty();
    let mut first = Reader {
        calls: calls.clone(),
        written: written.paths.iter().cloned().collect(),
        written_ends: written.ends.iter().cloned().collect(),
        ..Reader::default()
    };
    first.taint.positional = positional;
    let found = first.text(raw, 0);
    let mut second = next_reading(&first, positional);
    let found = match found {
        Some(why) => Some(why),
        None => second.text(raw, 0),
    };
    // A function called with computed text only the second reading finds
    // (`lint "$(dirname "$f")"`, a place until `f` is known: round 57,
    // b50): its body read once more with it.
    let started = first.taint.positional || positional;
    if found.is_none() && second.taint.positional && !started {
        let mut third = next_reading(&second, positional);
        let found = third.text(raw, 0);
        return (found, first, third);
    }
    (found, first, second)
}

/// A reading that starts with what `before` learned (computed variables,
/// a function's arguments, what it wrote).
fn next_reading(before: &Reader, positional: bool) -> Reader {
    let mut taint = before.taint.clone();
    taint.totals = std::mem::take(&mut taint.counts);
    taint.positional |= positional;
    Reader {
        taint,
        calls: before.calls.clone(),
        shifts: before.shifts,
        tainting: before.tainting.clone(),
        aliases: before.aliases.clone(),
        // `while …; do sh /tmp/y.sh; cp "$(…)" /tmp/y.sh; done`: written
        // before it runs again.
        written: before.written.clone(),
        written_ends: before.written_ends.clone(),
        text_written: before.text_written.clone(),
        ..Reader::default()
    }
}

impl Reader {
    /// Records the scripts the command `words` (wrappers read through:
    /// its program first) gives text computed when it runs, and the words
    /// it gives them: a word naming a script (its program, or a word with
    /// a `/` or a script's ending) followed by a computed word; every
    /// script `xargs` or `find` runs (the names they give come from their
    /// input: one computed word more).
    pub(super) fn note_given(
        &mut self,
        words: &[String],
        is_computed: &dyn Fn(&str) -> bool,
        reading: &Words,
    ) {
        let Some(program) = words.first() else { return };
        let feeds = matches!(super::base_name(program).as_str(), "xargs" | "find");
        for (at, word) in words.iter().enumerate() {
            // `bash "$L" "$(…)"`: a variable may name the script too (R47-1).
            let names_script = at == 0 || word.contains(['/', '$']) || looks_like_script(word);
            let after = &words[at + 1..];
            let later_computed = feeds && at > 0 || after.iter().any(|w| is_computed(w));
            if !names_script || !later_computed || is_computed(word) {
                continue;
            }
            // `Y=~/bin/y; "$Y" "$(…)"`: the value the text gave it.
            let word = self
                .taint
                .static_value(word)
                .unwrap_or_else(|| word.clone());
            let shown = reading.shown(&word);
            // `"$Y" "$(…)"` with `Y=$HOME/bin/y`, `"$D/y"`: a script no
            // value names here; its calls reach every script read (R47-1).
            let name = match shown.contains(['$', '`']) {
                true => ANY.to_owned(),
                false => match Path::new(&shown).file_name() {
                    Some(name) => name.to_string_lossy().into_owned(),
                    None => continue,
                },
            };
            let mut call: Vec<String> = after
                .iter()
                .map(|w| match is_computed(w) {
                    true => COMPUTED.to_owned(),
                    false => reading.shown(w),
                })
                .collect();
            if feeds {
                call.push(COMPUTED.to_owned());
            }
            let kept = self.given.entry(name).or_default();
            if !kept.contains(&call) && kept.len() < MAX_KEPT {
                kept.push(call);
            }
        }
    }
}

/// Whether `word` ends like a script (`y.sh`, `check.py`).
fn looks_like_script(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    crate::script::SCRIPT_EXTENSIONS
        .iter()
        .any(|ext| lower.ends_with(ext))
}
