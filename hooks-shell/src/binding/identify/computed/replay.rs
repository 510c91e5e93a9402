//! A function's `"$@"` read as the words of each of its calls (`run() {
//! log; "$@"; }; run npx x`: R41-7), wherever it stands in a command
//! (`flock LOCK "$@"`: R42-4).

use super::cut::Command;
use super::words::Words;
use super::{MAX_CALLS, is_all_arguments};

impl super::Reader {
    /// Why `words`, whose word `at` is `"$@"`, runs a computed name when
    /// that word is each recorded call's words (from a later word too
    /// after a `shift`).
    pub(super) fn replay(
        &mut self,
        words: &[String],
        at: usize,
        command: &Command,
        previous: Option<&Command>,
        reading: &Words,
        depth: usize,
    ) -> Option<String> {
        // A function passing its arguments to another (R42-10), or more
        // calls than are read.
        if self.replaying > 2 || self.calls.len() >= MAX_CALLS {
            return Some("its functions pass their arguments on further than can be read".into());
        }
        self.replaying += 1;
        let mut found = None;
        'calls: for call in self.calls.clone() {
            let starts = self.shifts.saturating_add(1).min(call.len().max(1));
            for from in 0..starts {
                let given = &call[from.min(call.len())..];
                if at == 0 && given.first().is_some_and(|w| is_all_arguments(w)) {
                    continue;
                }
                let mut replayed = words[..at].to_vec();
                replayed.extend(given.iter().cloned());
                replayed.extend(words[at + 1..].iter().cloned());
                let inner = command.with_words(replayed);
                found = self.command(&inner, previous, reading, depth);
                if found.is_some() {
                    break 'calls;
                }
            }
        }
        self.replaying -= 1;
        found
    }
}

/// How many leading words `shift ARGS` takes off: its written count (1
/// with none), or all when the count is not written or it runs in a loop
/// (`looping`).
pub(super) fn shifted(args: &[String], looping: bool) -> usize {
    let count = match args.first() {
        None => Some(1),
        Some(word) => word.parse::<usize>().ok(),
    };
    match (count, looping) {
        (Some(count), false) => count,
        _ => usize::MAX,
    }
}

impl super::Reader {
    /// Keeps [`super::Reader::loop_depth`]: a command opening a loop (its
    /// keywords `leading`, then `words`) goes one deeper, `done` one out.
    pub(super) fn count_loops(&mut self, leading: &[String], words: &[String]) {
        let opens = leading
            .iter()
            .any(|w| matches!(w.as_str(), "while" | "until"))
            || words
                .first()
                .is_some_and(|w| matches!(w.as_str(), "for" | "select"));
        if opens {
            self.loop_depth += 1;
        }
        if words.first().is_some_and(|w| w == "done") {
            self.loop_depth = self.loop_depth.saturating_sub(1);
        }
    }
}
