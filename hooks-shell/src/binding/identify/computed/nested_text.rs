//! Text the reading reads inside other text: a `-c` string run with its
//! positional parameters, and a command's substitutions read again after
//! a `cd` to a folder named when it runs (round 56, a41).

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
}
