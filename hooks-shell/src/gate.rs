//! The check right before every run of an approved hook: what it runs now
//! must be what was approved. The script's bytes are read once, hashed, and
//! (when they match) sealed and run ([`crate::launch`]); the other bound
//! files and the hook tree are hashed again at the same moment.
//!
//! When they do not match, the allowlist is read again (an approval made
//! meanwhile, by `hooks approve` or another process, counts), then the
//! registration's consent is asked once about the new binding (a host's
//! `ConsentPolicy`; the CLI's terminal): approved, it is recorded and the
//! checked bytes run; denied, the hook is refused — skipped when it fails
//! open, a block when it fails closed — and not asked about the same code
//! again.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::allowlist::Allowlist;
use crate::binding::{BindError, Binding, Subject, TreeCache, TreeDigest};
use crate::consent::Consent;
use crate::fingerprint::code_sha256;
use crate::launch::{Launch, read_code};
use crate::snapshot::Snapshot;
use crate::standing::{Approved, Standing, standing_with};
use crate::watched::Watched;

/// Who is asked when an approved hook changed: the registration's consent.
pub(crate) struct Asker {
    consent: Consent,
    accept: bool,
    allowlist: Allowlist,
}

impl std::fmt::Debug for Asker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Asker")
            .field("accept", &self.accept)
            .field("allowlist", &self.allowlist.path())
            .finish()
    }
}

/// An [`Asker`] shared by every hook of a registration.
pub(crate) type SharedAsker = Arc<Mutex<Asker>>;

impl Asker {
    /// The asker of a registration.
    pub(crate) fn shared(consent: Consent, accept: bool, allowlist: Allowlist) -> SharedAsker {
        Arc::new(Mutex::new(Asker {
            consent,
            accept,
            allowlist,
        }))
    }
}

/// What [`RunGate::check`] decided.
#[derive(Debug)]
pub(crate) enum Pass {
    /// Run it; from the sealed copy and the tree's checked copy when there are.
    Run(Option<Launch>),
    /// Do not run it, and why.
    Refuse(String),
}

/// The files of `binding` a process could swap while the hook runs and
/// nothing else protects: its files and the project files its code names,
/// and its definitions that are files. Not the script run from its sealed
/// copy (`sealed`), nor a file of a tree run from its checked copy (a
/// project hook's: `crate::snapshot`), nor a system program owned by root
/// under `/usr`; a file bound as missing only in the project (one the hook
/// makes elsewhere, a copy it runs, is its own doing).
fn watched_files(binding: &Binding, sealed: Option<&Path>) -> Vec<PathBuf> {
    const SYSTEM: [&str; 6] = ["/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/etc/"];
    let system = |file: &Path| {
        let text = file.to_string_lossy();
        SYSTEM.iter().any(|prefix| text.starts_with(prefix))
            && std::fs::metadata(file).is_ok_and(|m| {
                use std::os::unix::fs::MetadataExt;
                m.uid() == 0 && m.mode() & 0o022 == 0
            })
    };
    let in_tree = |file: &Path| {
        binding
            .tree
            .as_ref()
            .is_some_and(|tree| tree.roots.iter().any(|root| file.starts_with(root)))
    };
    let made_elsewhere = |file: &Path| {
        std::fs::symlink_metadata(file).is_err()
            && binding
                .project
                .as_ref()
                .is_none_or(|project| !file.starts_with(project))
    };
    let definitions = binding.definitions.keys().filter(|root| !root.is_dir());
    binding
        .files
        .keys()
        .chain(binding.mentioned.keys())
        .chain(definitions)
        .filter(|file| file.is_absolute() && !file.to_string_lossy().contains('<'))
        .filter(|file| Some(file.as_path()) != sealed && !in_tree(file))
        .filter(|file| !system(file) && !made_elsewhere(file))
        .cloned()
        .collect()
}

/// The hashes `binding` holds each file it binds by content with.
fn bound_hashes(binding: &Binding) -> std::collections::BTreeMap<PathBuf, String> {
    binding
        .files
        .iter()
        .chain(&binding.mentioned)
        .map(|(file, hash)| (file.clone(), hash.clone()))
        .collect()
}

/// One approved hook's check before each run.
#[derive(Debug)]
pub(crate) struct RunGate {
    subject: Subject,
    approved: Mutex<Approved>,
    /// A changed binding consent was refused for: not asked about again.
    refused: Mutex<Option<Result<Binding, BindError>>>,
}

impl RunGate {
    /// The gate of `subject`, approved as `approved`.
    pub(crate) fn new(subject: Subject, approved: Approved) -> RunGate {
        RunGate {
            subject,
            approved: Mutex::new(approved),
            refused: Mutex::new(None),
        }
    }

    /// Checks the hook as it is now; see the module documentation. `trees`:
    /// the tree digests of this run of the event, shared by its hooks (a
    /// tree several of them bind is hashed once per run, not once per hook).
    pub(crate) fn check(&self, asker: &SharedAsker, trees: &TreeCache) -> Pass {
        let _trees = trees.enter();
        let found = self.subject.identify();
        let mut sealed = None;
        if let Some(code) = &found.code {
            // Run as a program, it runs only if it may be executed, as the
            // kernel would judge it: the sealed copy is not run in its
            // place (red team R33b-7: `doctor` said it could not run,
            // `emit` ran it).
            let executable = nix::unistd::access(&code.path, nix::unistd::AccessFlags::X_OK);
            if code.is_program && executable.is_err() {
                return Pass::Refuse(format!("{} is not executable", code.path.display()));
            }
            match read_code(&code.path) {
                Ok((bytes, hash)) => sealed = Some((code.clone(), bytes, hash)),
                Err(error) => {
                    return Pass::Refuse(format!("cannot read {}: {error}", code.path.display()));
                }
            }
        }
        // The files it reads by path, watched before they are hashed for
        // the binding (sweep 58, S58-2; `crate::watched`); not the script
        // run from its sealed copy.
        let sealed_path = sealed
            .as_ref()
            .filter(|(code, _, _)| code.fd_safe)
            .map(|(code, _, _)| code.path.clone());
        let watched = match &*self.approved.lock().unwrap_or_else(PoisonError::into_inner) {
            Approved::Bound(binding) => {
                Watched::start(&watched_files(binding, sealed_path.as_deref()))
            }
            Approved::Legacy(_) => Watched::start(&[]),
        };
        let code = sealed
            .as_ref()
            .map(|(c, _, h)| (c.path.as_path(), h.as_str()));
        let now = self.subject.binding_with(&found, code);
        // A project hook's tree, as checked now: what runs is a copy of it.
        let tree = now
            .as_ref()
            .ok()
            .and_then(|binding| binding.tree.clone())
            .filter(|_| self.subject.bind_tree);
        let approved = self
            .approved
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let holds = match &approved {
            Approved::Bound(binding) => now.as_ref().is_ok_and(|now| now == binding),
            // Hermes' own entry holds only while the hook runs nothing of
            // the folder it runs in (a `node_modules/.bin` tool appeared).
            Approved::Legacy(_) if self.subject.bound_project().is_some() => false,
            Approved::Legacy(approval) => match &approval.script_sha256_at_approval {
                // Hermes' own entry (mtime only): it runs as Hermes runs it.
                None => return Pass::Run(None),
                Some(hash) => {
                    let current = match &sealed {
                        Some((c, _, h))
                            if Some(c.path.clone())
                                == crate::fingerprint::code_file(&self.subject.command) =>
                        {
                            Some(h.clone())
                        }
                        _ => code_sha256(&self.subject.command),
                    };
                    current.is_some_and(|c| c.eq_ignore_ascii_case(hash))
                }
            },
        };
        let now_hashes = now.as_ref().ok().map(bound_hashes);
        if !holds && let Err(reason) = self.reconsider(asker, now) {
            let hint = crate::consent::approve_hint(&self.subject);
            let reason = hermes_hooks_core::display::escape(&reason);
            return Pass::Refuse(format!("{reason}; review it, then run {hint}"));
        }
        let script = match sealed {
            Some((code, bytes, _)) if code.fd_safe => match Launch::seal(&code, &bytes) {
                Ok(launch) => Some(launch),
                Err(error) => {
                    return Pass::Refuse(format!("cannot seal the checked script: {error}"));
                }
            },
            _ => None,
        };
        let taken = |tree: TreeDigest| {
            let roots = tree.roots.clone();
            (trees.snapshot(&roots, || Snapshot::take(&roots)), tree)
        };
        let snapshot = match tree.map(taken) {
            None => None,
            Some((Ok(snapshot), tree)) if snapshot.sha256() == tree.sha256 => Some(snapshot),
            Some((Ok(_), _)) => {
                return Pass::Refuse("the hook tree changed while it was being checked".to_owned());
            }
            Some((Err(error), _)) => return Pass::Refuse(error.to_string()),
        };
        if let Some(file) = now_hashes.and_then(|hashes| watched.differs_from(&hashes)) {
            return Pass::Refuse(format!(
                "{} changed while it was being checked",
                file.display()
            ));
        }
        let watched = (!watched.is_empty()).then(|| Arc::new(watched));
        Pass::Run(Launch::checked(script, snapshot, watched))
    }

    /// The hook changed: an approval recorded meanwhile, else consent asked once.
    fn reconsider(
        &self,
        asker: &SharedAsker,
        now: Result<Binding, BindError>,
    ) -> Result<(), String> {
        let mut asker = asker.lock().unwrap_or_else(PoisonError::into_inner);
        let approvals = asker.allowlist.approvals();
        let standing = standing_with(&approvals, &self.subject, now.clone());
        if let Standing::Approved(approved) = standing {
            *self.approved.lock().unwrap_or_else(PoisonError::into_inner) = approved;
            return Ok(());
        }
        let why = standing
            .why_not()
            .unwrap_or_else(|| "changed since it was approved".to_owned());
        let mut refused = self.refused.lock().unwrap_or_else(PoisonError::into_inner);
        if refused.as_ref() == Some(&now) {
            return Err(why);
        }
        let binding = match &now {
            Ok(binding) => binding.clone(),
            Err(error) => {
                *refused = Some(now.clone());
                return Err(error.to_string());
            }
        };
        let Asker {
            consent,
            accept,
            allowlist,
        } = &mut *asker;
        if consent.approve(*accept, allowlist, &self.subject, &binding, true) {
            *self.approved.lock().unwrap_or_else(PoisonError::into_inner) =
                Approved::Bound(binding);
            *refused = None;
            return Ok(());
        }
        tracing::warn!(
            "hook for {} ({}) {why}; not run",
            hermes_hooks_core::display::escape(&self.subject.event),
            crate::shown_hook_command(&self.subject.command)
        );
        *refused = Some(now);
        Err(why)
    }
}
