//! Short waits without sleeping, shared by the caller waiting for a result
//! and the worker waiting for its next job.

use std::time::{Duration, Instant};

/// How long a spin stays on the CPU before it starts yielding it. Zero: on a
/// crowded 2-vCPU machine any busy spin measured worse (see BENCHMARKS.md);
/// raise it on hosts with idle cores.
const HOT_SPIN: Duration = Duration::from_micros(0);

/// Waits up to `budget` for `ready`, without sleeping: a hot spin first, then
/// yielding the CPU between checks, so on a crowded machine the thread we wait
/// for can run on ours. True when `ready` held.
pub(crate) fn spin_until(budget: Duration, ready: impl Fn() -> bool) -> bool {
    let started = Instant::now();
    let mut checks: u32 = 0;
    loop {
        if ready() {
            return true;
        }
        checks = checks.wrapping_add(1);
        if checks.is_multiple_of(16) {
            let spent = started.elapsed();
            if spent >= budget {
                return false;
            }
            if spent >= HOT_SPIN {
                std::thread::yield_now();
                continue;
            }
        }
        std::hint::spin_loop();
    }
}
