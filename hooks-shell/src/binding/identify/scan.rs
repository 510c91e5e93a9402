//! A file read whole for the names it runs computed when it runs: a
//! shell script (with what it sources), a Python, Node, Perl, Ruby or PHP
//! script, an `awk -f` program file; a file too long to read whole cannot
//! be approved (R40-4).

use std::path::Path;

use super::computed::Calls;
use super::follow::is_binary;
use super::language::read_head;

/// The most bytes of a shell script read whole for computed names; a
/// longer one cannot be approved.
const MAX_SHELL_TEXT: u64 = 16 * 1024 * 1024;

/// Why the shell script `file` runs a name computed when it runs, read
/// whole (not only its first [`super::MAX_SCAN`] bytes: R40-4); its positional
/// parameters hold computed text, its `"$@"` each call's words, when
/// `given` such calls (R45-1).
pub(super) fn scan(file: &Path, given: &Calls) -> Option<String> {
    let bytes = read_head(file, MAX_SHELL_TEXT + 1).ok()?;
    // A program (`/bin/sh` itself, `jq`) is no shell text (R42-9).
    if is_binary(&bytes) {
        return None;
    }
    if bytes.len() as u64 > MAX_SHELL_TEXT {
        return Some(format!(
            "{} is a shell script over {} MiB, too long to read for the names it runs",
            file.display(),
            MAX_SHELL_TEXT >> 20
        ));
    }
    let text = String::from_utf8_lossy(&bytes).replace('\0', "");
    let why = super::computed::computed_name_given(text.trim_start_matches('\u{feff}'), given)?;
    Some(format!(
        "{} runs a file named only when it runs: {why}",
        file.display()
    ))
}

/// Why the script `file`, in `language` (`python3`, `node`, `perl`,
/// `ruby`, `php`, `awk`: [`super::language`]), starts a command built when it
/// runs, read whole as [`scan`] reads a shell script (a longer one cannot
/// be approved); not a Python file's appended zip (what runs is the zip's
/// own code, bound with the file).
pub(super) fn scan_code(file: &Path, language: &str) -> Option<String> {
    let bytes = read_head(file, MAX_SHELL_TEXT + 1).ok()?;
    if bytes.len() as u64 > MAX_SHELL_TEXT {
        return Some(format!(
            "{} is a {language} script over {} MiB, too long to read for the commands it starts",
            file.display(),
            MAX_SHELL_TEXT >> 20
        ));
    }
    // Python source holds no NUL: what runs is an appended zip's own code.
    // Node and Perl run a file with one (in a comment, after `__END__`).
    if language == "python3" && bytes.contains(&0) {
        return None;
    }
    let text = String::from_utf8_lossy(&bytes).replace('\0', " ");
    let why = super::computed::spawns_computed(language, &text)?;
    Some(format!(
        "{} runs a file named only when it runs: {why}",
        file.display()
    ))
}

/// [`scan`] of `file` read after the files it sources (`libs`): what they
/// define holds in it.
pub(super) fn scan_with(file: &Path, libs: &[std::path::PathBuf], given: &Calls) -> Option<String> {
    let mut text = String::new();
    for path in libs.iter().chain([&file.to_path_buf()]) {
        let bytes = read_head(path, MAX_SHELL_TEXT).ok()?;
        text.push_str(String::from_utf8_lossy(&bytes).trim_start_matches('\u{feff}'));
        text.push('\n');
    }
    let why = super::computed::computed_name_given(&text.replace('\0', ""), given)?;
    Some(format!(
        "{} runs a file named only when it runs (with what it sources): {why}",
        file.display()
    ))
}

/// Why a program file that shell `text` (run in `cwd`, from a file in
/// `dir`) gives `awk -f` starts a command built when it runs, read as the
/// same program written inline is (red team round 49, H11: `awk -f
/// ~/bin/x.awk` running `system(l)` of a line it reads).
pub(super) fn scan_awk_programs(text: &str, cwd: &Path, dir: &Path) -> Option<String> {
    super::computed::awk_program_files(text)
        .into_iter()
        .find_map(|word| {
            let word = super::follow::with_project(&super::with_home(&word), cwd);
            scan_code(&super::resolve(&word, cwd, Some(dir))?, "awk")
        })
}
