//! A runtime-agnostic deadline service: one lazily started thread that wakes
//! futures when their deadline passes.
//!
//! Bounded callbacks must time out under any executor (a tokio runtime with or
//! without its timer, `futures::executor::block_on`, ...), so waiting never
//! relies on `tokio::time`. Only slow waits register here: a callback that
//! answers while the caller spins never touches this thread.

use std::cmp::Ordering as CmpOrdering;
use std::collections::BinaryHeap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::task::AtomicWaker;

/// Above this many pending alarms, finished ones are pruned on the next arm.
const PRUNE_THRESHOLD: usize = 1024;

/// A deadline a future waits for; fired by the timer thread, or abandoned by its owner.
#[derive(Default)]
pub(crate) struct Alarm {
    fired: AtomicBool,
    /// Set by the owner when it no longer cares, so the timer can forget it early.
    retired: AtomicBool,
    waker: AtomicWaker,
}

impl Alarm {
    /// Whether the deadline has passed.
    pub(crate) fn fired(&self) -> bool {
        self.fired.load(Ordering::Acquire)
    }

    /// Registers the task to wake at the deadline.
    pub(crate) fn register(&self, cx: &Context<'_>) {
        self.waker.register(cx.waker());
    }

    /// Tells the timer the owner stopped waiting.
    pub(crate) fn retire(&self) {
        self.retired.store(true, Ordering::Release);
    }
}

struct Pending {
    deadline: Instant,
    alarm: Arc<Alarm>,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        self.deadline == other.deadline
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<CmpOrdering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pending {
    // Reversed: the earliest deadline sits on top of the max-heap.
    fn cmp(&self, other: &Self) -> CmpOrdering {
        other.deadline.cmp(&self.deadline)
    }
}

struct Timer {
    heap: Mutex<BinaryHeap<Pending>>,
    changed: Condvar,
}

fn timer() -> &'static Timer {
    static TIMER: OnceLock<&'static Timer> = OnceLock::new();
    TIMER.get_or_init(|| {
        let timer: &'static Timer = Box::leak(Box::new(Timer {
            heap: Mutex::new(BinaryHeap::new()),
            changed: Condvar::new(),
        }));
        let spawned = std::thread::Builder::new()
            .name("hook-timer".into())
            .spawn(move || timer.run());
        if let Err(error) = spawned {
            // Without the timer, bounded waits fall back to waiting for the
            // callback itself; say so loudly once.
            tracing::error!(
                "hook timer thread failed to start: {error}; callback timeouts cannot fire"
            );
        }
        timer
    })
}

impl Timer {
    fn run(&self) {
        let mut heap = self.heap.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let now = Instant::now();
            while heap.peek().is_some_and(|top| top.deadline <= now) {
                if let Some(due) = heap.pop() {
                    due.alarm.fired.store(true, Ordering::Release);
                    due.alarm.waker.wake();
                }
            }
            heap = match heap.peek().map(|top| top.deadline) {
                Some(deadline) => {
                    let wait = deadline.saturating_duration_since(now);
                    self.changed
                        .wait_timeout(heap, wait)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
                None => self.changed.wait(heap).unwrap_or_else(|e| e.into_inner()),
            };
        }
    }
}

/// Arms an alarm that fires at `deadline`.
pub(crate) fn arm(deadline: Instant) -> Arc<Alarm> {
    let alarm = Arc::new(Alarm::default());
    let timer = timer();
    let mut heap = timer.heap.lock().unwrap_or_else(|e| e.into_inner());
    if heap.len() >= PRUNE_THRESHOLD {
        heap.retain(|pending| !pending.alarm.retired.load(Ordering::Acquire));
    }
    let earliest = heap.peek().is_none_or(|top| deadline < top.deadline);
    heap.push(Pending {
        deadline,
        alarm: Arc::clone(&alarm),
    });
    drop(heap);
    // The timer only needs waking when its next deadline moved earlier.
    if earliest {
        timer.changed.notify_one();
    }
    alarm
}

/// A future that completes after `duration`, under any executor.
pub(crate) fn sleep(duration: Duration) -> Sleep {
    Sleep {
        alarm: arm(Instant::now() + duration),
    }
}

/// The future of [`sleep`].
pub(crate) struct Sleep {
    alarm: Arc<Alarm>,
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.alarm.register(cx);
        if self.alarm.fired() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        self.alarm.retire();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleep_completes_without_any_runtime() {
        let started = Instant::now();
        futures::executor::block_on(sleep(Duration::from_millis(20)));
        assert!(started.elapsed() >= Duration::from_millis(20));
    }

    #[test]
    fn earlier_deadline_armed_later_fires_first() {
        let late = arm(Instant::now() + Duration::from_secs(30));
        futures::executor::block_on(sleep(Duration::from_millis(10)));
        assert!(!late.fired());
        late.retire();
    }
}
