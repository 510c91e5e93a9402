//! Which language a script file is written in, for the calls it is read
//! for ([`super::scan::scan_code`]): the interpreter the command runs it
//! with, else its `#!` line, else its ending.

use std::path::Path;

use super::base_name;

/// The program a `#!` line names (`#!/usr/bin/env -S X=1 bash -e`:
/// `bash`), after a byte order mark too; `None` without one, `""` for an
/// empty line.
pub(super) fn shebang_program(text: &str) -> Option<String> {
    let line = text.trim_start_matches('\u{feff}').strip_prefix("#!")?;
    let line = line.lines().next().unwrap_or("");
    let mut words = line.split_whitespace();
    let program = base_name(words.next().unwrap_or(""));
    if program != "env" {
        return Some(program);
    }
    // `#!/usr/bin/env -S X=1 bash -e`, `-Sbash`, `--split-string="bash"`
    // (R41-6, R42-7).
    let named = words
        .map(|w| {
            let w = w.strip_prefix("--split-string=").unwrap_or(w);
            let w = w.strip_prefix("-S").unwrap_or(w);
            w.trim_matches(|c| c == '"' || c == '\'')
        })
        .find(|w| !w.is_empty() && !w.starts_with('-') && !w.contains('='));
    Some(base_name(named.unwrap_or("")))
}

/// The language of a program named `program` (as [`base_name`] gives it)
/// whose script files are read for the commands they start: `python3`,
/// `node`, `perl`, `ruby`, `php` or `awk` (a `#!/usr/bin/awk -f` file).
fn of_program(program: &str) -> Option<&'static str> {
    Some(match program {
        "python" | "python3" => "python3",
        "node" | "nodejs" | "bun" | "deno" | "tsx" | "ts-node" => "node",
        "perl" => "perl",
        "ruby" => "ruby",
        "php" => "php",
        "awk" | "gawk" | "mawk" | "nawk" => "awk",
        _ => return None,
    })
}

/// The language `file` (holding `text`, its start) is read in: the
/// interpreter the command runs it with (`interpreter`: `node tools/h`),
/// else the one its `#!` line names, else its ending (`.js`, `.pl`...).
pub(super) fn language_of(
    file: &Path,
    text: &str,
    interpreter: Option<&str>,
) -> Option<&'static str> {
    if let Some(language) = interpreter.and_then(of_program) {
        return Some(language);
    }
    if let Some(program) = shebang_program(text) {
        // `#!/usr/bin/python3.12 -u`: as before, any line naming Python.
        if text[..text.len().min(80)].contains("python") {
            return Some("python3");
        }
        return of_program(&program);
    }
    let name = file.file_name()?.to_string_lossy().to_ascii_lowercase();
    let (_, ending) = name.rsplit_once('.')?;
    Some(match ending {
        "py" => "python3",
        "js" | "mjs" | "cjs" | "ts" | "mts" | "cts" => "node",
        "pl" | "pm" => "perl",
        "rb" => "ruby",
        "php" => "php",
        "awk" => "awk",
        _ => return None,
    })
}

/// Whether a file executed directly runs the same as `/proc/self/fd/N`: a
/// binary, or a script whose `#!` interpreter is one of [`FD_SAFE`].
pub(super) fn shebang_fd_safe(path: &Path) -> bool {
    let Ok(head) = read_head(path, 256) else {
        return false;
    };
    let Some(line) = head.strip_prefix(b"#!") else {
        return head.starts_with(b"\x7fELF");
    };
    let line = String::from_utf8_lossy(line);
    let line = line.lines().next().unwrap_or("");
    let mut words = line.split_whitespace();
    let mut name = super::base_name(words.next().unwrap_or(""));
    if name == "env" {
        name = super::base_name(words.find(|w| !w.starts_with('-')).unwrap_or(""));
    }
    super::FD_SAFE.contains(&name.as_str())
}

pub(super) fn read_head(path: &Path, len: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(len)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_is_read_in_the_language_that_runs_it() {
        let read =
            |name: &str, text: &str, by: Option<&str>| language_of(Path::new(name), text, by);
        assert_eq!(read("/p/h", "", Some("node")), Some("node"));
        assert_eq!(read("/p/h.sh", "", Some("perl")), Some("perl"));
        assert_eq!(read("/p/h", "#!/usr/bin/env node\n", None), Some("node"));
        assert_eq!(
            read("/p/h", "#!/usr/bin/env -S perl -w\n", None),
            Some("perl")
        );
        assert_eq!(
            read("/p/h", "#!/usr/bin/python3.12 -u\n", None),
            Some("python3")
        );
        assert_eq!(read("/p/h.mjs", "import x from 'y'\n", None), Some("node"));
        assert_eq!(read("/p/h.pl", "use strict;\n", None), Some("perl"));
        assert_eq!(read("/p/h.rb", "", None), Some("ruby"));
        assert_eq!(read("/p/x.awk", "{ print }\n", None), Some("awk"));
        assert_eq!(read("/p/x", "#!/usr/bin/gawk -f\n", None), Some("awk"));
        // A `#!` line decides over an ending; a shell's is none of these.
        assert_eq!(read("/p/h.js", "#!/bin/sh\n", None), None);
        assert_eq!(read("/p/h.sh", "echo\n", None), None);
        assert_eq!(read("/p/Makefile", "all:\n", None), None);
    }
}
