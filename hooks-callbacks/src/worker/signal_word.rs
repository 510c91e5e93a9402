//! The request's signal word. Its low bits say which signal a worker's
//! holder (a caller, or the pool) gave last: a `JOB`, or `EXIT` when the
//! pool has no room for the worker. Each signal also counts up the high
//! bits, so the worker tells a new signal from the one it already acted on
//! without ever writing the word back: only the holder writes it, and the
//! line the worker polls is never pulled from the next caller by the worker.

/// A caller that took the worker gives it a job.
pub(super) const JOB: u32 = 1;
/// The worker's pool has no room for it: it exits.
pub(super) const EXIT: u32 = 2;
/// The low bits that say which signal it is.
const KIND: u32 = 0b11;
/// What each signal adds to the count.
const STEP: u32 = 0b100;

/// The word after `previous` once `kind` is given.
pub(super) fn next(previous: u32, kind: u32) -> u32 {
    (previous & !KIND).wrapping_add(STEP) | kind
}

/// Whether `word` gives the worker a job (else it says exit).
pub(super) fn is_job(word: u32) -> bool {
    word & KIND == JOB
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_signal_differs_from_the_one_before_and_says_its_kind() {
        let mut word = 0;
        for kind in [JOB, JOB, EXIT, JOB] {
            let following = next(word, kind);
            assert_ne!(following, word, "the worker must see a new signal");
            assert_eq!(is_job(following), kind == JOB);
            word = following;
        }
        // The count wraps without ever giving the word it came from.
        let last = !KIND | JOB;
        let wrapped = next(last, JOB);
        assert_ne!(wrapped, last);
        assert!(is_job(wrapped));
    }
}
