//! `$HERMES_HOME/shell-hooks-refused.json`: why each hook that could not
//! be approved when it was last tried (`hooks approve`, `--accept-hooks`,
//! the prompt) was refused, so a run where nobody is asked tells the
//! user that approving it as it is cannot succeed, instead of "approve
//! it" (red team R43-12: a name a script computes when it runs is found
//! only by reading the scripts, which a run nobody is asked for does not
//! do; R7a-3).
//!
//! It only chooses words: an entry never approves or refuses a hook. An
//! approval recorded later takes its hook's entry out. A file that cannot
//! be read reads as empty; one that cannot be written loses the entry (the
//! message is then the plain "not approved").

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::binding::Subject;
use crate::clock::now_iso;

/// The file's name inside the Hermes home.
pub const REFUSALS_FILE: &str = "shell-hooks-refused.json";

/// The most entries kept (the oldest go first).
const MAX_ENTRIES: usize = 256;

/// The largest file read.
const MAX_BYTES: u64 = 1024 * 1024;

/// The refusals recorded in one Hermes home.
#[derive(Debug, Clone)]
pub(crate) struct Refusals {
    path: PathBuf,
}

impl Refusals {
    /// The refusals kept in the folder `home`.
    pub(crate) fn in_folder(home: &Path) -> Refusals {
        Refusals {
            path: home.join(REFUSALS_FILE),
        }
    }

    /// Why `subject` was refused when last tried, and when, while the
    /// files it was refused for are as they were then (R45-10: a fixed
    /// script is "not approved", not "refused").
    pub(crate) fn last(&self, subject: &Subject) -> Option<(String, String)> {
        let key = key(subject);
        let entries = self.entries();
        let entry = entries
            .iter()
            .rev()
            .find(|entry| entry.get("key") == Some(&key))?;
        // The files recorded with it, so no reading is done again (a
        // script too intricate to read cost its whole budget on every run
        // nobody was asked for: red team round 64, U-02); an entry written
        // before they were recorded reads the hook again.
        let files = match entry.get("paths").and_then(Value::as_array) {
            Some(paths) => paths
                .iter()
                .filter_map(Value::as_str)
                .map(PathBuf::from)
                .collect(),
            None => run_files(subject),
        };
        if entry.get("files").and_then(Value::as_str) != Some(files_state(&files).as_str()) {
            return None;
        }
        let text = |name: &str| {
            entry
                .get(name)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        Some((text("why"), text("at")))
    }

    /// Records that `subject`, running `files`, cannot be approved as it
    /// is, because `why`.
    pub(crate) fn record(&self, subject: &Subject, files: &[PathBuf], why: &str) {
        let key = key(subject);
        let mut entries = self.entries();
        entries.retain(|entry| entry.get("key") != Some(&key));
        let paths: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        entries.push(json!({
            "key": key,
            "why": why,
            "at": now_iso(),
            "paths": paths,
            "files": files_state(files),
        }));
        let skip = entries.len().saturating_sub(MAX_ENTRIES);
        self.write(&entries[skip..]);
    }

    /// Takes out `subject`'s entry (it was approved).
    pub(crate) fn forget(&self, subject: &Subject) {
        let key = key(subject);
        let mut entries = self.entries();
        let before = entries.len();
        entries.retain(|entry| entry.get("key") != Some(&key));
        if entries.len() != before {
            self.write(&entries);
        }
    }

    fn entries(&self) -> Vec<Value> {
        use std::io::Read;
        let Ok(file) = std::fs::File::open(&self.path) else {
            return Vec::new();
        };
        let mut text = String::new();
        if file.take(MAX_BYTES).read_to_string(&mut text).is_err() {
            return Vec::new();
        }
        match serde_json::from_str::<Value>(&text) {
            Ok(Value::Array(entries)) => entries,
            _ => Vec::new(),
        }
    }

    fn write(&self, entries: &[Value]) {
        let written = (|| -> std::io::Result<()> {
            use std::io::Write;
            let dir = self.path.parent().unwrap_or(Path::new("."));
            std::fs::create_dir_all(dir)?;
            let mut file = tempfile::NamedTempFile::new_in(dir)?;
            file.write_all(serde_json::to_string_pretty(entries)?.as_bytes())?;
            file.persist(&self.path).map_err(|error| error.error)?;
            Ok(())
        })();
        if let Err(error) = written {
            tracing::debug!("{}: not written: {error}", self.path.display());
        }
    }
}

/// The files `subject` runs, read now.
fn run_files(subject: &Subject) -> Vec<PathBuf> {
    let found = subject.identify();
    found.files.into_iter().chain(found.programs).collect()
}

/// What `files` are now, by name, size and time of last change (no
/// content is read: a run nobody is asked for stays cheap).
fn files_state(files: &[PathBuf]) -> String {
    use sha2::Digest;
    let mut digest = sha2::Sha256::new();
    for file in files {
        let stamp = std::fs::metadata(file).ok().map(|meta| {
            let changed = meta
                .modified()
                .ok()
                .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok());
            (meta.len(), changed.map(|d| d.as_nanos()))
        });
        digest.update(format!("{}\0{stamp:?}\n", file.display()));
    }
    hex::encode(digest.finalize())
}

/// What names `subject` among the entries: its event, command and the
/// folder it runs in (its project).
fn key(subject: &Subject) -> Value {
    let project = subject.project.as_deref().unwrap_or(&subject.cwd);
    json!([
        subject.event,
        subject.command,
        project.display().to_string()
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subject(command: &str) -> Subject {
        Subject::native("pre_tool_call", command, None)
    }

    #[test]
    fn a_refusal_is_kept_until_the_hook_is_approved() {
        let home = tempfile::tempdir().expect("home");
        let refusals = Refusals::in_folder(home.path());
        assert_eq!(refusals.last(&subject("a")), None);
        refusals.record(&subject("a"), &[], "first");
        refusals.record(&subject("b"), &[], "other");
        refusals.record(&subject("a"), &[], "second");
        assert_eq!(refusals.last(&subject("a")).expect("kept").0, "second");
        refusals.forget(&subject("a"));
        assert_eq!(refusals.last(&subject("a")), None);
        assert_eq!(refusals.last(&subject("b")).expect("kept").0, "other");
    }

    /// Telling of a refusal reads nothing of the hook again: the files
    /// recorded with it say whether it still stands (a script too
    /// intricate to read cost the reading's whole budget on every run
    /// nobody was asked for: red team round 64, U-02).
    #[test]
    fn a_refusal_is_told_without_reading_the_hook_again() {
        let home = tempfile::tempdir().expect("home");
        let script = home.path().join("g.sh");
        std::fs::write(&script, "sh $(printf tools/g.%s sh)\n").expect("script");
        let hook = subject(&format!("sh {}", script.display()));
        let refusals = Refusals::in_folder(home.path());
        refusals.record(&hook, std::slice::from_ref(&script), "computed");
        let before = crate::binding::readings_on_this_thread();
        assert_eq!(refusals.last(&hook).expect("kept").0, "computed");
        assert_eq!(crate::binding::readings_on_this_thread(), before);
        // Its script changed: no longer said to be refused.
        std::fs::write(&script, "true\n").expect("fixed");
        assert_eq!(refusals.last(&hook), None);
    }

    #[test]
    fn a_broken_file_reads_as_empty_and_is_replaced() {
        let home = tempfile::tempdir().expect("home");
        std::fs::write(home.path().join(REFUSALS_FILE), "{not json").expect("write");
        let refusals = Refusals::in_folder(home.path());
        assert_eq!(refusals.last(&subject("a")), None);
        refusals.record(&subject("a"), &[], "why");
        assert_eq!(refusals.last(&subject("a")).expect("kept").0, "why");
    }

    #[test]
    fn only_the_latest_entries_are_kept() {
        let home = tempfile::tempdir().expect("home");
        let refusals = Refusals::in_folder(home.path());
        for at in 0..MAX_ENTRIES + 3 {
            refusals.record(&subject(&at.to_string()), &[], "why");
        }
        assert_eq!(refusals.last(&subject("0")), None);
        assert!(
            refusals
                .last(&subject(&(MAX_ENTRIES + 2).to_string()))
                .is_some()
        );
    }
}
