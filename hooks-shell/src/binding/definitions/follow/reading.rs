//! One thread's recipe and script lines being read: a line already being
//! read further out is not read again inside its own reading, and one
//! outermost reading reads at most [`MAX_RECIPE_READINGS`] lines (round
//! 56: scripts running each other stalled every check).

use std::path::{Path, PathBuf};

/// A recipe line being read in a folder, on this thread: one already
/// being read is not read again inside its own reading, and one outermost
/// reading reads at most [`MAX_RECIPE_READINGS`] lines.
pub(super) struct Reading;

/// What [`Reading::enter`] found.
pub(super) enum Entered {
    /// Read it.
    Reading(Reading),
    /// It is being read further out.
    AlreadyBeingRead,
    /// The outermost reading has read too many lines.
    TooMany,
}

/// The most recipe and script lines one outermost reading reads.
pub(super) const MAX_RECIPE_READINGS: usize = 256;

thread_local! {
    /// The lines being read, outermost first, and how many the outermost
    /// reading has read.
    static READING: std::cell::RefCell<(Vec<(String, PathBuf)>, usize)> =
        const { std::cell::RefCell::new((Vec::new(), 0)) };
}

impl Reading {
    /// The reading of `line` in `dir`, unless it is already being read or
    /// the outermost reading has read too many.
    pub(super) fn enter(line: &str, dir: &Path) -> Entered {
        READING.with_borrow_mut(|(reading, count)| {
            if reading.is_empty() {
                *count = 0;
            }
            let key = (line.to_owned(), dir.to_path_buf());
            if reading.contains(&key) {
                return Entered::AlreadyBeingRead;
            }
            *count += 1;
            if *count > MAX_RECIPE_READINGS {
                return Entered::TooMany;
            }
            reading.push(key);
            Entered::Reading(Reading)
        })
    }
}

impl Drop for Reading {
    fn drop(&mut self) {
        READING.with_borrow_mut(|(reading, _)| reading.pop());
    }
}
