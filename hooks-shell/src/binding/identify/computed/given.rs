//! The scripts a shell text runs with arguments computed when it runs
//! (`~/bin/y "$(printf tools/g.%s sh)"`, `g=$(…); bash ~/lib/y.sh "$g"`,
//! `xargs ~/bin/y`), so that a script it reaches is read with such
//! positional parameters: there `sh "$1"` runs a name computed when the
//! first script runs (red team R45-1).

use std::collections::BTreeSet;
use std::path::Path;

use super::Reader;
use super::words::Words;

/// The file names of the scripts `raw` runs with an argument computed
/// when it runs, `raw` itself run with such arguments when `positional`
/// (a script given them in turn: `~/bin/y "$1"`).
pub(crate) fn scripts_given_computed(raw: &str, positional: bool) -> BTreeSet<String> {
    let (_, first, second) = read_twice(raw, positional);
    first.given.into_iter().chain(second.given).collect()
}

/// Why `raw` runs a file named only when it runs, its positional
/// parameters holding computed text when `positional` (a script its
/// caller gives such arguments: R45-1).
pub(crate) fn computed_name_given(raw: &str, positional: bool) -> Option<String> {
    read_twice(raw, positional).0
}

/// [`super::computed_name`]'s two readings of `raw`, and both readers:
/// what the first learns (a variable holding computed text, arguments a
/// function gets) holds from the start of the second (a function's body
/// comes before its call).
fn read_twice(raw: &str, positional: bool) -> (Option<String>, Reader, Reader) {
    let mut first = Reader::default();
    first.taint.positional = positional;
    let found = first.text(raw, 0);
    let mut taint = first.taint.clone();
    taint.totals = std::mem::take(&mut taint.counts);
    taint.positional |= positional;
    let mut second = Reader {
        taint,
        calls: first.calls.clone(),
        shifts: first.shifts,
        tainting: first.tainting.clone(),
        aliases: first.aliases.clone(),
        ..Reader::default()
    };
    let found = match found {
        Some(why) => Some(why),
        None => second.text(raw, 0),
    };
    (found, first, second)
}

impl Reader {
    /// Records the scripts the command `words` (wrappers read through:
    /// its program first) gives text computed when it runs: a word naming
    /// a script (its program, or a word with a `/` or a script's ending)
    /// followed by a computed word; every script `xargs` or `find` runs
    /// (the names they give come from their input).
    pub(super) fn note_given(
        &mut self,
        words: &[String],
        is_computed: &dyn Fn(&str) -> bool,
        reading: &Words,
    ) {
        let Some(program) = words.first() else { return };
        let feeds = matches!(super::base_name(program).as_str(), "xargs" | "find");
        for (at, word) in words.iter().enumerate() {
            let names_script = at == 0 || word.contains('/') || looks_like_script(word);
            let later_computed = feeds && at > 0 || words[at + 1..].iter().any(|w| is_computed(w));
            if !names_script || !later_computed || is_computed(word) {
                continue;
            }
            // `Y=~/bin/y; "$Y" "$(…)"`: the value the text gave it.
            let word = self
                .taint
                .static_value(word)
                .unwrap_or_else(|| word.clone());
            let shown = reading.shown(&word);
            if let Some(name) = Path::new(&shown).file_name() {
                self.given.insert(name.to_string_lossy().into_owned());
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
