//! The futures of [`Hooks::collect`] and [`Hooks::emit`]: a delivery runs
//! every mechanism that can finish on the spot inside its first poll, and
//! boxes a future only from the first mechanism that has to wait.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::join::BoxFuture;

use super::Hooks;
use crate::event::Event;
use crate::merge::merge;
use crate::outcome::Outcome;
use crate::reply::Reply;

impl Hooks {
    /// Runs the mechanisms of `mask` in order for as long as each finishes on
    /// the spot; from the first that has to wait, the rest of the delivery is
    /// returned as a future.
    fn deliver_now<'a>(
        &'a self,
        event: &'a Event,
        mask: u64,
    ) -> Result<Vec<Reply>, BoxFuture<'a, Vec<Reply>>> {
        let mut replies = Vec::new();
        for (index, dispatcher) in self.dispatchers.iter().enumerate() {
            if mask & (1 << index) != 0 && !dispatcher.dispatch_now(event, &mut replies) {
                // The only mechanism left, with nothing before it to prepend:
                // its own future is the rest (one box, not two).
                if replies.is_empty() && mask >> index == 1 {
                    return Err(dispatcher.dispatch(event));
                }
                return Err(Box::pin(self.deliver_rest(event, mask, index, replies)));
            }
        }
        Ok(replies)
    }

    /// The rest of a delivery, from the mechanism at `waiting` (which declined
    /// to finish on the spot) on.
    async fn deliver_rest(
        &self,
        event: &Event,
        mask: u64,
        waiting: usize,
        mut replies: Vec<Reply>,
    ) -> Vec<Reply> {
        for (index, dispatcher) in self.dispatchers.iter().enumerate().skip(waiting) {
            if mask & (1 << index) == 0 {
                continue;
            }
            if index == waiting || !dispatcher.dispatch_now(event, &mut replies) {
                replies.extend(dispatcher.dispatch(event).await);
            }
        }
        replies
    }
}

/// Where one delivery through the bus stands.
enum Delivery<'a> {
    /// Not polled yet.
    Start { hooks: &'a Hooks, event: &'a Event },
    /// A mechanism had to wait: the rest of the delivery.
    Waiting(BoxFuture<'a, Vec<Reply>>),
    /// The result was handed out.
    Finished,
}

impl Delivery<'_> {
    /// Finishes a delivery that has not started when nobody cares about its
    /// event; true then. Kept apart and inlined so an unhooked event costs the
    /// interest lookup and little else.
    #[inline]
    fn finish_if_unhooked(&mut self) -> bool {
        if let Delivery::Start { hooks, event } = *self
            && hooks.mask(event.name()) == 0
        {
            *self = Delivery::Finished;
            return true;
        }
        false
    }

    /// Drives the delivery; `Ready(None)` when no mechanism cares about the event.
    ///
    /// Polling again after the result was handed out yields `Ready(None)`.
    fn poll_replies(&mut self, cx: &mut Context<'_>) -> Poll<Option<Vec<Reply>>> {
        if let Delivery::Start { hooks, event } = *self {
            let mask = hooks.mask(event.name());
            if mask == 0 {
                *self = Delivery::Finished;
                return Poll::Ready(None);
            }
            if hooks.observed() {
                // Observers see every run: the recorded path, boxed.
                *self =
                    Delivery::Waiting(Box::pin(
                        async move { hooks.collect_recorded(event).await.0 },
                    ));
            } else {
                match hooks.deliver_now(event, mask) {
                    Ok(replies) => {
                        *self = Delivery::Finished;
                        return Poll::Ready(Some(replies));
                    }
                    Err(rest) => *self = Delivery::Waiting(rest),
                }
            }
        }
        let Delivery::Waiting(rest) = self else {
            return Poll::Ready(None);
        };
        let replies = std::task::ready!(rest.as_mut().poll(cx));
        *self = Delivery::Finished;
        Poll::Ready(Some(replies))
    }
}

/// The future of [`Hooks::collect`]: every reply, in order.
#[must_use = "futures do nothing unless polled"]
pub struct Collect<'a> {
    delivery: Delivery<'a>,
}

impl<'a> Collect<'a> {
    #[inline]
    pub(super) fn new(hooks: &'a Hooks, event: &'a Event) -> Self {
        Collect {
            delivery: Delivery::Start { hooks, event },
        }
    }
}

impl Future for Collect<'_> {
    type Output = Vec<Reply>;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Vec<Reply>> {
        let delivery = &mut self.get_mut().delivery;
        if delivery.finish_if_unhooked() {
            return Poll::Ready(Vec::new());
        }
        delivery.poll_replies(cx).map(Option::unwrap_or_default)
    }
}

impl std::fmt::Debug for Collect<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Collect").finish_non_exhaustive()
    }
}

/// The future of [`Hooks::emit`]: the merged outcome.
#[must_use = "futures do nothing unless polled"]
pub struct Emit<'a> {
    event: &'a Event,
    delivery: Delivery<'a>,
}

impl<'a> Emit<'a> {
    #[inline]
    pub(super) fn new(hooks: &'a Hooks, event: &'a Event) -> Self {
        Emit {
            event,
            delivery: Delivery::Start { hooks, event },
        }
    }
}

impl Future for Emit<'_> {
    type Output = Outcome;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Outcome> {
        let this = self.get_mut();
        if this.delivery.finish_if_unhooked() {
            return Poll::Ready(Outcome::Nothing);
        }
        match this.delivery.poll_replies(cx) {
            // Every merge rule gives `Nothing` for no replies (tested in
            // `bus/tests.rs`); skipping it spares e.g. the tool gate's copy
            // of the arguments.
            Poll::Ready(Some(replies)) if !replies.is_empty() => {
                Poll::Ready(merge(this.event, &replies))
            }
            Poll::Ready(_) => Poll::Ready(Outcome::Nothing),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl std::fmt::Debug for Emit<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Emit")
            .field("event", &self.event.name())
            .finish_non_exhaustive()
    }
}
