//! Reading a worker's output: capped lines, and its stderr shown line by line.

use std::fs::File;
use std::io::{BufRead, BufReader};

/// Reads up to a newline into `line`, keeping at most `cap + 1` bytes (so the
/// caller can tell a line that went past `cap`); the rest of the line is read
/// and dropped. Returns the bytes consumed, newline included (0 at end of file).
pub(crate) fn read_capped_line(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok(total);
        }
        let (chunk, done) = match buffer.iter().position(|byte| *byte == b'\n') {
            Some(end) => (&buffer[..end], end + 1),
            None => (buffer, buffer.len()),
        };
        if line.len() <= cap {
            let room = cap + 1 - line.len();
            line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        }
        let found_newline = done > chunk.len();
        total += done;
        reader.consume(done);
        if found_newline {
            return Ok(total);
        }
    }
}

/// Hands each stderr line (cut at `cap` bytes, lossily decoded, without its
/// line ending) to `sink`, with whether it was cut, until the pipe closes.
pub(super) fn forward_stderr(stderr: File, cap: usize, sink: &(dyn Fn(&str, bool) + Send + Sync)) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    while let Ok(read) = read_capped_line(&mut reader, &mut line, cap) {
        if read == 0 {
            break;
        }
        let text = String::from_utf8_lossy(&line[..line.len().min(cap)]);
        sink(text.trim_end_matches(['\r', '\n']), line.len() > cap);
        line.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_but_consumed() {
        let mut input = std::io::Cursor::new(b"abcdefgh\nxy\n".to_vec());
        let mut line = Vec::new();
        assert_eq!(read_capped_line(&mut input, &mut line, 4).unwrap(), 9);
        assert_eq!(line, b"abcde");
        line.clear();
        assert_eq!(read_capped_line(&mut input, &mut line, 4).unwrap(), 3);
        assert_eq!(line, b"xy");
        line.clear();
        assert_eq!(read_capped_line(&mut input, &mut line, 4).unwrap(), 0);
    }
}
