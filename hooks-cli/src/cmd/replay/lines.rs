//! The lines of a recorded session, read one at a time with a cap on each,
//! so a replay holds one event in memory, never the file.

use std::io::BufRead;

use crate::payload::MAX_PAYLOAD_BYTES;

/// The longest line a session may hold: one event, as large as a payload file may be (16 MiB).
pub const MAX_LINE_BYTES: usize = MAX_PAYLOAD_BYTES as usize;

/// How many bytes of one line too long to keep are read past before the
/// file is given up (256 MiB): a line with no end (`hooks replay
/// /dev/zero`) is not skipped forever (red team R39-3).
const MAX_SKIPPED_BYTES: usize = 16 * MAX_LINE_BYTES;

/// One line of the file.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// Its text (without the newline); invalid UTF-8 is replaced.
    Text(String),
    /// It was over [`MAX_LINE_BYTES`]: skipped without being held.
    TooLong,
}

/// Reads `reader` line by line, numbering from 1, each line capped at `cap` bytes.
pub struct CappedLines<R> {
    reader: R,
    cap: usize,
    number: usize,
    buffer: Vec<u8>,
}

impl<R: BufRead> CappedLines<R> {
    /// Lines of `reader`, each at most `cap` bytes.
    pub fn new(reader: R, cap: usize) -> Self {
        CappedLines {
            reader,
            cap,
            number: 0,
            buffer: Vec::new(),
        }
    }

    /// The next line and its number; `None` at the end.
    pub fn next_line(&mut self) -> std::io::Result<Option<(usize, Line)>> {
        self.buffer.clear();
        let mut too_long = false;
        let mut read_any = false;
        let mut skipped = 0usize;
        loop {
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                break;
            }
            read_any = true;
            let (chunk, end_of_line) = match available.iter().position(|&b| b == b'\n') {
                Some(at) => (&available[..at], Some(at + 1)),
                None => (available, None),
            };
            if !too_long && self.buffer.len() + chunk.len() <= self.cap {
                self.buffer.extend_from_slice(chunk);
            } else {
                too_long = true;
                self.buffer.clear();
                skipped = skipped.saturating_add(chunk.len());
                if skipped > MAX_SKIPPED_BYTES {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!(
                            "line {} runs on past {} bytes without ending; stopped reading",
                            self.number + 1,
                            MAX_SKIPPED_BYTES
                        ),
                    ));
                }
            }
            let used = end_of_line.unwrap_or(available.len());
            self.reader.consume(used);
            if end_of_line.is_some() {
                break;
            }
        }
        if !read_any {
            return Ok(None);
        }
        self.number += 1;
        if too_long {
            return Ok(Some((self.number, Line::TooLong)));
        }
        if self.buffer.last() == Some(&b'\r') {
            self.buffer.pop();
        }
        let text = String::from_utf8_lossy(&self.buffer).into_owned();
        Ok(Some((self.number, Line::Text(text))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &[u8], cap: usize) -> Vec<(usize, Line)> {
        // A tiny buffer: lines cross many reads.
        let reader = std::io::BufReader::with_capacity(3, text);
        let mut lines = CappedLines::new(reader, cap);
        let mut out = Vec::new();
        while let Some(line) = lines.next_line().expect("read") {
            out.push(line);
        }
        out
    }

    #[test]
    fn lines_are_numbered_and_capped_one_by_one() {
        let text = |s: &str| Line::Text(s.to_owned());
        assert_eq!(
            all(b"ab\r\n\n0123456789\nlast", 5),
            vec![
                (1, text("ab")),
                (2, text("")),
                (3, Line::TooLong),
                (4, text("last"))
            ]
        );
        assert_eq!(all(b"", 5), vec![]);
        assert_eq!(all(b"12345\n", 5), vec![(1, text("12345"))]);
    }

    #[test]
    fn a_line_that_never_ends_stops_the_reading() {
        let endless = std::io::BufReader::new(std::io::repeat(b'x'));
        let mut lines = CappedLines::new(endless, 5);
        let error = lines.next_line().expect_err("an endless line");
        assert!(
            error
                .to_string()
                .contains("line 1 runs on past 268435456 bytes"),
            "{error}"
        );
    }
}
