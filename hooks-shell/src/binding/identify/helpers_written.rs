//! What the scripts a hook runs write, and what they run of what is
//! written: a bound helper copying what a computed name names to
//! `/tmp/y.sh`, then the hook's text running it (round 49, H4), or the
//! hook's text writing it and a helper running it (round 50, xf2, y50), or
//! one helper writing it and another running it (xf3). Such code exists
//! only when the hook runs: no approval can bind it.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use super::{Identified, computed, follow, language};

/// The language of a script of another program than a shell or an
/// interpreter the reading knows.
const OTHER: &str = "other";

/// The text of each script a hook runs that is read for what it writes,
/// and its language (`None`: shell text).
pub(super) struct Helpers {
    scripts: Vec<(PathBuf, String, Option<&'static str>)>,
    /// What each script writes, read once (each script's reading is
    /// seeded with every other's).
    writes: Vec<computed::Written>,
}

impl Helpers {
    /// The scripts `found` runs, its programs' own bytes and the system's
    /// folders aside (`/usr/bin/make` read as shell text took minutes).
    pub(super) fn of(found: &Identified) -> Self {
        let system = |file: &&PathBuf| {
            [
                "/usr", "/bin", "/sbin", "/lib", "/etc", "/proc", "/sys", "/dev",
            ]
            .iter()
            .any(|folder| file.starts_with(folder))
        };
        let mut scripts = Vec::new();
        for file in found.files.iter().filter(|file| !system(file)) {
            let Some(text) = super::super::peek::small_text(file) else {
                continue;
            };
            if follow::is_binary(text.as_bytes()) {
                continue;
            }
            let name = file.to_string_lossy().to_ascii_lowercase();
            let executable =
                std::fs::metadata(file).is_ok_and(|meta| meta.permissions().mode() & 0o111 != 0);
            // Another program's script (a makefile, `awk -f`, `sed -f`,
            // gdb's, vim's, sqlite3's): read for the names it holds.
            let language = match follow::is_shell_text(&name, &text, executable) {
                true => None,
                false => Some(
                    language::language_of(file, &text, found.interpreter_of(file)).unwrap_or(OTHER),
                ),
            };
            scripts.push((file.clone(), text, language));
        }
        let writes = scripts
            .iter()
            .map(|(_, text, language)| match language {
                Some(OTHER | "awk") => computed::script_writes(text),
                _ => computed::files_written(text, *language),
            })
            .collect();
        Self { scripts, writes }
    }

    /// What the scripts write when they run that may hold code no reading
    /// binds.
    pub(super) fn written(&self) -> computed::Written {
        self.written_apart(None)
    }

    /// [`Helpers::written`], the script at `apart` aside (its own writes
    /// are its own reading's: a text seeded with them would take its own
    /// names for another's).
    fn written_apart(&self, apart: Option<usize>) -> computed::Written {
        let mut written = computed::Written::default();
        for (at, more) in self.writes.iter().enumerate() {
            if Some(at) == apart {
                continue;
            }
            written.paths.extend(more.paths.iter().cloned());
            written.ends.extend(more.ends.iter().cloned());
        }
        written
    }

    /// Why a script runs a file the hook's text (`line`) or another
    /// script writes when it runs.
    pub(super) fn run_written(&self, line: &str) -> Option<String> {
        let by_line = computed::files_written(line, None);
        self.scripts
            .iter()
            .enumerate()
            .find_map(|(at, (file, text, language))| {
                let mut before = self.written_apart(Some(at));
                before.paths.extend(by_line.paths.iter().cloned());
                before.ends.extend(by_line.ends.iter().cloned());
                if before.is_empty() {
                    return None;
                }
                // A written file another program's script names may be
                // what it runs (`sh /tmp/y.sh` in a recipe, awk's `system`:
                // red team round 51, x55–x61).
                let names = || {
                    (before.paths.iter())
                        .filter(|path| path.len() > 2 && path.contains('/'))
                        .find(|path| text.contains(path.as_str()))
                        .map(|path| format!("names a file the hook writes when it runs (`{path}`)"))
                };
                let why = match language {
                    None => computed::computed_name_after(text, &before),
                    Some(OTHER) => names(),
                    Some(language) => computed::spawns_computed_after(language, text, &before)
                        .or_else(|| (*language == "awk").then(names).flatten()),
                }?;
                Some(format!("{}: {why}", file.display()))
            })
    }
}
