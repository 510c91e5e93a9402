//! One request, several answers: [`LineWorker::request_encoded_many`]
//! reserves `count` consecutive ids for one request line (the line carries
//! the first as its `id`), and the worker answers each id once, as each part
//! of the request finishes. Each answer is waited for on its own
//! ([`LineWorker::wait_answer`]), with its own deadline, by any thread, so
//! the parts of one request can be collected one by one (the Python plugin
//! worker's `calls`: one request per event, one answer per callback).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::slot::Slot;
use super::{Answer, LineError, LineWorker, Shared, deadline_after, lock, with_id};

/// The answers one request is to get, one per reserved id, each waited for
/// with [`LineWorker::wait_answer`]. Dropping it forgets the ids still
/// waiting (a late answer is then logged as stale and dropped).
pub struct Answers {
    shared: Arc<Shared>,
    first: u64,
    slots: Vec<Arc<Slot>>,
}

impl std::fmt::Debug for Answers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Answers")
            .field("first", &self.first)
            .field("count", &self.slots.len())
            .finish()
    }
}

impl Answers {
    /// The id of the first answer (the request line's `id`).
    pub fn first_id(&self) -> u64 {
        self.first
    }

    /// How many answers the request is to get.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the request expects no answer at all.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

impl Drop for Answers {
    fn drop(&mut self) {
        let mut pending = lock(&self.shared.pending);
        for offset in 0..self.slots.len() as u64 {
            pending.remove(&(self.first + offset));
        }
    }
}

impl LineWorker {
    /// Sends `object` (one JSON object, no `id`) with `count` (at least one)
    /// consecutive ids reserved: the line carries the first as `id`, and the
    /// worker is to answer every id from it to `id + count - 1` once. The
    /// write is bounded by `deadline`; the answers are waited for with
    /// [`Self::wait_answer`].
    pub fn request_encoded_many(
        &self,
        object: &[u8],
        count: usize,
        deadline: Duration,
    ) -> Result<Answers, LineError> {
        let count = count.max(1);
        let first = self.next_id.fetch_add(count as u64, Ordering::Relaxed);
        let mut slots: Vec<Arc<Slot>> = Vec::with_capacity(count);
        {
            // The later ids first: an answer to one of them read while the
            // line is being written must find its slot.
            let mut pending = lock(&self.shared.pending);
            for offset in 1..count as u64 {
                let slot = Arc::new(Slot::default());
                pending.insert(first + offset, Arc::clone(&slot));
                slots.push(slot);
            }
        }
        let forget_later = |shared: &Shared| {
            let mut pending = lock(&shared.pending);
            for offset in 1..count as u64 {
                pending.remove(&(first + offset));
            }
        };
        match self.send_line(first, with_id(first, object), deadline_after(deadline)) {
            Ok((_, slot)) => {
                slots.insert(0, slot);
                Ok(Answers {
                    shared: Arc::clone(&self.shared),
                    first,
                    slots,
                })
            }
            Err(error) => {
                forget_later(&self.shared);
                Err(error)
            }
        }
    }

    /// Waits at most `deadline` for answer `index` of `answers` (reading the
    /// pipe meanwhile when the worker is direct and no one else reads). An
    /// index past the end is answered with an error at once.
    pub fn wait_answer(&self, answers: &Answers, index: usize, deadline: Duration) -> Answer {
        let Some(slot) = answers.slots.get(index) else {
            return Err(LineError::Encode(format!(
                "answer {index} of a request that gets {}",
                answers.slots.len()
            )));
        };
        let until = deadline_after(deadline);
        self.wait_blocking(answers.first + index as u64, slot, until, deadline)
    }

    /// After `answers` is dropped by a caller that did not wait for all of
    /// them: when no one reads the pipe of a direct worker, hands the turn
    /// to read to a caller still waiting (the turn may have gone to an
    /// answer no one will wait for).
    pub fn pass_reading_turn(&self) {
        if let Some(direct) = &self.direct {
            direct.pass_turn(&self.shared, &Slot::default());
        }
    }
}
