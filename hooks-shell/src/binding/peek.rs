//! A look at the start of a file a hook's code names, to tell what runs it:
//! the first MiB of a regular file (never a FIFO or a device: R22b-11,
//! R24-4) and its `#!` line. A program without a file ending run by another
//! script (`run.sh` → `exec ./tool`) is Python or Perl by that line (R24-2).

use std::io::Read;
use std::path::Path;

/// The most of a file read.
pub(super) const MAX_PEEK: u64 = 1 << 20;

/// The first MiB of the regular file at `path` as text, up to its first
/// NUL byte: a compiled program (`/usr/bin/python3` named by its path) is
/// no text, and read as shell text it cost each emit minutes (red team
/// round 62, U-1); a script with a zip appended keeps its text.
pub(super) fn small_text(path: &Path) -> Option<String> {
    let file = hermes_hooks_core::regular_file::open_regular(path).ok()?;
    let mut text = Vec::new();
    file.take(MAX_PEEK).read_to_end(&mut text).ok()?;
    if let Some(at) = text.iter().position(|byte| *byte == 0) {
        text.truncate(at);
    }
    Some(String::from_utf8_lossy(&text).into_owned())
}

/// Whether the first MiB of the regular file at `path` holds `word`.
pub(super) fn file_names(path: &Path, word: &[u8]) -> bool {
    let Ok(file) = hermes_hooks_core::regular_file::open_regular(path) else {
        return false;
    };
    let mut text = Vec::new();
    let _ = file.take(MAX_PEEK).read_to_end(&mut text);
    text.windows(word.len()).any(|window| window == word)
}

/// The `#!` line of the regular file at `path`, without the `#!` (first
/// 512 bytes read).
pub(super) fn hash_bang(path: &Path) -> Option<String> {
    let file = hermes_hooks_core::regular_file::open_regular(path).ok()?;
    let mut start = Vec::new();
    file.take(512).read_to_end(&mut start).ok()?;
    let line = start.strip_prefix(b"#!")?;
    let line = line.split(|&byte| byte == b'\n').next()?;
    Some(String::from_utf8_lossy(line).trim().to_owned())
}

/// Whether the `#!` line of `path` runs `program` (`/usr/bin/python3`,
/// `/usr/bin/env -S python3 -I`, `/usr/bin/perl -w`).
pub(super) fn runs_under(path: &Path, program: &str) -> bool {
    hash_bang(path).is_some_and(|line| {
        line.split_whitespace()
            .filter_map(|word| word.rsplit('/').next())
            .any(|name| name.starts_with(program))
    })
}

/// Whether `path` has no file ending (`tool`, `conf`), so it may hold code
/// of any language.
pub(super) fn no_ending(path: &Path) -> bool {
    path.extension().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_bang_line_tells_the_program() {
        let folder = tempfile::tempdir().expect("folder");
        let tool = folder.path().join("tool");
        std::fs::write(&tool, "#!/usr/bin/env -S python3 -I\nimport os\n").expect("tool");
        assert!(runs_under(&tool, "python"));
        assert!(!runs_under(&tool, "perl"));
        std::fs::write(&tool, "#!/usr/bin/perl -w -Ilib\n").expect("tool");
        assert_eq!(hash_bang(&tool).as_deref(), Some("/usr/bin/perl -w -Ilib"));
        assert!(runs_under(&tool, "perl"));
        std::fs::write(&tool, "print('#!/usr/bin/perl')\n").expect("tool");
        assert!(!runs_under(&tool, "perl"));
        let fifo = folder.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("fifo");
        assert_eq!(hash_bang(&fifo), None);
        assert_eq!(small_text(&fifo), None);
        assert_eq!(small_text(Path::new("/dev/zero")), None);
    }

    #[test]
    fn a_compiled_programs_text_ends_at_its_first_nul() {
        // Red team round 62, U-1: `/usr/bin/python3` read as shell text.
        let folder = tempfile::tempdir().expect("folder");
        let program = folder.path().join("program");
        std::fs::write(&program, b"\x7fELF\x02\x01\x00$($($($(").expect("program");
        assert_eq!(small_text(&program).as_deref(), Some("\u{7f}ELF\u{2}\u{1}"));
        let zipped = folder.path().join("zipped.py");
        std::fs::write(&zipped, b"import os\n\x00PK").expect("zipped");
        assert_eq!(small_text(&zipped).as_deref(), Some("import os\n"));
    }
}
