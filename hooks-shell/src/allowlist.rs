//! `$HERMES_HOME/shell-hooks-allowlist.json`: the approved `(event, command)` pairs.
//!
//! Same format as the reference, so an existing Hermes home works as is:
//! `{"approvals": [{"event", "command", "approved_at", "script_mtime_at_approval"}]}`,
//! plus `script_sha256_at_approval` (see [`crate::fingerprint`]) and
//! `binding` (see [`crate::binding`]: the project and the content the approval
//! holds for), which hermes-agent ignores and keeps. The same `(event,
//! command)` may be approved once per project.
//! Reading is tolerant (a BOM is skipped; a missing, unreadable or malformed
//! file reads as empty, with a warning naming the file). Writing is not: a
//! file that exists but cannot be read or understood is never rewritten (the
//! user may be halfway through a hand edit), and the change fails with an
//! error naming the file, line and column.
//!
//! Every change is a read-modify-write under an exclusive lock, written to a
//! unique temporary file (mode 0600) beside the real file and renamed over it,
//! so concurrent approvals from many processes are never lost and a reader
//! never sees half a file. When the allowlist is a symlink, the file it points
//! to is replaced and the link is kept; the lock is then the one of the file
//! actually written (`<target>.lock`), so homes that share one allowlist through
//! links serialise on it, and also hermes-agent's `<link>.lock` beside the link
//! (taken first), so a hermes process writing through the same link waits too.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::binding::{BINDING_FIELD, BindError, Binding, Subject};
use crate::clock::now_iso;
use crate::fingerprint::{HASH_FIELD, code_sha256};
use crate::script::script_mtime_iso;

/// The allowlist's file name inside the Hermes home.
pub const ALLOWLIST_FILE: &str = "shell-hooks-allowlist.json";

/// A change to the allowlist that could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AllowlistError {
    /// The lock file could not be opened or locked.
    #[error("cannot lock the shell hook allowlist {path}: {source}")]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file exists but cannot be read or is not an allowlist; it was left as is.
    #[error(
        "{path}: {problem}. The file was left unchanged: fix it by hand (it must be a JSON object \
         like {{\"approvals\": [...]}}) or move it away to start a new allowlist"
    )]
    Unusable {
        /// The allowlist file.
        path: PathBuf,
        /// What is wrong, with line and column when the JSON is broken.
        problem: String,
    },
    /// No binding could be computed, so nothing was recorded.
    #[error("cannot approve {command}: {source}")]
    Unbindable {
        /// The command.
        command: String,
        /// Why.
        source: BindError,
    },
    /// The new contents could not be written.
    #[error("failed to persist shell hook allowlist to {path}: {source}")]
    Persist {
        /// The allowlist file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// One approval as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Approval {
    /// The event name.
    pub event: String,
    /// The command string, exactly as configured (stripped).
    pub command: String,
    /// When it was approved (`...Z`), if recorded.
    pub approved_at: Option<String>,
    /// The script's mtime at approval, if it could be read then.
    pub script_mtime_at_approval: Option<String>,
    /// The hex SHA-256 of the code the command ran at approval, when we
    /// recorded it (hermes-agent does not).
    pub script_sha256_at_approval: Option<String>,
    /// What the approval holds for (`None`: an entry of hermes-agent or of
    /// an older `hooks`, bound to the command string only).
    pub binding: Option<Binding>,
}

impl Approval {
    fn from_value(value: &Value) -> Option<Approval> {
        let entry = value.as_object()?;
        let text = |key: &str| entry.get(key).and_then(Value::as_str).map(str::to_owned);
        Some(Approval {
            event: text("event")?,
            command: text("command")?,
            approved_at: text("approved_at"),
            script_mtime_at_approval: text("script_mtime_at_approval"),
            script_sha256_at_approval: text(HASH_FIELD),
            binding: entry.get(BINDING_FIELD).and_then(Binding::from_json),
        })
    }

    fn is(&self, event: &str, command: &str) -> bool {
        self.event == event && self.command == command
    }

    /// The project its binding names (`None`: the user's own hook, or no binding).
    pub fn project(&self) -> Option<&Path> {
        self.binding.as_ref().and_then(|b| b.project.as_deref())
    }

    /// Whether this entry is the approval slot of `subject`: same event and
    /// command, and the same project (an unbound entry has none).
    pub fn is_for(&self, subject: &Subject) -> bool {
        self.is(&subject.event, &subject.command)
            && self.is_in_project_of(subject)
            && self.is_from(subject)
    }

    /// Whether this entry names the project `subject`'s binding names. A
    /// user's hook whose command binds no folder may still be bound to the
    /// one it runs in by a script it runs (its `git diff`): those scripts
    /// are read only for an entry naming that folder (R76-U1).
    fn is_in_project_of(&self, subject: &Subject) -> bool {
        let now = subject.bound_project();
        self.project() == now.as_deref()
            || (now.is_none()
                && self.project() == Some(subject.cwd.as_path())
                && subject.bound_project_with_scripts().as_deref() == self.project())
    }

    /// Whether this entry was given to `subject`'s settings file: an
    /// imported hook's approval is its file's own (a project's copy of the
    /// user's command is another hook); one recorded without a file (a
    /// config.yaml hook's, an older `hooks`') holds for any.
    fn is_from(&self, subject: &Subject) -> bool {
        let source = self.binding.as_ref().and_then(|b| b.source.as_deref());
        match (
            source,
            subject.project.as_ref().and(subject.source.as_deref()),
        ) {
            (Some(approved), Some(now)) => approved == now,
            _ => true,
        }
    }
}

/// What a read of the allowlist found.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct AllowlistSnapshot {
    /// The well-formed approvals, in file order.
    pub approvals: Vec<Approval>,
    /// Why the file was read as empty or partly ignored, naming the file.
    pub warning: Option<String>,
}

/// The allowlist file of one Hermes home.
#[derive(Debug, Clone)]
pub struct Allowlist {
    path: PathBuf,
}

impl Allowlist {
    /// The allowlist of the Hermes home `home`.
    pub fn in_home(home: &Path) -> Self {
        Allowlist {
            path: home.join(ALLOWLIST_FILE),
        }
    }

    /// The allowlist file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// hermes-agent's lock file, beside the allowlist as named (`<file>.lock`).
    pub fn lock_path(&self) -> PathBuf {
        lock_path_of(&self.path)
    }

    /// The lock files a change takes, in order: [`Allowlist::lock_path`], then,
    /// when the allowlist is a symlink, the lock beside the file it leads to.
    /// The target's lock always comes last, so two homes linking one file can
    /// never wait for each other in a cycle.
    pub fn lock_paths(&self) -> Vec<PathBuf> {
        let mut paths = vec![self.lock_path()];
        let target = lock_path_of(&self.write_target());
        if target != paths[0] {
            paths.push(target);
        }
        paths
    }

    /// Reads the approvals, tolerating a bad file.
    pub fn read(&self) -> AllowlistSnapshot {
        let (document, warning) = match self.load() {
            Ok(document) => (document, None),
            Err(problem) => (
                json!({"approvals": []}),
                Some(format!(
                    "{}: {problem}; treating it as empty (it is not rewritten until fixed)",
                    self.path.display()
                )),
            ),
        };
        let approvals = document["approvals"]
            .as_array()
            .map(|entries| entries.iter().filter_map(Approval::from_value).collect())
            .unwrap_or_default();
        AllowlistSnapshot { approvals, warning }
    }

    /// The approvals; a bad file is logged and reads as empty.
    pub fn approvals(&self) -> Vec<Approval> {
        let snapshot = self.read();
        if let Some(warning) = &snapshot.warning {
            tracing::warn!("{warning}");
        }
        snapshot.approvals
    }

    /// The approval of `(event, command)`, if there is one.
    pub fn entry_for(&self, event: &str, command: &str) -> Option<Approval> {
        self.approvals()
            .into_iter()
            .find(|approval| approval.is(event, command))
    }

    /// Whether `(event, command)` is approved.
    pub fn is_allowed(&self, event: &str, command: &str) -> bool {
        self.entry_for(event, command).is_some()
    }

    /// Records an approval of the config.yaml hook `(event, command)` now,
    /// bound to what it runs ([`Subject::native`], without a config file).
    pub fn record(&self, event: &str, command: &str) -> Result<Approval, AllowlistError> {
        self.record_subject(&Subject::native(event, command, None))
    }

    /// Records an approval of `subject` bound to what it runs now.
    pub fn record_subject(&self, subject: &Subject) -> Result<Approval, AllowlistError> {
        let (binding, files) = subject.binding_and_run_files();
        let binding = binding.map_err(|source| {
            self.refusals().record(subject, &files, &source.to_string());
            AllowlistError::Unbindable {
                command: subject.command.clone(),
                source,
            }
        })?;
        self.record_bound(subject, binding)
    }

    /// Records an approval of `subject` bound to `binding` (computed by the
    /// caller, e.g. from the bytes about to run), with the script's mtime and
    /// hash as hermes-agent's fields, replacing the earlier approval of the
    /// same event, command and project.
    pub fn record_bound(
        &self,
        subject: &Subject,
        binding: Binding,
    ) -> Result<Approval, AllowlistError> {
        let (event, command) = (subject.event.as_str(), subject.command.as_str());
        let approval = Approval {
            event: event.to_owned(),
            command: command.to_owned(),
            approved_at: Some(now_iso()),
            script_mtime_at_approval: script_mtime_iso(command),
            script_sha256_at_approval: code_sha256(command),
            binding: Some(binding),
        };
        self.update(|approvals| {
            approvals.retain(|entry| {
                !Approval::from_value(entry).is_some_and(|other| {
                    other.is(event, command) && (other.binding.is_none() || other.is_for(subject))
                })
            });
            let mut entry = json!({
                "approved_at": approval.approved_at,
                "command": approval.command,
                "event": approval.event,
                "script_mtime_at_approval": approval.script_mtime_at_approval,
            });
            if let Some(hash) = &approval.script_sha256_at_approval {
                entry[HASH_FIELD] = Value::from(hash.as_str());
            }
            if let Some(binding) = &approval.binding {
                entry[BINDING_FIELD] = binding.to_json();
            }
            approvals.push(entry);
            true
        })?;
        self.refusals().forget(subject);
        if let Some(project) = &subject.project {
            // What its project's own hooks compiled before this approval may
            // be what one of them planted (an unchecked-hash `.pyc` for a
            // module the project has since edited: round 75, R75-5).
            let home = self.path.parent().unwrap_or(Path::new("."));
            crate::bytecode::forget_project_folder(home, project);
        }
        Ok(approval)
    }

    /// Why hooks could not be approved when last tried, kept beside it.
    pub(crate) fn refusals(&self) -> crate::refusals::Refusals {
        crate::refusals::Refusals::in_folder(self.path.parent().unwrap_or(Path::new(".")))
    }

    /// Removes every approval of `command`, under all events; returns how many.
    ///
    /// Hooks already registered in running processes stay until they restart.
    pub fn revoke(&self, command: &str) -> Result<usize, AllowlistError> {
        let mut removed = 0;
        self.update(|approvals| {
            let before = approvals.len();
            approvals.retain(|entry| {
                entry.get("command").and_then(Value::as_str) != Some(command) || !entry.is_object()
            });
            removed = before - approvals.len();
            removed > 0
        })?;
        Ok(removed)
    }

    /// Read-modify-write of the approvals list under the exclusive file lock.
    /// `change` says whether it changed anything; nothing changed, nothing is
    /// written. A file that cannot be used is left exactly as it is.
    fn update(&self, change: impl FnOnce(&mut Vec<Value>) -> bool) -> Result<(), AllowlistError> {
        let directory = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(directory).map_err(|source| self.persist_error(source))?;
        let mut locks = Vec::new();
        for lock_path in self.lock_paths() {
            let lock = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&lock_path)
                .and_then(|file| file.lock().map(|()| file))
                .map_err(|source| AllowlistError::Lock {
                    path: lock_path.clone(),
                    source,
                })?;
            locks.push(lock);
        }
        let written = match self.load() {
            Err(problem) => Err(AllowlistError::Unusable {
                path: self.path.clone(),
                problem,
            }),
            Ok(mut document) => {
                let mut approvals = match document.get_mut("approvals").map(Value::take) {
                    Some(Value::Array(approvals)) => approvals,
                    _ => Vec::new(),
                };
                let changed = change(&mut approvals);
                document["approvals"] = Value::Array(approvals);
                if changed {
                    self.write_atomically(&sorted_keys(document))
                } else {
                    Ok(())
                }
            }
        };
        // Dropping the handles releases the locks; unlock explicitly (the
        // target's first) to say so.
        for lock in locks.iter().rev() {
            let _ = lock.unlock();
        }
        written
    }

    fn write_atomically(&self, document: &Value) -> Result<(), AllowlistError> {
        let target = self.write_target();
        let directory = target.parent().unwrap_or(Path::new("."));
        let mut temporary = tempfile::Builder::new()
            .prefix(&format!(".{ALLOWLIST_FILE}."))
            .suffix(".tmp")
            .tempfile_in(directory)
            .map_err(|source| self.persist_error(source))?;
        let text = serde_json::to_string_pretty(document).unwrap_or_default();
        temporary
            .write_all(text.as_bytes())
            .and_then(|()| temporary.as_file().sync_all())
            .map_err(|source| self.persist_error(source))?;
        temporary
            .persist(&target)
            .map_err(|error| self.persist_error(error.error))?;
        Ok(())
    }

    fn persist_error(&self, source: std::io::Error) -> AllowlistError {
        AllowlistError::Persist {
            path: self.path.clone(),
            source,
        }
    }

    /// The whole document (an object with an `approvals` list; a missing
    /// file is an empty one), or what makes the file unusable.
    fn load(&self) -> Result<Value, String> {
        // Never a read that blocks or does not end (a FIFO, `/dev/zero`:
        // red team R35-1).
        let bytes =
            match hermes_hooks_core::regular_file::read_capped(&self.path, MAX_ALLOWLIST_BYTES) {
                Ok(bytes) => bytes,
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                    return Ok(json!({"approvals": []}));
                }
                Err(error) => {
                    return Err(format!("cannot read the shell hook allowlist ({error})"));
                }
            };
        let text = String::from_utf8_lossy(&bytes);
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        match serde_json::from_str::<Value>(text) {
            Ok(document) if document.get("approvals").is_some_and(Value::is_array) => Ok(document),
            Ok(Value::Object(_)) => Err("'approvals' is not a list".to_owned()),
            Ok(_) => Err("the shell hook allowlist is not a JSON object".to_owned()),
            Err(error) => Err(format!(
                "the shell hook allowlist is not valid JSON at line {} column {} ({})",
                error.line(),
                error.column(),
                strip_position(&error.to_string())
            )),
        }
    }

    /// The file writes go to: the allowlist, or what its symlinks lead to.
    fn write_target(&self) -> PathBuf {
        let mut target = self.path.clone();
        // A bound, as the kernel has, so a link loop cannot spin forever.
        for _ in 0..40 {
            match std::fs::read_link(&target) {
                Ok(next) => {
                    let base = target.parent().unwrap_or(Path::new("."));
                    target = base.join(next);
                }
                Err(_) => break,
            }
        }
        target
    }
}

/// The largest allowlist read (a bigger one is unusable, as a broken one is).
const MAX_ALLOWLIST_BYTES: u64 = 64 * 1024 * 1024;

/// `<path>.lock`, hermes-agent's lock file name for the allowlist at `path`.
fn lock_path_of(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// serde_json's message without its own " at line L column C" suffix.
fn strip_position(message: &str) -> &str {
    message
        .rsplit_once(" at line ")
        .map_or(message, |(head, _)| head)
}

/// The document with every object's keys sorted, as the reference writes it.
fn sorted_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(key, value)| (key, sorted_keys(value)))
                    .collect::<Map<String, Value>>(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted_keys).collect()),
        other => other,
    }
}
