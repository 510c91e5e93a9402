//! What Cursor's `beforeReadFile` hands a hook: the file Hermes's
//! `read_file` opens (`~` expanded as hermes-agent expands it, a relative
//! path against the working folder) and its whole text. When the text
//! cannot be given whole (over [`MAX_CONTENT_BYTES`], not a regular file,
//! unreadable, a `~` that may name two homes) the hook is handed `""`, as
//! Cursor does, and the reason is kept: a fail-closed hook blocks the read
//! instead of judging `""` (red-team R6-11,
//! docs/decisions/content-guard-never-judges-empty.md).

use std::io::Read;
use std::path::{Path, PathBuf};

/// The most of a file `beforeReadFile` hands a hook (as the 16 MiB payload cap).
pub(super) const MAX_CONTENT_BYTES: u64 = 16 * 1024 * 1024;

/// The file a `read_file` call names, as a hook is handed it.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct FileForHook {
    /// The path Hermes opens.
    pub(super) path: String,
    /// The file's text (invalid UTF-8 replaced); `""` when there is no such
    /// file or it cannot be given whole.
    pub(super) content: String,
    /// Why the content is not the whole file Hermes reads, if it is not.
    pub(super) withheld: Option<String>,
}

/// The file `path` (as the call gave it) names, read for a hook; `cwd` is
/// the call's working folder, `hermes_home` the Hermes home (whose `home`
/// folder Hermes may take for `~`).
pub(super) fn file_for_hook(path: &str, cwd: &str, hermes_home: &Path) -> FileForHook {
    let homes = tilde_homes(path, hermes_home);
    let opened = match homes.first() {
        Some(home) => expanded(path, home),
        None => against(cwd, path),
    };
    let (content, mut withheld) = match read_whole(&opened) {
        Ok(text) => (text, None),
        Err(why) => (String::new(), why),
    };
    if withheld.is_none()
        && let Some(other) = homes[1.min(homes.len())..]
            .iter()
            .map(|home| expanded(path, home))
            .find(|other| !same_file(other, &opened))
    {
        withheld = Some(format!(
            "`~` may name {} or {}",
            opened.display(),
            other.display()
        ));
    }
    FileForHook {
        path: opened.to_string_lossy().into_owned(),
        content,
        withheld,
    }
}

/// The homes `~` in `path` may name, the likeliest first: the user's home
/// (`HOME`, else the password database), `<HERMES_HOME>/home` when that
/// folder exists (Hermes's profile home), `HERMES_REAL_HOME`; for `~user`
/// that user's home. Empty when `path` does not start with `~` or names
/// nobody known (Python leaves it as it is).
fn tilde_homes(path: &str, hermes_home: &Path) -> Vec<PathBuf> {
    let Some(rest) = path.strip_prefix('~') else {
        return Vec::new();
    };
    let user = rest.split('/').next().unwrap_or("");
    if !user.is_empty() {
        return nix::unistd::User::from_name(user)
            .ok()
            .flatten()
            .map(|user| vec![user.dir])
            .unwrap_or_default();
    }
    let profile = hermes_home.join("home");
    let real = std::env::var_os("HERMES_REAL_HOME").filter(|value| !value.is_empty());
    let mut homes: Vec<PathBuf> = hermes_hooks_core::home::user_home().into_iter().collect();
    homes.extend(profile.is_dir().then_some(profile));
    homes.extend(real.map(PathBuf::from));
    homes
}

/// `path` (`~`, `~/x`, `~user/x`) with its home replaced by `home`.
fn expanded(path: &str, home: &Path) -> PathBuf {
    match path.split_once('/') {
        Some((_, rest)) => home.join(rest),
        None => home.to_path_buf(),
    }
}

/// `path` against the working folder `cwd` when it is relative.
fn against(cwd: &str, path: &str) -> PathBuf {
    if path.is_empty() || cwd.is_empty() {
        return PathBuf::from(path);
    }
    Path::new(cwd).join(path)
}

fn same_file(one: &Path, other: &Path) -> bool {
    match (one.canonicalize(), other.canonicalize()) {
        (Ok(one), Ok(other)) => one == other,
        // Neither exists: Hermes reads nothing either way.
        (Err(_), Err(_)) => true,
        _ => false,
    }
}

/// The whole text of `path`; `Err(None)` when there is no such file (or it
/// is a folder: Hermes reads nothing), `Err(Some(why))` when it cannot be
/// given whole. A FIFO or a device is never opened for long: it would stall
/// the event (opened without blocking, checked first).
fn read_whole(path: &Path) -> Result<String, Option<String>> {
    let file = match hermes_hooks_core::regular_file::open_regular(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Err(None),
        Err(_) if path.is_dir() => return Err(None),
        Err(error) => return Err(Some(format!("{} cannot be read: {error}", path.display()))),
    };
    let mut bytes = Vec::new();
    match file.take(MAX_CONTENT_BYTES + 1).read_to_end(&mut bytes) {
        Ok(read) if read as u64 <= MAX_CONTENT_BYTES => {
            Ok(String::from_utf8_lossy(&bytes).into_owned())
        }
        Ok(_) => Err(Some(format!(
            "{} is larger than the {} MiB a hook is handed",
            path.display(),
            MAX_CONTENT_BYTES >> 20
        ))),
        Err(error) => Err(Some(format!("{} cannot be read: {error}", path.display()))),
    }
}

#[cfg(test)]
mod tests {
    use super::file_for_hook;

    /// A FIFO in place of the file the agent reads (red-team F15): read as
    /// nothing, at once, instead of waiting for a writer forever; the
    /// content is withheld, not judged as `""`.
    #[test]
    fn a_fifo_is_read_as_nothing_without_waiting() {
        let dir = tempfile::tempdir().expect("dir");
        let fifo = dir.path().join("NOTES.md");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(status.success());
        let cwd = dir.path().to_str().expect("UTF-8");
        let read = file_for_hook("NOTES.md", cwd, dir.path());
        assert_eq!(read.content, "");
        assert!(read.withheld.is_some_and(|why| why.contains("FIFO")));
        std::fs::write(dir.path().join("plain.md"), "text").expect("write");
        let read = file_for_hook("plain.md", cwd, dir.path());
        assert_eq!((read.content.as_str(), read.withheld), ("text", None));
        let missing = file_for_hook("gone.md", cwd, dir.path());
        assert_eq!((missing.content.as_str(), missing.withheld), ("", None));
    }

    /// `~` names the profile home too when Hermes has one: unless both
    /// name the same file, the content is withheld.
    #[test]
    fn a_tilde_that_may_name_two_homes_is_withheld() {
        let hermes = tempfile::tempdir().expect("dir");
        let read = file_for_hook("~/no-such-file-here", "/", hermes.path());
        assert_eq!(read.withheld, None, "no profile home, no such file");
        std::fs::create_dir(hermes.path().join("home")).expect("profile home");
        std::fs::write(hermes.path().join("home/creds"), "AKIA").expect("write");
        let read = file_for_hook("~/creds", "/", hermes.path());
        assert!(read.withheld.is_some_and(|why| why.contains("may name")));
    }
}
