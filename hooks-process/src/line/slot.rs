//! [`Slot`]: where the reader thread leaves one request's answer, waited for
//! by a blocking caller (a condition variable) or an async one (a waker).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use super::Answer;

#[derive(Default)]
struct State {
    answer: Option<Answer>,
    waker: Option<Waker>,
    /// A direct worker's reader left: this waiter is to read the pipe next.
    turn: bool,
}

/// Why [`Slot::wait_answer_or_turn`] returned.
pub(super) enum Wake {
    /// The answer.
    Answer(Answer),
    /// Nobody reads the pipe any more: the waiter is to read it.
    Turn,
    /// The deadline passed.
    TimedOut,
}

/// One request's answer, filled once.
#[derive(Default)]
pub(super) struct Slot {
    state: Mutex<State>,
    filled: Condvar,
}

impl Slot {
    /// Leaves `answer` (the first one wins) and wakes the waiter.
    pub(super) fn fill(&self, answer: Answer) {
        let mut state = self.lock();
        if state.answer.is_none() {
            state.answer = Some(answer);
        }
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
        drop(state);
        self.filled.notify_all();
    }

    /// Blocks until the answer is there or `deadline` passes (`None`).
    pub(super) fn wait_until(&self, deadline: Instant) -> Option<Answer> {
        let mut state = self.lock();
        loop {
            if let Some(answer) = state.answer.take() {
                return Some(answer);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            state = self
                .filled
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Whether the answer is there (it stays there).
    pub(super) fn is_filled(&self) -> bool {
        self.lock().answer.is_some()
    }

    /// Takes the answer, when it is there.
    pub(super) fn take(&self) -> Option<Answer> {
        self.lock().answer.take()
    }

    /// Tells the waiter it is to read the pipe now (a direct worker's reader left).
    pub(super) fn give_turn(&self) {
        let mut state = self.lock();
        state.turn = true;
        drop(state);
        self.filled.notify_all();
    }

    /// Blocks until the answer, the turn to read, or `deadline`, whichever comes first.
    pub(super) fn wait_answer_or_turn(&self, deadline: Instant) -> Wake {
        let mut state = self.lock();
        loop {
            if let Some(answer) = state.answer.take() {
                return Wake::Answer(answer);
            }
            if std::mem::take(&mut state.turn) {
                return Wake::Turn;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Wake::TimedOut;
            }
            state = self
                .filled
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// The answer as a future (the caller bounds it with a timer).
    pub(super) fn answer(&self) -> SlotFuture<'_> {
        SlotFuture { slot: self }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// [`Slot::answer`].
pub(super) struct SlotFuture<'a> {
    slot: &'a Slot,
}

impl Future for SlotFuture<'_> {
    type Output = Answer;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Answer> {
        let mut state = self.slot.lock();
        match state.answer.take() {
            Some(answer) => Poll::Ready(answer),
            None => {
                state.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}
