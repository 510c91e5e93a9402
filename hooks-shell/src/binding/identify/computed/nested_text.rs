//! Text the reading reads inside other text: a `-c` string run with its
//! positional parameters, a command's substitutions read again after a
//! `cd` to a folder named when it runs (round 56, a41), and the words an
//! alias stands for.

use super::cut::Command;

impl super::Reader {
    /// [`super::Reader::text`] of each substitution (other than a place) marked
    /// in `command`'s words.
    pub(super) fn substitutions_of(
        &mut self,
        command: &Command,
        substitutions: &[String],
        places: &[bool],
        depth: usize,
    ) -> Option<String> {
        let marked = |at: usize| {
            command
                .words
                .iter()
                .any(|w| w.contains(&super::cut::mark(at)))
        };
        (0..substitutions.len())
            .filter(|at| !places[*at] && marked(*at))
            .find_map(|at| self.text(&substitutions[at], depth + 1))
    }

    /// [`super::Reader::text`] of a string run with the positional parameters
    /// `positional` (a `-c` string's arguments).
    pub(super) fn string(&mut self, text: &str, positional: bool, depth: usize) -> Option<String> {
        let before = (self.taint.positional, self.taint.zero);
        // A `-c` string's `$0` is its first argument (R41-2); its own calls
        // of its functions with computed text, learned by the first
        // reading, hold from its start (R42-4).
        let learned = self.tainting.contains(text);
        (self.taint.positional, self.taint.zero) = (positional || learned, positional);
        let found = self.text(text, depth + 1);
        if self.taint.positional && !positional {
            self.tainting.insert(text.to_owned());
        }
        self.taint.positional = before.0 || self.taint.positional && positional;
        self.taint.zero = before.1;
        found
    }

    /// `words` with the aliases leading them expanded (`alias r=sh; r x`:
    /// `sh x`, R43-6); a value ending in a blank makes the next word one
    /// too (R44-5).
    pub(super) fn alias_expanded(&self, words: &[String]) -> Vec<String> {
        let mut expanded = Vec::new();
        let mut at = 0;
        while let Some(value) = words.get(at).and_then(|w| self.aliases.get(w)) {
            expanded.extend(shlex::split(value).unwrap_or_else(|| vec![value.clone()]));
            at += 1;
            if !value.ends_with([' ', '\t']) {
                break;
            }
        }
        expanded.extend(words[at..].iter().cloned());
        expanded
    }
}
