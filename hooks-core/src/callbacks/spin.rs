//! Short waits without sleeping, shared by the caller waiting for a result
//! and the worker waiting for its next job.
//!
//! The spin is hot for its first [`HOT_SPIN`], then yields the CPU between
//! checks. Measured on a crowded 2-vCPU VM (see BENCHMARKS.md): a hot spin
//! wins only while both threads really run on their own CPUs; when the thread
//! we wait for is runnable on *our* CPU (just woken next to its waker,
//! preempted by a neighbour, or a one-CPU process), every microsecond spent
//! hot delays it, and "was it spinning a moment ago" does not tell the two
//! cases apart. So the hot phase is only as long as a warm hand-off takes
//! (a round trip between two running threads is ~0.3 µs here): it catches the
//! common case without a `sched_yield`, and costs a thread sharing our CPU at
//! most that long before we step aside.

use std::time::{Duration, Instant};

/// How long a spin stays hot (no yield) before it starts yielding.
pub(crate) const HOT_SPIN: Duration = Duration::from_micros(2);

/// Waits up to `budget` for `ready` without sleeping: hot for [`HOT_SPIN`],
/// then yielding the CPU between checks so the thread we wait for can run on
/// ours. True when `ready` held.
pub(crate) fn spin_until(budget: Duration, ready: impl Fn() -> bool) -> bool {
    let started = Instant::now();
    let hot = HOT_SPIN.min(budget);
    let mut checks: u32 = 0;
    loop {
        if ready() {
            return true;
        }
        checks = checks.wrapping_add(1);
        // Reading the clock and yielding cost more than a check: every 16th time.
        if checks.is_multiple_of(16) {
            let elapsed = started.elapsed();
            if elapsed >= budget {
                return false;
            }
            if elapsed >= hot {
                std::thread::yield_now();
                continue;
            }
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
        // A budget shorter than the hot phase is still honoured.
        let started = Instant::now();
        assert!(!spin_until(Duration::from_nanos(100), || false));
        assert!(started.elapsed() >= Duration::from_nanos(100));
    }
}
