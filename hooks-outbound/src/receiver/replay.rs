//! Replay protection for the receiver: the ids of the last N accepted
//! deliveries, remembered by digest so memory stays bounded whatever their size.

use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

/// The accepted delivery ids the receiver remembers, oldest forgotten first.
#[derive(Debug)]
pub(crate) struct SeenIds {
    capacity: usize,
    inner: Mutex<Seen>,
}

#[derive(Debug, Default)]
struct Seen {
    set: HashSet<[u8; 32]>,
    order: VecDeque<[u8; 32]>,
}

impl SeenIds {
    /// Remembers up to `capacity` ids (0 turns replay protection off).
    pub(crate) fn new(capacity: usize) -> SeenIds {
        SeenIds {
            capacity,
            inner: Mutex::new(Seen::default()),
        }
    }

    /// Records `id` as accepted; `false` when it was already accepted. One
    /// lock covers the check and the insert, so two copies racing in on two
    /// connections cannot both pass.
    pub(crate) fn accept(&self, id: &str) -> bool {
        if self.capacity == 0 {
            return true;
        }
        let digest: [u8; 32] = Sha256::digest(id.as_bytes()).into();
        let mut seen = match self.inner.lock() {
            Ok(seen) => seen,
            Err(poisoned) => poisoned.into_inner(),
        };
        if !seen.set.insert(digest) {
            return false;
        }
        seen.order.push_back(digest);
        while seen.order.len() > self.capacity {
            if let Some(oldest) = seen.order.pop_front() {
                seen.set.remove(&oldest);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_copy_is_refused_and_memory_is_bounded() {
        let seen = SeenIds::new(3);
        assert!(seen.accept("a"));
        assert!(!seen.accept("a"));
        for id in ["b", "c", "d"] {
            assert!(seen.accept(id));
        }
        // "a" fell out of the window of 3; "d" is still remembered.
        assert!(seen.accept("a"));
        assert!(!seen.accept("d"));
        assert!(SeenIds::new(0).accept("x") && SeenIds::new(0).accept("x"));
    }
}
