//! Cold calls for the benches: each one after a pause long enough for the
//! workers to stop spinning and park, only the call itself timed.

use std::time::{Duration, Instant};

/// The pause before each cold call: well past the workers' 50 µs spin.
pub const COLD_PAUSE: Duration = Duration::from_millis(1);

/// Runs `call` `iterations` times, each after [`COLD_PAUSE`], and returns the
/// time spent in the calls (for criterion's `iter_custom`).
pub fn timed_after_pause(iterations: u64, mut call: impl FnMut()) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iterations {
        std::thread::sleep(COLD_PAUSE);
        let started = Instant::now();
        call();
        total += started.elapsed();
    }
    total
}
