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

#[cfg(test)]
mod tests {
    use super::open_regular;

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
