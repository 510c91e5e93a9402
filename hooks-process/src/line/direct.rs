//! A direct [`super::LineWorker`]: no reader or writer thread between the
//! caller and the pipes. A caller writes its request itself (non-blocking,
//! bounded by its deadline) and the thread waiting for an answer reads the
//! pipe itself, in `poll(2)` bounded by its deadline: one wake-up per answer
//! (the pipe's) instead of a writer's, a reader's and the caller's.
//!
//! With several calls in flight one caller at a time reads (the reader);
//! it hands every answer it reads to the request with that id and stops when
//! its own has come (or its deadline passed), giving the turn to read to one
//! of the callers still waiting. A caller whose turn never comes still ends
//! at its own deadline.

use std::fs::File;
use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};

use super::slot::{Slot, Wake};
use super::threads::{route, too_large};
use super::{Answer, LineError, Shared, lock};

/// The pipes of a direct worker, used by its callers in turn.
pub(super) struct Direct {
    /// The child's input, non-blocking; one writer at a time.
    input: Mutex<File>,
    /// The child's output and the line read so far: only the reader touches it.
    output: Mutex<Output>,
    /// Whether a caller is reading the output now.
    reading: AtomicBool,
    /// The longest answer line kept.
    cap: usize,
}

struct Output {
    reader: BufReader<File>,
    /// The line read so far (at most `cap + 1` bytes are kept).
    line: Vec<u8>,
}

/// What one attempt to read a line gave.
enum Read {
    /// A whole line, without its newline (longer than the cap when it was cut).
    Line(Vec<u8>),
    /// No whole line before the deadline.
    TimedOut,
    /// The output closed or broke.
    Closed,
}

impl Direct {
    /// The direct side of a worker with these pipes; `input` becomes non-blocking.
    pub(super) fn new(input: File, output: File, cap: usize) -> std::io::Result<Direct> {
        rustix::io::ioctl_fionbio(&input, true)?;
        Ok(Direct {
            input: Mutex::new(input),
            output: Mutex::new(Output {
                reader: BufReader::with_capacity(64 * 1024, output),
                line: Vec::new(),
            }),
            reading: AtomicBool::new(false),
            cap,
        })
    }

    /// Writes `line` whole before `deadline`. A child that does not take it
    /// in time (or a pipe that broke) leaves a partial line behind: the
    /// caller must declare the worker broken on `Err`.
    pub(super) fn write(&self, line: &[u8], deadline: Instant) -> Result<(), LineError> {
        let mut input = lock(&self.input);
        let mut rest = line;
        while !rest.is_empty() {
            match input.write(rest) {
                Ok(0) => return Err(LineError::Send("the pipe took no bytes".to_owned())),
                Ok(written) => rest = &rest[written..],
                Err(error) if error.kind() == ErrorKind::Interrupted => {}
                Err(error) if error.kind() == ErrorKind::WouldBlock => {
                    if !wait_for(&*input, PollFlags::OUT, deadline) {
                        return Err(LineError::Send(
                            "the worker did not read its input before the call's deadline"
                                .to_owned(),
                        ));
                    }
                }
                Err(error) => return Err(LineError::Send(error.to_string())),
            }
        }
        Ok(())
    }

    /// Waits for `slot`'s answer until `deadline`, reading the pipe whenever
    /// no one else does. `None`: the deadline passed.
    pub(super) fn wait(&self, shared: &Shared, slot: &Slot, deadline: Instant) -> Option<Answer> {
        loop {
            if let Some(answer) = slot.take() {
                return Some(answer);
            }
            if !self.reading.swap(true, Ordering::AcqRel) {
                self.read_until(shared, slot, deadline);
                self.leave(shared, slot);
                if let Some(answer) = slot.take() {
                    return Some(answer);
                }
                if Instant::now() >= deadline {
                    return None;
                }
                continue;
            }
            match slot.wait_answer_or_turn(deadline) {
                Wake::Answer(answer) => return Some(answer),
                Wake::Turn => {}
                Wake::TimedOut => {
                    // A turn given at this very moment must not be lost.
                    self.pass_turn(shared, slot);
                    return slot.take();
                }
            }
        }
    }

    /// Whether the child closed its output: reads what is there without
    /// waiting when no one else reads (a line for nobody is logged and
    /// dropped), so an exited worker is found before the next request.
    pub(super) fn closed(&self, shared: &Shared) -> bool {
        if self.reading.swap(true, Ordering::AcqRel) {
            return false;
        }
        let mut output = lock(&self.output);
        let mut closed = false;
        loop {
            match self.next_line(&mut output, Instant::now()) {
                Read::Line(line) => self.hand_out(shared, &line),
                Read::TimedOut => break,
                Read::Closed => {
                    closed = true;
                    break;
                }
            }
        }
        drop(output);
        if closed {
            shared.close(&LineError::Exited("closed its output".to_owned()));
        }
        self.leave(shared, &Slot::default());
        closed
    }

    /// Reads lines (handing each to its request) until `slot` is answered,
    /// `deadline` passes or the output closes.
    fn read_until(&self, shared: &Shared, slot: &Slot, deadline: Instant) {
        let mut output = lock(&self.output);
        while !slot.is_filled() {
            match self.next_line(&mut output, deadline) {
                Read::Line(line) => self.hand_out(shared, &line),
                Read::TimedOut => return,
                Read::Closed => {
                    drop(output);
                    shared.close(&LineError::Exited("closed its output".to_owned()));
                    return;
                }
            }
        }
    }

    fn hand_out(&self, shared: &Shared, line: &[u8]) {
        if line.len() > self.cap {
            too_large(shared, self.cap);
        } else {
            route(shared, line);
        }
    }

    /// Stops reading and gives the turn to a caller still waiting, if any
    /// (not to `me`, who is leaving).
    fn leave(&self, shared: &Shared, me: &Slot) {
        self.reading.store(false, Ordering::Release);
        self.pass_turn(shared, me);
    }

    /// When no one reads, tells one waiting caller other than `me` to.
    pub(super) fn pass_turn(&self, shared: &Shared, me: &Slot) {
        if self.reading.load(Ordering::Acquire) {
            return;
        }
        let next: Option<Arc<Slot>> = lock(&shared.pending)
            .values()
            .find(|slot| !std::ptr::eq(&***slot, me))
            .cloned();
        match next {
            Some(slot) => slot.give_turn(),
            None if !shared.ready_seen.load(Ordering::SeqCst)
                && !std::ptr::eq(&*shared.ready, me) =>
            {
                shared.ready.give_turn();
            }
            None => {}
        }
    }

    /// The next whole line, reading (and waiting until `deadline`) as needed.
    fn next_line(&self, output: &mut Output, deadline: Instant) -> Read {
        loop {
            if output.reader.buffer().is_empty()
                && !wait_for(output.reader.get_ref(), PollFlags::IN, deadline)
            {
                return Read::TimedOut;
            }
            let buffer = match output.reader.fill_buf() {
                Ok(buffer) => buffer,
                Err(error) if error.kind() == ErrorKind::Interrupted => continue,
                Err(_) => return Read::Closed,
            };
            if buffer.is_empty() {
                return Read::Closed;
            }
            let (chunk, used) = match buffer.iter().position(|byte| *byte == b'\n') {
                Some(end) => (&buffer[..end], end + 1),
                None => (buffer, buffer.len()),
            };
            let complete = used > chunk.len();
            let room = (self.cap + 1).saturating_sub(output.line.len());
            let kept = chunk.len().min(room);
            output.line.extend_from_slice(&chunk[..kept]);
            output.reader.consume(used);
            if complete {
                return Read::Line(std::mem::take(&mut output.line));
            }
        }
    }
}

/// Waits until `fd` is ready for `flags` (or hung up) or `deadline` passes;
/// false when it passed first.
fn wait_for(fd: impl AsFd, flags: PollFlags, deadline: Instant) -> bool {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        // Capped: the timespec holds any wait a deadline asks for in slices.
        let slice = left.min(Duration::from_secs(3600));
        let timeout = Timespec::try_from(slice).unwrap_or(Timespec {
            tv_sec: 3600,
            tv_nsec: 0,
        });
        let mut fds = [PollFd::new(&fd, flags)];
        match poll(&mut fds, Some(&timeout)) {
            Ok(0) if left <= slice => return false,
            Ok(0) => {}
            Ok(_) => return true,
            Err(rustix::io::Errno::INTR) => {}
            // A poll that fails cannot wait: let the read or write report it.
            Err(_) => return true,
        }
    }
}
