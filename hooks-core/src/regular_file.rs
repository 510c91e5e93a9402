//! Opening a file we read settings from without ever blocking on it: a
//! repository can ship `.claude/settings.json` as a link to `/dev/stdin`, and
//! a FIFO or a terminal stalls a plain `open` or `read` forever. The file is
//! opened non-blocking and checked with `fstat` (the open file itself, not
//! its name, so a swap in between cannot slip past): anything but a regular
//! file is refused with an error saying so.

use std::fs::File;
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Opens `path` for reading when it is (or links to) a regular file; a
/// folder, FIFO, socket or device is an [`io::ErrorKind::InvalidInput`]
/// error naming what it is. A missing file stays [`io::ErrorKind::NotFound`].
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    let kind = file.metadata()?.file_type();
    if kind.is_file() {
        return Ok(file);
    }
    let what = if kind.is_dir() {
        "a folder"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "a special file"
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("is {what}, not a regular file"),
    ))
}

/// The bytes of `path`, opened by [`open_regular`]: at most `limit` bytes,
/// a larger file an [`io::ErrorKind::InvalidData`] error saying so (a link
/// to `/dev/zero` is refused, never read without end).
pub fn read_capped(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    open_regular(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("is over {limit} bytes"),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::{open_regular, read_capped};

    #[test]
    fn a_capped_read_refuses_what_is_larger() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("a.json");
        std::fs::write(&file, "0123456789").expect("write");
        assert_eq!(read_capped(&file, 10).expect("fits"), b"0123456789");
        let error = read_capped(&file, 9).expect_err("too large");
        assert!(error.to_string().contains("over 9 bytes"), "{error}");
        let error = read_capped(std::path::Path::new("/dev/zero"), 9).expect_err("a device");
        assert!(error.to_string().contains("a device"), "{error}");
    }

    #[test]
    fn only_a_regular_file_opens() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("settings.json");
        std::fs::write(&file, "{}").expect("write");
        assert!(open_regular(&file).is_ok());
        let error = open_regular(dir.path()).expect_err("a folder");
        assert!(error.to_string().contains("a folder"), "{error}");
        let error = open_regular(std::path::Path::new("/dev/null")).expect_err("a device");
        assert!(error.to_string().contains("a device"), "{error}");
        let missing = open_regular(&dir.path().join("missing")).expect_err("missing");
        assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
    }
}
