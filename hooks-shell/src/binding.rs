//! What an approval is bound to: the project it was given in and the content
//! of every file the command can reach that we can name, or, where the code
//! cannot be named, the digest of the whole hook tree of its source; for an
//! http hook, the request (method, URL, header names and templates, the
//! environment variables it may read); for a hook that a settings file's
//! `env` block sets variables for, each variable's name and the hash of its
//! value (never the value: such blocks hold API keys).
//!
//! An approval is recorded in the allowlist with its binding (the `binding`
//! field, which hermes-agent ignores and keeps). It holds only while the
//! binding computed now equals the recorded one: any edit, a new file in an
//! opaque hook's tree, another project, another header, is new code and asks
//! again. A binding is computed at load and again right before every run
//! (`crate::gate`).

mod bind_error;
mod cache;
mod definitions;
mod differences;
mod discovery;
mod environment;
mod getopt;
mod git_dirs;
mod git_index;
mod globbing;
mod identify;
pub(crate) use identify::{
    FD_SAFE, MAX_STRING_DEPTH, SHELLS, base_name, shell_string_positions, with_home,
};
mod json;
mod led_to;
mod mentions;
mod named_digests;
use named_digests::path_map;
mod node_chain;
mod node_packages;
mod peek;
mod perl_inc;
mod program;
mod project_literals;
mod project_reach;
mod python_safe_path;
mod python_shadows;
mod python_sites;
mod runner_settings;
mod search_path;
mod shell;
mod shown;
mod tree;
mod wrappers;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

pub(crate) use self::{globbing::wildcard, wrappers::unwrap};
pub use bind_error::BindError;
pub use cache::{TreeCache, TreeCacheEntered, readings_on_this_thread, tree_walks_on_this_thread};
pub use definitions::{Reached, reached};
pub(crate) use environment::{environment_holding, is_environment};
pub use identify::{Code, Identified, identify};
pub(crate) use mentions::normalize;
pub use shell::python_reads_cwd;
pub(crate) use shell::{LEADING_KEYWORDS, substitution_end};
pub use tree::{MAX_TREE_BYTES, MAX_TREE_ENTRIES, TreeSum, tree_sha256, tree_sum};
pub(crate) use tree::{tree_sha256_copied, tree_sum_now};

use crate::fingerprint::content_or_metadata;

/// The allowlist field holding an approval's binding.
pub const BINDING_FIELD: &str = "binding";

/// One hook as consent sees it: the allowlist key and everything needed to
/// compute its binding.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Subject {
    /// The Hermes event (allowlist key).
    pub event: String,
    /// The command as the allowlist records it (allowlist key).
    pub command: String,
    /// The project it runs for: `Some` for hooks imported with `hooks_from:`
    /// (an approval never covers another project), `None` for the user's own
    /// config.yaml hooks.
    pub project: Option<PathBuf>,
    /// The command split into argv as it will run (`None`: it cannot be split).
    pub words: Option<Vec<String>>,
    /// Where it runs.
    pub cwd: PathBuf,
    /// The hook tree bound when the code cannot be identified: the file that
    /// configures it and the folder(s) holding its scripts.
    pub tree: Vec<PathBuf>,
    /// An http hook's request (method, url, headers, allowed_env_vars).
    pub request: Option<Value>,
    /// The file it is configured in.
    pub source: Option<PathBuf>,
    /// Variables its configuration sets for it (a Claude Code settings
    /// file's `env` block).
    pub env: Vec<(String, String)>,
    /// Bind [`Subject::tree`] even when every file of the command is named:
    /// a project's hooks, whose scripts may run, source, require or import
    /// any file of the repository's tool folder in ways no scan can follow.
    pub bind_tree: bool,
    /// The shell line as it runs, when it is not `command` (an imported
    /// hook's `$CLAUDE_PROJECT_DIR` is the shell's to expand, which the
    /// text may set: `for CLAUDE_PROJECT_DIR in …`, red team R43-9): read
    /// for names computed when it runs.
    pub line: Option<String>,
}

impl Subject {
    /// A config.yaml hook of the user's: `command` split as it runs, in the
    /// current directory; its tree is `config` and the script's folder.
    pub fn native(event: &str, command: &str, config: Option<&Path>) -> Subject {
        let words = crate::run::split_command(command).ok();
        let script = crate::script::resolved_script_path(command);
        let mut tree: Vec<PathBuf> = config.map(Path::to_path_buf).into_iter().collect();
        if script.to_string_lossy().contains('/') {
            // Never a system folder (`/`, `/proc`, ...): the path itself then.
            let system = |dir: &Path| {
                dir == Path::new("/")
                    || ["/proc", "/sys", "/dev"].iter().any(|p| dir.starts_with(p))
            };
            // Nor a folder holding its own config (`bash ~/guard.sh` with
            // `~/.hermes`): the approvals written there would change it at
            // once (issue 27 audit, U2).
            let holds_config = |dir: &Path| config.is_some_and(|config| config.starts_with(dir));
            match script
                .parent()
                .filter(|d| d.is_dir() && !system(d) && !holds_config(d))
            {
                Some(dir) => tree.push(dir.to_path_buf()),
                // No folder of its own to bind: the path itself (missing now,
                // its creation later is a change).
                None => tree.push(script.clone()),
            }
        }
        Subject {
            event: event.to_owned(),
            command: command.to_owned(),
            project: None,
            words,
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
            tree,
            request: None,
            source: config.map(Path::to_path_buf),
            env: Vec::new(),
            bind_tree: false,
            line: None,
        }
    }

    /// What the files of this hook are, as far as they can be named, with
    /// the programs it runs by name that `PATH` finds in a project folder
    /// (`program`).
    pub fn identify(&self) -> Identified {
        if self.request.is_some() {
            return Identified::default();
        }
        cache::count_reading();
        let line = self.line.as_deref().unwrap_or(&self.command);
        let read = shell::within_budget(|| {
            let mut found =
                identify::identify_line(&self.command, line, self.words.as_deref(), &self.cwd);
            self.add_project_programs(&mut found);
            found
        });
        read.unwrap_or_else(|| {
            let mut found = Identified::default();
            found.computed = Some(out_of_time());
            found
        })
    }

    /// Why its command's own text runs a name computed when it runs (read
    /// without opening a file): it cannot be approved as it is. The
    /// scripts it runs are read by [`Subject::binding`].
    pub(crate) fn computed_in_command(&self) -> Option<BindError> {
        if self.request.is_some() {
            return None;
        }
        let line = self.line.as_deref().unwrap_or(&self.command);
        identify::computed_in(line, &self.cwd).map(BindError::Computed)
    }

    /// The definitions of the folder it runs in that its command executes
    /// (`npm run`, `make`, `npx tool`...; see [`reached`]).
    pub fn reached(&self) -> Reached {
        if self.request.is_some() {
            return Reached::default();
        }
        reached(&self.command, &self.cwd, self.bind_tree)
    }

    /// The project its approval is given in: the one it was imported for,
    /// else, for the user's own hook whose command runs definitions of the
    /// folder it runs in or finds a program of on `PATH`, that folder (an
    /// approval there is not one elsewhere).
    pub fn bound_project(&self) -> Option<PathBuf> {
        self.bound_project_with(&self.reached())
    }

    /// [`Subject::bound_project`], also where only the scripts it runs
    /// reach the folder it runs in (a script's `git diff` reads that
    /// folder's git settings: R76-U1): the project its binding names.
    /// Reads those scripts when the command alone binds no folder.
    pub fn bound_project_with_scripts(&self) -> Option<PathBuf> {
        let reached = self.reached();
        if let Some(project) = self.bound_project_with(&reached) {
            return Some(project);
        }
        let reached = reached.with_scripts(&self.identify()).ok()?;
        self.bound_project_with(&reached)
    }

    fn bound_project_with(&self, reached: &Reached) -> Option<PathBuf> {
        self.project.clone().or_else(|| {
            (!reached.is_empty() || self.runs_project_program()).then(|| self.cwd.clone())
        })
    }

    /// The binding of the hook as it is now.
    pub fn binding(&self) -> Result<Binding, BindError> {
        self.binding_with(&self.identify(), None)
    }

    /// [`Subject::binding`], with the files it runs as read for it (what a
    /// refusal records, so telling of it later reads nothing again).
    pub(crate) fn binding_and_run_files(&self) -> (Result<Binding, BindError>, Vec<PathBuf>) {
        let found = self.identify();
        let files = found.files.iter().chain(&found.programs).cloned().collect();
        (self.binding_with(&found, None), files)
    }

    /// The binding from `found`, with `code`'s hash given (the bytes about
    /// to run) instead of read again.
    pub(crate) fn binding_with(
        &self,
        found: &Identified,
        code: Option<(&Path, &str)>,
    ) -> Result<Binding, BindError> {
        shell::within_budget(|| self.binding_within(found, code))
            .unwrap_or_else(|| Err(BindError::Computed(out_of_time())))
    }

    /// [`Subject::binding_with`] within the reading's budget.
    fn binding_within(
        &self,
        found: &Identified,
        code: Option<(&Path, &str)>,
    ) -> Result<Binding, BindError> {
        if let Some(why) = &found.computed {
            return Err(BindError::Computed(why.clone()));
        }
        if let Some(why) = &found.not_a_file {
            return Err(BindError::NotAFile(why.clone()));
        }
        // The user's own hook running a script of a folder a command
        // substitution names: that folder may be the project's, whose files
        // no tree of the user's binds (issue 27 audit).
        if let Some(word) = found
            .script_folder_computed
            .as_ref()
            .filter(|_| !self.bind_tree && self.project.is_some())
        {
            return Err(BindError::Computed(format!(
                "it runs a script in a folder named only when it runs (`{word}`): what it runs \
                 cannot be bound; write the folder out (`$CLAUDE_PROJECT_DIR/…`, `~/…`)"
            )));
        }
        let reached = self.reached().with_scripts(found)?;
        let mut binding = Binding {
            project: self.bound_project_with(&reached),
            source: self.project.as_ref().and(self.source.clone()),
            request: self.request.clone(),
            env: self
                .env
                .iter()
                .map(|(name, value)| {
                    (
                        name.clone(),
                        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(value.as_bytes())),
                    )
                })
                .collect(),
            ..Binding::default()
        };
        for file in found.files.iter().chain(&found.programs) {
            let hash = match code {
                Some((path, hash)) if path == file => hash.to_owned(),
                _ => run_file_digest(file),
            };
            binding.files.insert(file.clone(), hash);
        }
        for root in &reached.roots {
            binding
                .definitions
                .insert(root.clone(), tree_sha256(std::slice::from_ref(root))?);
        }
        for folder in &reached.listed {
            let (key, digest) = definitions::workspaces::listing(folder)?;
            binding.mentioned.insert(key, digest);
        }
        if let Some(project) = self.mentions_project(found, &reached) {
            self.bind_mentioned(&project, found, &reached, &mut binding)?;
        }
        let unsure = found.opaque.is_some() || reached.opaque.is_some();
        if unsure || (self.bind_tree && !self.tree.is_empty()) {
            if self.tree.is_empty() {
                return Err(BindError::Nothing);
            }
            let roots = self.tree_with_script_folders(found, unsure);
            let sum = tree_sum(&roots)?;
            binding.tree = Some(TreeDigest {
                roots,
                sha256: sum.sha256,
                by_metadata: sum.by_metadata,
            });
        }
        if binding.files.is_empty()
            && binding.tree.is_none()
            && binding.request.is_none()
            && binding.definitions.is_empty()
        {
            return Err(BindError::Nothing);
        }
        Ok(binding)
    }
}

/// What binds a file a hook runs ([`Binding::files`]): its content's hex
/// SHA-256 (an empty file's, readable or not), else its metadata.
pub(crate) fn run_file_digest(file: &Path) -> String {
    cache::cached_file(file, || {
        if std::fs::metadata(file).is_ok_and(|m| m.len() == 0) {
            tree::EMPTY_SHA256.to_owned()
        } else {
            content_or_metadata(file)
        }
    })
}

/// Why a hook whose reading ran out of time cannot be approved.
fn out_of_time() -> String {
    format!(
        "reading what it runs took longer than {} s (its scripts are too large or too intricate \
         to read), so what it runs cannot be bound",
        shell::READING_BUDGET.as_secs()
    )
}

impl Subject {
    /// The hook tree its approval binds: [`Subject::tree`], and, when its
    /// code cannot be named exactly (`unsure`), each project folder below
    /// the top holding a script it runs: the user's own hook running a
    /// project's script by a computed path (`bash "$(…)/hooks/run.sh"
    /// check.sh`) may run any file beside it (issue 27 audit).
    fn tree_with_script_folders(&self, found: &Identified, unsure: bool) -> Vec<PathBuf> {
        let mut roots = self.tree.clone();
        let Some(project) = self.project.as_ref().filter(|_| unsure && !self.bind_tree) else {
            return roots;
        };
        for file in &found.files {
            let Some(folder) = file.parent() else {
                continue;
            };
            let inside = folder.starts_with(project) && folder != project.as_path();
            if inside && folder.is_dir() && !roots.iter().any(|root| folder.starts_with(root)) {
                roots.push(folder.to_path_buf());
            }
        }
        roots
    }

    /// Binds each file of `project` that the hook's code names
    /// ([`mentions`]): a project's script may run or load any of them.
    fn bind_mentioned(
        &self,
        project: &Path,
        found: &Identified,
        reached: &Reached,
        binding: &mut Binding,
    ) -> Result<(), BindError> {
        // The user's own hook tree is the user's code; what it runs of the project is read.
        let mut seeds = if self.bind_tree {
            self.tree.clone()
        } else {
            Vec::new()
        };
        seeds.extend(found.files.iter().cloned());
        seeds.extend(reached.roots.iter().cloned());
        let mut text = self.command.clone();
        for word in self.words.iter().flatten() {
            text.push_str(&format!("\n{word}"));
        }
        for (name, value) in &self.env {
            text.push_str(&format!("\n{name}={value}"));
        }
        text.push_str(&project_reach::users_code_text(
            &found.files,
            project,
            &self.cwd,
        ));
        // Manifests the program reads, not the package folders it runs.
        seeds.retain(|seed| !reached.roots.contains(seed) || seed.is_file());
        let covered: &[PathBuf] = if self.bind_tree { &self.tree } else { &[] };
        // Also those its tree covers: the copy rule reads them (R30-5).
        let reaches = mentions::named_files(project, &self.cwd, &text, &seeds, &[])?;
        let uncovered = reaches
            .iter()
            .filter(|f| !covered.iter().any(|t| f.starts_with(t)));
        named_digests::bind_named_files(uncovered.cloned(), project, &mut binding.mentioned)?;
        let named: Vec<PathBuf> = binding.mentioned.keys().cloned().collect();
        perl_inc::bind(self, found, &named, project, &mut binding.mentioned)?;
        node_chain::bind(
            found.files.iter().chain(&named),
            project,
            &mut binding.mentioned,
        )?;
        python_shadows::bind(self, found, &reached.roots, project, &mut binding.mentioned)?;
        let files: Vec<&PathBuf> = found.files.iter().chain(&named).collect();
        let words = self.words.as_deref().unwrap_or_default().join(" ");
        let command = [self.command.clone(), words];
        let mut spoken = search_path::Spoken::new(&command, &files, &self.cwd, project);
        // A code file running `git` (`subprocess.run(["git", "status"])`)
        // or a test runner: it reads the project's settings, or lists its
        // folders, all the same (R50-8, round 51).
        for file in &files {
            let words = project_reach::code_runs(file);
            spoken
                .tokens
                .extend(words.into_iter().map(|word| (word.to_owned(), None)));
        }
        let (roots, at) = (&reached.roots, (self.cwd.as_path(), project));
        let reaches: Vec<&PathBuf> = reaches.iter().collect();
        // The repository settings code starting git made mentioned (round
        // 57; their values are read as code by `mentions::git_config`) are
        // not read for copies: with the user's code outside the project,
        // the copy rule took the whole folder (a README edit asked again).
        // The shell's own `git` keeps them read as before.
        let by_code = !mentions::runs_git(&self.command);
        let settings =
            |file: &&PathBuf| by_code && file.components().any(|c| c.as_os_str() == ".git");
        let files: Vec<&PathBuf> = files.into_iter().filter(|f| !settings(f)).collect();
        let reaches: Vec<&PathBuf> = reaches.into_iter().filter(|f| !settings(f)).collect();
        let copies = search_path::Spoken::for_copies(&command, &files, &reaches, at.0, at.1);
        copies.bind_run_copies(&self.cwd, project, &mut binding.mentioned)?;
        discovery::bind(&spoken, roots, &named, at, &mut binding.mentioned)
    }
}

/// The digest of a hook tree ([`tree_sha256`]) and its roots.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TreeDigest {
    /// The files and folders it covers.
    pub roots: Vec<PathBuf>,
    /// Their digest.
    pub sha256: String,
    /// What of them is bound by metadata, unreadable ([`TreeSum::by_metadata`]).
    pub by_metadata: Vec<PathBuf>,
}

/// What an approval holds for (see the module documentation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Binding {
    /// The project it was given in (`None`: the user's own config.yaml hook).
    pub project: Option<PathBuf>,
    /// Each identified file and the hex SHA-256 of its content.
    pub files: BTreeMap<PathBuf, String>,
    /// The hook tree, when some code cannot be identified.
    pub tree: Option<TreeDigest>,
    /// An http hook's request.
    pub request: Option<Value>,
    /// Each variable its configuration sets and the hex SHA-256 of its value.
    pub env: BTreeMap<String, String>,
    /// Each definition of the folder it runs in that its command executes
    /// (manifest, included file, node tool, package folder) and the digest
    /// of it as a tree ([`tree_sha256`]; a missing one is bound as missing).
    pub definitions: BTreeMap<PathBuf, String>,
    /// Each file of the project a project hook's code names (`mentions`:
    /// `scripts/lint.sh`, `lib/helper.py`, `check.py`) and the hex SHA-256
    /// of its content (`missing` when it is not there).
    pub mentioned: BTreeMap<PathBuf, String>,
    /// The settings file of the imported hook it approves (`None`: a
    /// config.yaml hook, or an approval recorded before sources were): two
    /// files' hooks running one command in one project are approved apart.
    pub source: Option<PathBuf>,
}

#[cfg(test)]
mod tests;
