//! A lane's job queue: bounded, its slots allocated once when the lane is
//! made, and a wake-up only when the lane's task waits for work.
//!
//! It replaces a tokio `mpsc` channel on the agent's path, whose two costs
//! showed in the emit's tail while a queue filled: the channel allocates a
//! block of slots on the *sending* thread each time the queue grows past the
//! last one (several times per fresh queue), and with `concurrency` worker
//! tasks taking turns on its receiver each of them was woken from the
//! emitting thread in turn. Here the queue is a `VecDeque` with its capacity
//! reserved up front, under a lock held for a push or a pop; a lane task says,
//! under that lock, that it is about to wait, and only then does a push
//! notify one (an idle → busy transition, not per event). A lane
//! that looks by itself (it lingers after work, see `delivery::run_lane`) is
//! also nudged when a push fills half the queue, so a late look never costs
//! a drop.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Notify;

/// The sending half (the agent's side, held by the lane).
pub(crate) struct JobSender<T> {
    inner: Arc<Inner<T>>,
}

/// The receiving half (the lane's tasks share it). Dropping it (the tasks
/// ended, or the runtime shut down) stops the queue: offers fail from then on.
pub(crate) struct JobReceiver<T> {
    inner: Arc<Inner<T>>,
}

struct Inner<T> {
    state: Mutex<State<T>>,
    capacity: usize,
    /// The length at which a push nudges the receiver even if it does not wait.
    half: usize,
    /// The deque's length, written under the lock, read without it: the drop
    /// path asks whether the lane is full before it builds anything.
    len: AtomicUsize,
    wake: Notify,
    /// How many pushes notified the receiver (what the tests check).
    #[cfg(test)]
    wakes: std::sync::atomic::AtomicUsize,
}

struct State<T> {
    items: VecDeque<T>,
    /// Receiver tasks that found the queue empty and wait, not yet woken:
    /// the next push wakes one. (One whose wait was cancelled stays counted
    /// until a push spends it on a wake-up nobody needed: a stored permit.)
    waiting: usize,
    sender_gone: bool,
    receiver_gone: bool,
}

/// Why an offer was refused; the item comes back.
pub(crate) enum Refused<T> {
    /// The queue holds `capacity` items.
    Full(T),
    /// The receiver is gone: nothing will take it.
    Stopped(T),
}

/// A queue of at most `capacity` items (at least 1), its memory reserved now.
pub(crate) fn channel<T>(capacity: usize) -> (JobSender<T>, JobReceiver<T>) {
    let capacity = capacity.max(1);
    let inner = Arc::new(Inner {
        state: Mutex::new(State {
            items: VecDeque::with_capacity(capacity),
            waiting: 0,
            sender_gone: false,
            receiver_gone: false,
        }),
        capacity,
        half: capacity.div_ceil(2),
        len: AtomicUsize::new(0),
        wake: Notify::new(),
        #[cfg(test)]
        wakes: std::sync::atomic::AtomicUsize::new(0),
    });
    (
        JobSender {
            inner: inner.clone(),
        },
        JobReceiver { inner },
    )
}

impl<T> Inner<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // A panic while holding it cannot leave the deque half-changed.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T> JobSender<T> {
    /// Queues `item` without waiting; wakes the receiver only if it waits,
    /// or when this push fills half the queue.
    pub(crate) fn try_send(&self, item: T) -> Result<(), Refused<T>> {
        let mut state = self.inner.lock();
        if state.receiver_gone {
            return Err(Refused::Stopped(item));
        }
        if state.items.len() >= self.inner.capacity {
            return Err(Refused::Full(item));
        }
        state.items.push_back(item);
        self.inner.len.store(state.items.len(), Ordering::Relaxed);
        let wake = if state.waiting > 0 {
            state.waiting -= 1;
            true
        } else {
            state.items.len() == self.inner.half
        };
        drop(state);
        if wake {
            #[cfg(test)]
            self.inner
                .wakes
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.inner.wake.notify_one();
        }
        Ok(())
    }

    /// Whether an offer now would be refused as full.
    pub(crate) fn is_full(&self) -> bool {
        // A stale answer is harmless: `try_send` decides under the lock.
        self.inner.len.load(Ordering::Relaxed) >= self.inner.capacity
    }

    /// Whether the receiver is gone.
    pub(crate) fn is_stopped(&self) -> bool {
        self.inner.lock().receiver_gone
    }
}

impl<T> Drop for JobSender<T> {
    fn drop(&mut self) {
        self.inner.lock().sender_gone = true;
        // Every receiver task finishes what is queued, then sees the end (a
        // `Notified` made before its check gets this even if not yet polled).
        self.inner.wake.notify_waiters();
        self.inner.wake.notify_one();
    }
}

impl<T> JobReceiver<T> {
    /// The oldest queued item, if any.
    pub(crate) fn try_recv(&self) -> Option<T> {
        let mut state = self.inner.lock();
        let item = state.items.pop_front();
        self.inner.len.store(state.items.len(), Ordering::Relaxed);
        item
    }

    /// Waits for a nudge (a push that filled half the queue, or any wake-up
    /// owed), without asking for a wake-up on the next push: what a receiver
    /// that looks by itself waits on besides its timer.
    pub(crate) async fn nudged(&self) {
        self.inner.wake.notified().await;
    }

    /// Waits until an item is queued (true) or the sender is gone with
    /// nothing left (false). Cancel-safe: dropping it loses nothing, at worst
    /// the next push notifies a receiver that no longer waits (a stored
    /// permit, one spare turn of its loop).
    pub(crate) async fn ready(&self) -> bool {
        loop {
            let notified = self.inner.wake.notified();
            {
                let mut state = self.inner.lock();
                if !state.items.is_empty() {
                    return true;
                }
                if state.sender_gone {
                    return false;
                }
                state.waiting += 1;
            }
            notified.await;
        }
    }
}

impl<T> Drop for JobReceiver<T> {
    fn drop(&mut self) {
        self.inner.lock().receiver_gone = true;
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn it_is_bounded_and_fifo_and_gives_a_refused_item_back() {
        let (sender, receiver) = channel(2);
        assert!(sender.try_send(1).is_ok());
        assert!(!sender.is_full());
        assert!(sender.try_send(2).is_ok());
        assert!(sender.is_full());
        assert!(matches!(sender.try_send(3), Err(Refused::Full(3))));
        assert_eq!(receiver.try_recv(), Some(1));
        assert!(sender.try_send(4).is_ok());
        assert_eq!(receiver.try_recv(), Some(2));
        assert_eq!(receiver.try_recv(), Some(4));
        assert_eq!(receiver.try_recv(), None);
    }

    #[test]
    fn its_memory_is_reserved_up_front() {
        let (sender, receiver) = channel::<u64>(256);
        let before = receiver.inner.lock().items.capacity();
        assert!(before >= 256);
        for n in 0..256 {
            assert!(sender.try_send(n).is_ok());
        }
        assert_eq!(receiver.inner.lock().items.capacity(), before, "no growth");
    }

    #[test]
    fn a_gone_receiver_stops_it() {
        let (sender, receiver) = channel(4);
        drop(receiver);
        assert!(sender.is_stopped());
        assert!(matches!(sender.try_send(7), Err(Refused::Stopped(7))));
    }

    #[test]
    fn a_push_wakes_the_receiver_only_when_it_waits() {
        let (sender, receiver) = channel(4);
        assert!(sender.try_send(1).is_ok());
        assert_eq!(
            receiver.inner.lock().waiting,
            0,
            "nobody waited: no wake owed"
        );
        assert_eq!(receiver.try_recv(), Some(1));
        receiver.inner.lock().waiting = 2;
        assert!(sender.try_send(2).is_ok());
        assert_eq!(receiver.inner.lock().waiting, 1, "the push woke one");
        assert!(sender.try_send(3).is_ok());
        assert_eq!(receiver.inner.lock().waiting, 0, "and the next the other");
    }

    #[tokio::test]
    async fn ready_waits_for_a_push_from_another_thread_and_sees_the_end() {
        let (sender, receiver) = channel(4);
        let pusher = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            assert!(sender.try_send(5).is_ok());
            std::thread::sleep(Duration::from_millis(20));
            drop(sender);
        });
        let woke = tokio::time::timeout(Duration::from_secs(10), receiver.ready()).await;
        assert_eq!(woke.ok(), Some(true));
        assert_eq!(receiver.try_recv(), Some(5));
        let ended = tokio::time::timeout(Duration::from_secs(10), receiver.ready()).await;
        assert_eq!(ended.ok(), Some(false), "the sender is gone, nothing left");
        pusher.join().expect("pusher");
    }

    #[tokio::test]
    async fn a_burst_into_a_waiting_receiver_wakes_it_once() {
        use std::sync::atomic::Ordering;
        use std::task::{Context, Poll, Waker};

        let (sender, receiver) = channel(64);
        let mut ready = std::pin::pin!(receiver.ready());
        let mut context = Context::from_waker(Waker::noop());
        assert!(ready.as_mut().poll(&mut context).is_pending(), "it waits");
        for n in 0..30 {
            assert!(sender.try_send(n).is_ok());
        }
        assert_eq!(receiver.inner.wakes.load(Ordering::Relaxed), 1);
        for n in 30..50 {
            assert!(sender.try_send(n).is_ok());
        }
        assert_eq!(
            receiver.inner.wakes.load(Ordering::Relaxed),
            2,
            "and once more at half full (32 of 64)"
        );
        assert_eq!(ready.as_mut().poll(&mut context), Poll::Ready(true));
        let mut taken = 0;
        while receiver.try_recv().is_some() {
            taken += 1;
        }
        assert_eq!(taken, 50);
    }

    #[tokio::test]
    async fn a_receiver_that_does_not_wait_is_nudged_at_half_full() {
        use std::sync::atomic::Ordering;

        let (sender, receiver) = channel(8);
        for n in 0..3 {
            assert!(sender.try_send(n).is_ok());
        }
        assert_eq!(receiver.inner.wakes.load(Ordering::Relaxed), 0);
        assert!(sender.try_send(3).is_ok());
        assert_eq!(receiver.inner.wakes.load(Ordering::Relaxed), 1);
        let nudged = tokio::time::timeout(Duration::from_secs(10), receiver.nudged()).await;
        assert!(nudged.is_ok(), "the nudge was kept for it");
        for n in 4..8 {
            assert!(sender.try_send(n).is_ok());
        }
        assert_eq!(receiver.inner.wakes.load(Ordering::Relaxed), 1, "once");
    }

    #[tokio::test]
    async fn the_end_reaches_every_waiting_receiver_task() {
        let (sender, receiver) = channel::<u8>(4);
        let receiver = Arc::new(receiver);
        let tasks: Vec<_> = (0..2)
            .map(|_| {
                let receiver = receiver.clone();
                tokio::spawn(async move { receiver.ready().await })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(sender);
        for task in tasks {
            let ended = tokio::time::timeout(Duration::from_secs(10), task).await;
            assert!(matches!(ended, Ok(Ok(false))), "{ended:?}");
        }
    }

    #[tokio::test]
    async fn items_queued_before_the_sender_went_are_still_taken() {
        let (sender, receiver) = channel(4);
        assert!(sender.try_send(1).is_ok());
        drop(sender);
        assert!(receiver.ready().await);
        assert_eq!(receiver.try_recv(), Some(1));
        assert!(!receiver.ready().await);
    }
}
