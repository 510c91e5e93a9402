//! Short waits without sleeping, shared by the caller waiting for a result
//! and the worker waiting for its next job.
//!
//! The spin yields the CPU between checks from the start. Measured on a
//! crowded 2-vCPU VM (see BENCHMARKS.md): a hot spin wins only while both
//! threads really run on their own CPUs; when the thread we wait for is
//! runnable on *our* CPU (just woken next to its waker, preempted by a
//! neighbour, or a one-CPU process), every microsecond spent hot delays it,
//! and "was it spinning a moment ago" does not tell the two cases apart.

use std::time::{Duration, Instant};

/// Waits up to `budget` for `ready` without sleeping, yielding the CPU
/// between checks so the thread we wait for can run on ours. True when
/// `ready` held.
pub(crate) fn spin_until(budget: Duration, ready: impl Fn() -> bool) -> bool {
    let started = Instant::now();
    let mut checks: u32 = 0;
    loop {
        if ready() {
            return true;
        }
        checks = checks.wrapping_add(1);
        // Reading the clock and yielding cost more than a check: every 16th time.
        if checks.is_multiple_of(16) {
            if started.elapsed() >= budget {
                return false;
            }
            std::thread::yield_now();
            continue;
        }
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spin_reports_readiness_and_gives_up_after_its_budget() {
        assert!(spin_until(Duration::from_secs(5), || true));
        let started = Instant::now();
        assert!(!spin_until(Duration::from_millis(2), || false));
        assert!(started.elapsed() >= Duration::from_millis(2));
    }
}
