//! What the gateway adds to hooks-core's process supervisor (which spawns,
//! bounds and kills every handler process and its whole tree): reading lines
//! from a worker with a byte cap, and showing handler stderr as warnings.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead};

pub(crate) use hermes_hooks_core::process::{ChildTree, RunLimits, run};

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

/// Shows each line a handler wrote to stderr as a warning naming its hook, until
/// the pipe closes. Lines are capped so a huge one cannot exhaust memory.
pub(crate) async fn log_stderr_lines<R>(reader: R, hook: String)
where
    R: AsyncRead + Unpin,
{
    const MAX_LOGGED_LINE: usize = 8 * 1024;
    let mut reader = tokio::io::BufReader::new(reader);
    while let Ok(Some(line)) = read_line_capped(&mut reader, MAX_LOGGED_LINE).await {
        log_stderr_line(&hook, &line.bytes, line.truncated);
    }
}

/// Shows one stderr line of `hook` as a warning, escaped for the terminal.
pub(crate) fn log_stderr_line(hook: &str, bytes: &[u8], truncated: bool) {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches('\r');
    if text.trim().is_empty() {
        return;
    }
    let text = hermes_hooks_core::display::escape(text);
    let more = if truncated { " [line truncated]" } else { "" };
    tracing::warn!(target: "hermes_hooks_gateway::handler", hook = %hook, "[hooks] {hook}: {text}{more}");
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
}
