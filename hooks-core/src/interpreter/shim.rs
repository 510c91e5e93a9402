//! Version-manager shims: which `python3` scripts may be skipped once the
//! interpreter they choose is known, and what their choice depends on.
//!
//! A pyenv or asdf `python3` is a shell script that works out which Python to
//! run (~100 ms) before it execs it, unchanged and with no options of its own.
//! Starting the program it chose directly is the same start, faster, as long
//! as nothing the shim decides by has changed. So a cache of "shim → real
//! program" is keyed by [`VersionShim::fingerprint`]: the shim's bytes, the
//! working directory, the manager's variables, every version file it reads
//! (`.python-version`, `.tool-versions` from the working directory up, the
//! global ones) and the versions installed.
//!
//! Any other `#!` script named as the interpreter is a wrapper we know
//! nothing about: it may set `PYTHONPATH`, pass options, change directory or
//! choose at run time. Skipping it would start another Python than the user
//! configured (and a guard plugin that imports from the wrapper's path would
//! no longer load), so [`VersionShim::detect`] answers `None` and it runs
//! every time.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// A shim larger than this is no version-manager shim (they are a few lines).
const MAX_SHIM_BYTES: u64 = 64 * 1024;

/// The version files a pyenv or asdf shim may read, looked up from the
/// working directory to the root.
const VERSION_FILES: [&str; 2] = [".python-version", ".tool-versions"];

/// The version manager a shim belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShimManager {
    /// pyenv (`exec ".../libexec/pyenv" exec "$program" "$@"`).
    Pyenv,
    /// asdf (`exec asdf exec "python3" "$@"`).
    Asdf,
}

/// A version manager's `python3` shim, found where an interpreter was named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionShim {
    path: PathBuf,
    manager: ShimManager,
    script: Vec<u8>,
}

impl VersionShim {
    /// The shim `program` names (looked up on `PATH` when it is a bare name),
    /// when it is a pyenv or asdf shim; `None` for a binary, a link to one,
    /// or any other script.
    pub fn detect(program: &Path) -> Option<VersionShim> {
        let path = if program.components().count() > 1 {
            program.to_owned()
        } else {
            let path = std::env::var_os("PATH")?;
            std::env::split_paths(&path)
                .filter(|dir| !dir.as_os_str().is_empty())
                .map(|dir| dir.join(program))
                .find(|candidate| candidate.is_file())?
        };
        let mut script = Vec::new();
        std::fs::File::open(&path)
            .ok()?
            .take(MAX_SHIM_BYTES + 1)
            .read_to_end(&mut script)
            .ok()?;
        if script.len() as u64 > MAX_SHIM_BYTES || !script.starts_with(b"#!") {
            return None;
        }
        let manager = manager_of(&script)?;
        Some(VersionShim {
            path,
            manager,
            script,
        })
    }

    /// The shim's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The version manager it belongs to.
    pub fn manager(&self) -> ShimManager {
        self.manager
    }

    /// A SHA-256 (hex) of everything the shim decides by, read from this
    /// process's environment and working directory: equal fingerprints mean
    /// the shim would choose the same program again.
    pub fn fingerprint(&self) -> String {
        let cwd = std::env::current_dir().unwrap_or_default();
        self.fingerprint_with(&|name| std::env::var_os(name), &cwd)
    }

    /// [`VersionShim::fingerprint`] with the variables and working directory given.
    pub fn fingerprint_with(&self, var: &dyn Fn(&str) -> Option<OsString>, cwd: &Path) -> String {
        let mut hash = Sha256::new();
        let mut field = |label: &str, bytes: &[u8]| {
            hash.update(label.as_bytes());
            hash.update((bytes.len() as u64).to_le_bytes());
            hash.update(bytes);
        };
        field("shim", &self.script);
        field("cwd", cwd.as_os_str().as_encoded_bytes());
        let home = var("HOME").map(PathBuf::from);
        let names: &[&str] = match self.manager {
            ShimManager::Pyenv => &["PYENV_VERSION", "PYENV_ROOT", "PYENV_DIR", "HOME"],
            ShimManager::Asdf => &[
                "ASDF_PYTHON_VERSION",
                "ASDF_DATA_DIR",
                "ASDF_DIR",
                "ASDF_CONFIG_FILE",
                "ASDF_DEFAULT_TOOL_VERSIONS_FILENAME",
                "HOME",
            ],
        };
        for name in names {
            field(name, var(name).unwrap_or_default().as_encoded_bytes());
        }
        // Local version files: the working directory's and every parent's,
        // and pyenv's `PYENV_DIR` (it looks there first).
        let mut starts = vec![cwd.to_owned()];
        starts.extend(var("PYENV_DIR").map(PathBuf::from));
        for start in &starts {
            for dir in start.ancestors() {
                for name in VERSION_FILES {
                    file_field(&mut field, &dir.join(name));
                }
            }
        }
        if let Some(name) = var("ASDF_DEFAULT_TOOL_VERSIONS_FILENAME") {
            for dir in cwd.ancestors() {
                file_field(&mut field, &dir.join(&name));
            }
        }
        // Global choices and what is installed (a new 3.11.x changes what
        // a `3.11` version file picks).
        let (global_files, installs): (Vec<PathBuf>, Option<PathBuf>) = match self.manager {
            ShimManager::Pyenv => {
                let root = pyenv_root(&self.script)
                    .or_else(|| var("PYENV_ROOT").map(PathBuf::from))
                    .or_else(|| home.as_ref().map(|home| home.join(".pyenv")));
                (
                    root.iter().map(|root| root.join("version")).collect(),
                    root.map(|root| root.join("versions")),
                )
            }
            ShimManager::Asdf => {
                let data = var("ASDF_DATA_DIR")
                    .map(PathBuf::from)
                    .or_else(|| home.as_ref().map(|home| home.join(".asdf")));
                let mut globals: Vec<PathBuf> = home
                    .iter()
                    .flat_map(|home| [home.join(".tool-versions"), home.join(".asdfrc")])
                    .collect();
                globals.extend(var("ASDF_CONFIG_FILE").map(PathBuf::from));
                (
                    globals,
                    data.map(|data| data.join("installs").join("python")),
                )
            }
        };
        for file in &global_files {
            file_field(&mut field, file);
        }
        if let Some(installs) = installs {
            let mut versions: Vec<OsString> = std::fs::read_dir(&installs)
                .map(|entries| entries.flatten().map(|entry| entry.file_name()).collect())
                .unwrap_or_default();
            versions.sort();
            for version in &versions {
                field("installed", version.as_encoded_bytes());
            }
        }
        hash.finalize()
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect()
    }
}

/// Adds `file`'s path and contents (or that it is missing) to the fingerprint.
fn file_field(field: &mut impl FnMut(&str, &[u8]), file: &Path) {
    let contents = std::fs::metadata(file)
        .ok()
        .filter(|meta| meta.is_file() && meta.len() <= MAX_SHIM_BYTES)
        .and_then(|_| std::fs::read(file).ok());
    if let Some(contents) = contents {
        field("file", file.as_os_str().as_encoded_bytes());
        field("contents", &contents);
    }
}

/// Which manager wrote `script`: its `exec` line hands over to `pyenv exec`
/// or `asdf exec`.
fn manager_of(script: &[u8]) -> Option<ShimManager> {
    let text = std::str::from_utf8(script).ok()?;
    text.lines()
        .map(str::trim)
        .filter(|line| line.starts_with("exec "))
        .find_map(|line| {
            let hands_to = |tool: &str| {
                line.contains(&format!("{tool}\" exec "))
                    || line.contains(&format!("{tool}' exec "))
                    || line.contains(&format!("{tool} exec "))
            };
            if hands_to("pyenv") {
                Some(ShimManager::Pyenv)
            } else if hands_to("asdf") {
                Some(ShimManager::Asdf)
            } else {
                None
            }
        })
}

/// The `PYENV_ROOT` a pyenv shim exports (`export PYENV_ROOT="/root/.pyenv"`).
fn pyenv_root(script: &[u8]) -> Option<PathBuf> {
    let text = std::str::from_utf8(script).ok()?;
    text.lines().find_map(|line| {
        let value = line.trim().strip_prefix("export PYENV_ROOT=")?;
        let value = value
            .trim()
            .trim_matches(|quote| quote == '"' || quote == '\'');
        (!value.is_empty()).then(|| PathBuf::from(value))
    })
}

#[cfg(test)]
#[path = "shim_tests.rs"]
mod tests;
