//! The two future helpers the contract needs, so that a build without the
//! callback runtime does not depend on `futures`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

/// A boxed, sendable future (what `#[async_trait]` methods return).
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Polls every future concurrently until all have finished (their outputs are
/// dropped), so `n` flushes bounded by `timeout` take at most about `timeout`.
pub(crate) async fn join_all<'a>(futures: impl IntoIterator<Item = BoxFuture<'a, ()>>) {
    let mut pending: Vec<BoxFuture<'a, ()>> = futures.into_iter().collect();
    std::future::poll_fn(move |cx: &mut Context<'_>| {
        pending.retain_mut(|future| future.as_mut().poll(cx).is_pending());
        if pending.is_empty() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// A future that is pending `polls` times (waking itself) before it finishes.
    struct Countdown {
        polls: usize,
        done: Arc<AtomicUsize>,
    }

    impl Future for Countdown {
        type Output = ();
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
            if self.polls == 0 {
                self.done.fetch_add(1, Ordering::SeqCst);
                return Poll::Ready(());
            }
            self.polls -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    #[test]
    fn join_all_waits_for_every_future() {
        let done = Arc::new(AtomicUsize::new(0));
        let futures = (0..4).map(|polls| {
            Box::pin(Countdown {
                polls,
                done: done.clone(),
            }) as BoxFuture<'static, ()>
        });
        futures::executor::block_on(join_all(futures));
        assert_eq!(done.load(Ordering::SeqCst), 4);
    }
}
