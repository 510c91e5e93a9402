//! Body buffers handed back by the lane workers for the caller to reuse.
//!
//! Bodies are allocated on the agent's thread and freed on a lane worker once
//! delivered. Left to the allocator, a burst of deliveries grows the heap, the
//! frees shrink it again, and the next burst pays page faults on the agent's
//! path: the main source of the emit's tail latency. Recycling the buffers
//! keeps that memory warm. The pool is bounded in count and per-buffer size, so
//! it never holds more than a full queue's worth of ordinary bodies, and
//! neither side ever waits on its lock (`try_lock`: when busy, allocate or drop).

use std::sync::Mutex;

use hyper::body::Bytes;

/// Buffers larger than this are freed rather than kept: one huge event must
/// not pin its memory for good.
pub(crate) const MAX_POOLED_CAPACITY: usize = 16 * 1024;

/// A bounded stack of empty byte buffers.
pub(crate) struct BufferPool {
    buffers: Mutex<Vec<Vec<u8>>>,
    max_buffers: usize,
}

impl BufferPool {
    /// A pool keeping at most `max_buffers` buffers.
    pub(crate) fn new(max_buffers: usize) -> BufferPool {
        BufferPool {
            buffers: Mutex::new(Vec::with_capacity(max_buffers)),
            max_buffers,
        }
    }

    /// An empty buffer with room for at least `capacity` bytes: a recycled one
    /// when there is one and the pool is not busy, else a new one.
    pub(crate) fn take(&self, capacity: usize) -> Vec<u8> {
        let recycled = self
            .buffers
            .try_lock()
            .ok()
            .and_then(|mut buffers| buffers.pop());
        match recycled {
            Some(mut buffer) => {
                buffer.clear();
                buffer.reserve(capacity);
                buffer
            }
            None => Vec::with_capacity(capacity),
        }
    }

    /// Keeps the memory of a finished delivery's `body` for reuse when nobody
    /// else holds it, it is not too large and the pool has room; else drops it.
    pub(crate) fn give(&self, body: Bytes) {
        let Ok(body) = body.try_into_mut() else {
            return;
        };
        let buffer = Vec::from(body);
        if buffer.capacity() == 0 || buffer.capacity() > MAX_POOLED_CAPACITY {
            return;
        }
        if let Ok(mut buffers) = self.buffers.try_lock()
            && buffers.len() < self.max_buffers
        {
            buffers.push(buffer);
        }
    }

    /// How many buffers are waiting to be reused.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.buffers.lock().map_or(0, |buffers| buffers.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unique_body_comes_back_as_an_empty_buffer_with_its_memory() {
        let pool = BufferPool::new(4);
        let mut buffer = pool.take(100);
        buffer.extend_from_slice(b"{\"secret\":\"x\"}");
        let address = buffer.as_ptr();
        pool.give(Bytes::from(buffer));
        assert_eq!(pool.len(), 1);
        let reused = pool.take(10);
        assert!(reused.is_empty());
        assert!(reused.capacity() >= 100);
        assert_eq!(reused.as_ptr(), address);
        assert_eq!(pool.len(), 0);
    }

    #[test]
    fn shared_oversized_and_surplus_bodies_are_dropped() {
        let pool = BufferPool::new(1);
        let body = Bytes::from(vec![1u8; 64]);
        let other_holder = body.clone();
        pool.give(body);
        assert_eq!(pool.len(), 0, "still held elsewhere");
        drop(other_holder);
        pool.give(Bytes::from(vec![0u8; MAX_POOLED_CAPACITY + 1]));
        assert_eq!(pool.len(), 0, "too large");
        pool.give(Bytes::from(vec![0u8; 8]));
        pool.give(Bytes::from(vec![0u8; 8]));
        assert_eq!(pool.len(), 1, "bounded");
    }

    #[test]
    fn an_empty_pool_allocates() {
        let pool = BufferPool::new(0);
        assert!(pool.take(32).capacity() >= 32);
        pool.give(Bytes::from(vec![0u8; 8]));
        assert_eq!(pool.len(), 0);
    }
}
