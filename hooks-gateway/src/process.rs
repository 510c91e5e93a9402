//! Subprocess plumbing shared by both handler kinds: process groups, killing a
//! whole group, and reading lines or output with a byte cap.

use std::process::Stdio;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt};
use tokio::process::{Child, Command};

/// Configures `command` the way every handler process is run: own process
/// group (so a timeout can kill everything it started), piped stdio, killed
/// when dropped.
pub(crate) fn prepare(command: &mut Command) {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
}

/// Kills `child` and every process in its group. Safe to call more than once.
pub(crate) fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    if let Some(pid) = child.id().and_then(|id| i32::try_from(id).ok()) {
        use nix::sys::signal::{Signal, killpg};
        use nix::unistd::Pid;
        // The group id is the child's pid (process_group(0)); ESRCH just means it is gone.
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    }
    let _ = child.start_kill();
}

/// A child whose whole process group is killed when this is dropped, so a
/// cancelled call (the caller dropped our future) leaves nothing running.
/// Once the child has been waited for, dropping kills nothing (its pid may be reused).
pub(crate) struct GroupChild(pub(crate) Child);

impl Drop for GroupChild {
    fn drop(&mut self) {
        kill_group(&mut self.0);
    }
}

/// One line read by [`read_line_capped`].
pub(crate) struct CappedLine {
    /// The bytes of the line, without the newline, at most the cap.
    pub(crate) bytes: Vec<u8>,
    /// Whether bytes past the cap were dropped.
    pub(crate) truncated: bool,
}

/// Reads one `\n`-terminated line, keeping at most `cap` bytes of it but always
/// consuming the whole line, so a huge line cannot exhaust memory.
///
/// `Ok(None)` at end of input with nothing read.
pub(crate) async fn read_line_capped<R>(
    reader: &mut R,
    cap: usize,
) -> std::io::Result<Option<CappedLine>>
where
    R: AsyncBufRead + Unpin,
{
    let mut line = CappedLine {
        bytes: Vec::new(),
        truncated: false,
    };
    let mut read_any = false;
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(read_any.then_some(line));
        }
        read_any = true;
        let (part, found_newline) = match chunk.iter().position(|byte| *byte == b'\n') {
            Some(end) => (&chunk[..end], true),
            None => (chunk, false),
        };
        let room = cap.saturating_sub(line.bytes.len());
        if part.len() > room {
            line.truncated = true;
        }
        line.bytes.extend_from_slice(&part[..part.len().min(room)]);
        let consumed = part.len() + usize::from(found_newline);
        reader.consume(consumed);
        if found_newline {
            return Ok(Some(line));
        }
    }
}

/// Reads everything from `reader`, keeping at most `cap` bytes; the rest is
/// drained and dropped so the writer never blocks on a full pipe.
pub(crate) async fn read_all_capped<R>(mut reader: R, cap: usize) -> (Vec<u8>, bool)
where
    R: AsyncRead + Unpin,
{
    let mut kept = Vec::new();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    let _ = (&mut reader).take(limit).read_to_end(&mut kept).await;
    let overflowed = kept.len() > cap;
    if overflowed {
        kept.truncate(cap);
        let _ = tokio::io::copy(&mut reader, &mut tokio::io::sink()).await;
    }
    (kept, overflowed)
}

/// Logs each line a handler wrote to stderr, tagged with its hook, until the pipe closes.
pub(crate) async fn log_stderr_lines<R>(reader: R, hook: String)
where
    R: AsyncRead + Unpin,
{
    const MAX_LOGGED_LINE: usize = 8 * 1024;
    let mut reader = tokio::io::BufReader::new(reader);
    while let Ok(Some(line)) = read_line_capped(&mut reader, MAX_LOGGED_LINE).await {
        let text = String::from_utf8_lossy(&line.bytes);
        let text = text.trim_end_matches('\r');
        tracing::info!(target: "hooks_gateway::handler", hook = %hook, truncated = line.truncated, "{text}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn capped_lines_consume_whole_lines() {
        let mut input: &[u8] = b"short\nthis line is long\nlast";
        let first = read_line_capped(&mut input, 8).await.ok().flatten();
        assert!(
            first
                .as_ref()
                .is_some_and(|l| l.bytes == b"short" && !l.truncated)
        );
        let second = read_line_capped(&mut input, 8).await.ok().flatten();
        assert!(
            second
                .as_ref()
                .is_some_and(|l| l.bytes == b"this lin" && l.truncated)
        );
        let third = read_line_capped(&mut input, 8).await.ok().flatten();
        assert!(third.as_ref().is_some_and(|l| l.bytes == b"last"));
        assert!(
            read_line_capped(&mut input, 8)
                .await
                .ok()
                .flatten()
                .is_none()
        );
    }

    #[tokio::test]
    async fn read_all_capped_reports_overflow() {
        let (kept, overflowed) = read_all_capped(&b"0123456789"[..], 4).await;
        assert_eq!((kept.as_slice(), overflowed), (&b"0123"[..], true));
        let (kept, overflowed) = read_all_capped(&b"0123"[..], 4).await;
        assert_eq!((kept.as_slice(), overflowed), (&b"0123"[..], false));
    }
}
