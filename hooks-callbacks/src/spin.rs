//! Short waits without sleeping: an observer queue's consumer watching for
//! the next event before it blocks (`stream.rs`). The bounded hand-off no
//! longer spins (see `batch.rs`'s `wait`): under two busy loops a spinning,
//! yielding caller or worker gave its CPU slice away, a 16 ms p99 for one guard.
//!
//! How a wait spins is its [`Pace`], picked from where the partner (the
//! thread we wait for) last ran. Measured on the 2-vCPU VM (see
//! docs/benchmarks/callbacks.md): a `sched_yield` costs ~0.6 µs here even when nothing else is
//! runnable, five times a warm round trip, so a warm hand-off that yields
//! before its answer comes pays for it; but a hot spin only wins while both
//! threads run on their own CPUs. When the partner is runnable on *our* CPU
//! (just woken next to its waker, or sharing our CPU on a crowded machine),
//! it runs only when we yield: every check before that is wasted. So:
//!
//! - partner on another CPU, or nothing known: [`Pace::Hot`] for a moment,
//!   then yielding every 16th check; the hot phase backs off ([`HotPhase`])
//!   after it missed;
//! - partner on our CPU, or just woken: [`Pace::Yield`], yielding at every check.

use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

/// "No CPU known" (the platform cannot say, or nothing ran yet).
pub(crate) const NO_CPU: u32 = u32::MAX;

/// The CPU this thread runs on now, or [`NO_CPU`]. A few nanoseconds on
/// Linux (glibc reads it from the thread's rseq area).
pub(crate) fn current_cpu() -> u32 {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        nix::sched::sched_getcpu()
            .ok()
            .and_then(|cpu| u32::try_from(cpu).ok())
            .unwrap_or(NO_CPU)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        NO_CPU
    }
}

/// Where the partner is, from the CPU it last reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Partner {
    /// On our CPU: it runs only when we yield.
    Here,
    /// On another CPU: spinning here does not keep it off its CPU.
    Elsewhere,
    /// Nothing known (no report yet, or the platform cannot say).
    Unknown,
}

/// Locates a partner that last reported `partner_cpu`.
pub(crate) fn locate(partner_cpu: u32) -> Partner {
    if partner_cpu == NO_CPU {
        return Partner::Unknown;
    }
    match current_cpu() {
        NO_CPU => Partner::Unknown,
        here if here == partner_cpu => Partner::Here,
        _ => Partner::Elsewhere,
    }
}

/// How a wait spins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pace {
    /// No yield for the first stretch of the budget, then yield every 16th
    /// check (a check costs about a `spin_loop` pause).
    Hot(Duration),
    /// Yield after every failed check: the partner needs our CPU.
    Yield,
}

/// How one wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spun {
    /// Ready at the first check or within the hot phase.
    Hot,
    /// Ready, but only after the spin had started yielding.
    Late,
    /// Not ready within the budget, which started counting at this instant.
    Missed(Instant),
}

impl Spun {
    /// Whether the condition held.
    pub(crate) fn ready(self) -> bool {
        !matches!(self, Spun::Missed(_))
    }
}

/// How many clock-free checks run between two clock reads (a read costs about
/// as much as a check's `spin_loop` pause).
const CHECKS_PER_CLOCK: u32 = 16;

/// The most turns a hot phase sits out after missing in a row (2^6 - 1 = 63).
const MAX_BACKOFF_SHIFT: u8 = 6;

/// What one side learned from its last hot phases: after `n` misses in a row
/// the next 2^n - 1 waits (at most 63) start yielding at once; a hit resets it.
///
/// Shared by callers of one callback (relaxed atomics: a lost update only
/// costs one wait its hot phase, or gives it one). It is written only when
/// something changes, so a warm callback that always answers hot never
/// writes it.
#[derive(Debug, Default)]
pub(crate) struct HotPhase {
    misses: AtomicU8,
    skip: AtomicU8,
}

impl HotPhase {
    /// Whether this wait may start hot; a wait that may not uses up one of
    /// the turns the last miss asked to sit out.
    pub(crate) fn allowed(&self) -> bool {
        let skip = self.skip.load(Ordering::Relaxed);
        if skip == 0 {
            return true;
        }
        self.skip.store(skip - 1, Ordering::Relaxed);
        false
    }

    /// Learns from a wait that started hot.
    pub(crate) fn learn(&self, spun: Spun) {
        if spun == Spun::Hot {
            if self.misses.load(Ordering::Relaxed) != 0 {
                self.misses.store(0, Ordering::Relaxed);
            }
            return;
        }
        let misses = (self.misses.load(Ordering::Relaxed) + 1).min(MAX_BACKOFF_SHIFT);
        self.misses.store(misses, Ordering::Relaxed);
        self.skip.store((1u8 << misses) - 1, Ordering::Relaxed);
    }
}

/// Waits up to `budget` for `ready` without sleeping, at `pace`: hot (no
/// yield) for a moment if it says so, then yielding the CPU between checks so
/// the thread we wait for can run on ours. Reads the clock only when
/// [`CHECKS_PER_CLOCK`] checks failed (or, yielding at every check, when the
/// first did): a warm answer comes within a few checks and costs no clock
/// read. The budget counts from that first read, a few checks late.
pub(crate) fn spin_until(budget: Duration, pace: Pace, ready: impl Fn() -> bool) -> Spun {
    if ready() {
        return Spun::Hot;
    }
    let mut clock = SpinClock::default();
    let mut checks: u32 = 0;
    if let Pace::Hot(hot) = pace {
        loop {
            std::hint::spin_loop();
            if ready() {
                return Spun::Hot;
            }
            checks = checks.wrapping_add(1);
            if checks.is_multiple_of(CHECKS_PER_CLOCK) && clock.elapsed() >= hot.min(budget) {
                break;
            }
        }
    }
    let yield_every = if pace == Pace::Yield {
        1
    } else {
        CHECKS_PER_CLOCK
    };
    loop {
        if ready() {
            return Spun::Late;
        }
        checks = checks.wrapping_add(1);
        // Reading the clock and yielding cost more than a check: every 16th
        // time, unless the partner needs our CPU.
        if checks.is_multiple_of(yield_every) {
            if clock.elapsed() >= budget {
                return Spun::Missed(clock.started());
            }
            std::thread::yield_now();
            continue;
        }
        std::hint::spin_loop();
    }
}

/// The clock of one spin, started at its first read.
#[derive(Default)]
struct SpinClock {
    started: Option<Instant>,
}

impl SpinClock {
    /// Time since the first read (zero at the first read itself).
    fn elapsed(&mut self) -> Duration {
        match self.started {
            Some(started) => started.elapsed(),
            None => {
                self.started = Some(Instant::now());
                Duration::ZERO
            }
        }
    }

    /// When the first read happened (now, if none did).
    fn started(&mut self) -> Instant {
        *self.started.get_or_insert_with(Instant::now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    #[test]
    fn a_spin_reports_readiness_and_gives_up_after_its_budget() {
        for pace in [
            Pace::Hot(Duration::ZERO),
            Pace::Yield,
            Pace::Hot(Duration::ZERO),
        ] {
            assert_eq!(spin_until(Duration::from_secs(5), pace, || true), Spun::Hot);
        }
        let paces = [
            Pace::Hot(Duration::ZERO),
            Pace::Yield,
            Pace::Hot(Duration::from_micros(500)),
            Pace::Hot(Duration::from_secs(1)),
        ];
        for pace in paces {
            let started = Instant::now();
            // A hot phase longer than the budget still ends with the budget.
            let spun = spin_until(Duration::from_millis(2), pace, || false);
            assert!(matches!(spun, Spun::Missed(from) if from >= started));
            assert!(!spun.ready());
            assert!(started.elapsed() >= Duration::from_millis(2));
        }
    }

    #[test]
    fn readiness_after_the_hot_phase_is_late() {
        let checks = AtomicU32::new(0);
        let started = Instant::now();
        let late = || started.elapsed() >= Duration::from_millis(5);
        let hot = Pace::Hot(Duration::from_micros(10));
        assert_eq!(spin_until(Duration::from_secs(5), hot, late), Spun::Late);
        // Without a hot phase any answer after the first check is late.
        let once = AtomicU32::new(0);
        let second = || once.fetch_add(1, Ordering::Relaxed) > 0;
        assert_eq!(
            spin_until(Duration::from_secs(5), Pace::Yield, second),
            Spun::Late
        );
        let hot = Pace::Hot(Duration::from_secs(5));
        let spun = spin_until(Duration::from_secs(5), hot, || {
            checks.fetch_add(1, Ordering::Relaxed) > 100
        });
        assert_eq!(spun, Spun::Hot);
    }

    #[test]
    fn the_hot_phase_backs_off_exponentially_after_misses_and_resets_on_a_hit() {
        let phase = HotPhase::default();
        assert!(phase.allowed());
        // Misses in a row sit out 1, 3, 7, ... waits, capped at 63.
        for sat_out in [1, 3, 7, 15, 31, 63, 63] {
            phase.learn(Spun::Missed(Instant::now()));
            for _ in 0..sat_out {
                assert!(!phase.allowed());
            }
            assert!(phase.allowed());
        }
        // A late answer is a miss too; a hot one resets the streak.
        phase.learn(Spun::Hot);
        phase.learn(Spun::Late);
        assert!(!phase.allowed());
        assert!(phase.allowed());
    }

    #[test]
    fn the_current_cpu_is_known_on_linux() {
        if cfg!(target_os = "linux") {
            assert_ne!(current_cpu(), NO_CPU);
        }
        assert_eq!(locate(NO_CPU), Partner::Unknown);
    }
}
