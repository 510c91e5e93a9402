//! Model check (`loom`) of the worker doorbell (`src/worker/doorbell.rs`):
//! the holder rings (stores the signal word, then looks at `parked`), the
//! worker sleeps (stores `parked`, then looks at the word, parks if it did
//! not move). In every interleaving loom explores the worker wakes for every
//! signal: a lost wake-up would park it for good, which loom reports as a
//! deadlock. The file is included with loom's atomics as its `sync`, so the
//! code checked is the code that runs.

#![allow(missing_docs)]

// At the crate root, so the modules' `super::` finds their neighbours.
#[path = "../src/worker/signal_word.rs"]
mod signal_word;

#[path = "../src/worker/doorbell.rs"]
mod doorbell;

mod sync {
    pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU32, Ordering, fence};
}

use loom::sync::Arc;
use loom::thread;

use doorbell::Doorbell;
use signal_word::{EXIT, JOB, is_job};

/// The worker's wait for its next signal after `last` (as `wait_for_job`),
/// with a park that never times out: only an unpark ends it.
fn wait_past(bell: &Doorbell, last: u32) -> u32 {
    // One look first, as the worker's spin looks before it sleeps.
    let word = bell.word();
    if word != last {
        return word;
    }
    loop {
        let word = bell.sleep(last, thread::park);
        if word != last {
            return word;
        }
    }
}

#[test]
fn loom_a_job_rung_while_the_worker_goes_to_sleep_wakes_it() {
    loom::model(|| {
        let bell = Arc::new(Doorbell::new(0));
        let worker = {
            let bell = Arc::clone(&bell);
            thread::spawn(move || wait_past(&bell, 0))
        };
        if bell.ring(JOB) {
            worker.thread().unpark();
        }
        let word = worker.join().unwrap_or_default();
        assert!(is_job(word), "the worker saw its job");
    });
}

#[test]
fn loom_two_signals_in_a_row_each_reach_the_worker() {
    loom::model(|| {
        let bell = Arc::new(Doorbell::new(0));
        let job_done = Arc::new(AtomicFlag::default());
        let worker = {
            let (bell, job_done) = (Arc::clone(&bell), Arc::clone(&job_done));
            thread::spawn(move || {
                let first = wait_past(&bell, 0);
                assert!(is_job(first));
                // The job runs; then the worker waits for the next signal.
                job_done.set();
                let second = wait_past(&bell, first);
                assert!(!is_job(second), "the second signal is the exit");
            })
        };
        if bell.ring(JOB) {
            worker.thread().unpark();
        }
        // The next holder rings only once the worker finished the job (it
        // is back in the pool): as `put_back` then `dismiss`.
        while !job_done.get() {
            thread::yield_now();
        }
        if bell.ring(EXIT) {
            worker.thread().unpark();
        }
        worker.join().unwrap_or_default();
    });
}

#[test]
fn loom_a_worker_seen_parked_is_seen_with_its_thread_handle() {
    // The worker publishes its thread handle (`worker_main`'s first step)
    // before it can sleep; a holder that finds it parked unparks that
    // handle, so it must see it set. The handle was once set by the spawner
    // after `spawn` returned: a worker parked before that was never woken.
    loom::model(|| {
        let bell = Arc::new(Doorbell::new(0));
        let handle = Arc::new(loom::sync::atomic::AtomicBool::new(false));
        let worker = {
            let (bell, handle) = (Arc::clone(&bell), Arc::clone(&handle));
            thread::spawn(move || {
                handle.store(true, loom::sync::atomic::Ordering::Relaxed);
                wait_past(&bell, 0)
            })
        };
        if bell.ring(JOB) {
            assert!(
                handle.load(loom::sync::atomic::Ordering::Relaxed),
                "a parked worker without its handle cannot be woken"
            );
            worker.thread().unpark();
        }
        let word = worker.join().unwrap_or_default();
        assert!(is_job(word));
    });
}

/// A flag set by one thread and read by another (loom's atomics).
#[derive(Default)]
struct AtomicFlag(loom::sync::atomic::AtomicBool);

impl AtomicFlag {
    fn set(&self) {
        self.0.store(true, loom::sync::atomic::Ordering::Release);
    }

    fn get(&self) -> bool {
        self.0.load(loom::sync::atomic::Ordering::Acquire)
    }
}
