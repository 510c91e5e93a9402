//! Draining a child's output pipe under a byte cap.

use tokio::io::{AsyncRead, AsyncReadExt};

/// One output stream, kept up to a cap; past it, bytes are read and counted, not kept.
#[derive(Debug)]
pub(crate) struct Captured {
    cap: usize,
    pub bytes: Vec<u8>,
    pub discarded: usize,
}

impl Captured {
    pub fn new(cap: usize) -> Self {
        Captured {
            cap,
            bytes: Vec::new(),
            discarded: 0,
        }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        let room = self.cap.saturating_sub(self.bytes.len());
        let kept = room.min(chunk.len());
        self.bytes.extend_from_slice(&chunk[..kept]);
        self.discarded = self.discarded.saturating_add(chunk.len() - kept);
    }
}

/// Reads `pipe` to its end into `into`, then sets `ended`. A read error ends
/// the stream like EOF: what was read is kept.
pub(crate) async fn drain(
    pipe: Option<impl AsyncRead + Unpin>,
    into: &mut Captured,
    ended: &std::sync::atomic::AtomicBool,
) {
    if let Some(mut pipe) = pipe {
        let mut buffer = vec![0_u8; 64 * 1024];
        loop {
            match pipe.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(read) => into.push(&buffer[..read]),
            }
        }
    }
    ended.store(true, std::sync::atomic::Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_capped_and_the_rest_counted() {
        let mut captured = Captured::new(4);
        captured.push(b"abc");
        captured.push(b"def");
        assert_eq!(captured.bytes, b"abcd");
        assert_eq!(captured.discarded, 2);
        captured.push(b"g");
        assert_eq!(captured.discarded, 3);
    }

    #[tokio::test]
    async fn drain_reads_to_the_end() {
        let mut captured = Captured::new(3);
        let ended = std::sync::atomic::AtomicBool::new(false);
        drain(Some(&b"hello"[..]), &mut captured, &ended).await;
        assert!(ended.load(std::sync::atomic::Ordering::Relaxed));
        assert_eq!(
            (captured.bytes.as_slice(), captured.discarded),
            (&b"hel"[..], 2)
        );
    }
}
