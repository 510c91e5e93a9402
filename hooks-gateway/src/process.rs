//! Subprocess plumbing of the gateway: the process supervisor's names (see
//! `supervisor` below), and reading lines from a worker with a byte cap.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead};

pub(crate) use supervisor::{ChildTree, RunLimits, run};

/// Stand-in for hooks-core's `process` supervisor with the same names and
/// signatures, used until that module is available to this crate.
mod supervisor {
    use std::process::{ExitStatus, Stdio};
    use std::time::{Duration, Instant};

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::process::{Child, Command};

    /// A spawned child in its own process group; dropping it kills the group.
    pub(crate) struct ChildTree {
        child: Child,
        pgid: i32,
    }

    impl ChildTree {
        pub(crate) fn spawn(mut command: Command) -> std::io::Result<ChildTree> {
            command.process_group(0).kill_on_drop(true);
            let child = command.spawn()?;
            let pgid = child
                .id()
                .and_then(|id| i32::try_from(id).ok())
                .unwrap_or(0);
            Ok(ChildTree { child, pgid })
        }

        pub(crate) fn id(&self) -> u32 {
            self.pgid.unsigned_abs()
        }

        pub(crate) fn child_mut(&mut self) -> &mut Child {
            &mut self.child
        }

        pub(crate) async fn wait(&mut self) -> std::io::Result<ExitStatus> {
            self.child.wait().await
        }

        pub(crate) fn kill_tree(&mut self) {
            use nix::sys::signal::{Signal, killpg};
            if self.pgid > 0 {
                let _ = killpg(nix::unistd::Pid::from_raw(self.pgid), Signal::SIGKILL);
            }
            let _ = self.child.start_kill();
        }
    }

    impl Drop for ChildTree {
        fn drop(&mut self) {
            self.kill_tree();
        }
    }

    pub(crate) struct RunLimits {
        pub(crate) timeout: Duration,
        pub(crate) output_cap: usize,
        pub(crate) pipe_grace: Duration,
    }

    pub(crate) struct RunOutput {
        pub(crate) exit_code: Option<i32>,
        pub(crate) signal: Option<i32>,
        pub(crate) timed_out: bool,
        pub(crate) stdout: Vec<u8>,
        pub(crate) stderr: Vec<u8>,
        pub(crate) stdout_truncated: bool,
    }

    async fn drain<R: tokio::io::AsyncRead + Unpin>(
        reader: Option<R>,
        cap: usize,
        out: &mut (Vec<u8>, bool),
    ) {
        let Some(mut reader) = reader else { return };
        let mut buffer = [0u8; 8192];
        while let Ok(read) = reader.read(&mut buffer).await {
            if read == 0 {
                break;
            }
            let room = cap.saturating_sub(out.0.len());
            out.1 |= read > room;
            out.0.extend_from_slice(&buffer[..read.min(room)]);
        }
    }

    pub(crate) async fn run(
        mut command: Command,
        input: &[u8],
        limits: &RunLimits,
    ) -> std::io::Result<RunOutput> {
        use std::os::unix::process::ExitStatusExt;
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let started = Instant::now();
        let mut tree = ChildTree::spawn(command)?;
        let child = tree.child_mut();
        let (stdin, stdout, stderr) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let input = input.to_vec();
        let writer = tokio::spawn(async move {
            if let Some(mut stdin) = stdin {
                let _ = stdin.write_all(&input).await;
            }
        });
        let mut out = (Vec::new(), false);
        let mut err = (Vec::new(), false);
        let cap = limits.output_cap;
        let mut timed_out = false;
        let mut status = None;
        {
            let pipes = async {
                tokio::join!(drain(stdout, cap, &mut out), drain(stderr, cap, &mut err));
            };
            tokio::pin!(pipes);
            let deadline = tokio::time::Instant::from_std(started + limits.timeout);
            tokio::select! {
                _ = &mut pipes => {
                    if let Ok(Ok(exit)) = tokio::time::timeout_at(deadline, tree.wait()).await {
                        status = Some(exit);
                    } else {
                        timed_out = true;
                    }
                }
                exit = tree.wait() => {
                    status = exit.ok();
                    let grace = tokio::time::Instant::now() + limits.pipe_grace;
                    let _ = tokio::time::timeout_at(grace.min(deadline), &mut pipes).await;
                }
                () = tokio::time::sleep_until(deadline) => timed_out = true,
            }
        }
        writer.abort();
        tree.kill_tree();
        Ok(RunOutput {
            exit_code: status.and_then(|s| s.code()),
            signal: status.and_then(|s| s.signal()),
            timed_out,
            stdout: out.0,
            stderr: err.0,
            stdout_truncated: out.1,
        })
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
    let text = hooks_core::display::escape(text);
    let more = if truncated { " [line truncated]" } else { "" };
    tracing::warn!(target: "hooks_gateway::handler", hook = %hook, "[hooks] {hook}: {text}{more}");
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
