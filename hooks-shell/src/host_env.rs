//! Variables of the host's environment that would load a project's code
//! into a hook (red team round 11, R11-6). direnv, Yarn PnP, local::lib or
//! a per-project pip setup put `BASH_ENV`, `NODE_OPTIONS=--require
//! ./.pnp.cjs`, `PERL5LIB=<project>/local/lib/perl5`, `PYTHONUSERBASE`,
//! `LD_PRELOAD` … into the agent's environment; inherited by the user's
//! approved guard, each runs a repository file that no approval binds, and
//! that the repository can change at will. So a variable that steers code
//! loading (`dialect::code_env`) and names a path in the project is not
//! passed to a hook.
//!
//! `PATH` and `PYTHONPATH` are passed to a project's own hooks, whose
//! approval binds what they reach there (`binding::program`). A user's hook
//! (its `config.yaml`, its `~/.claude`) gets them without their entries in
//! the project: the user's guard runs the user's `python3` and `jq`, never a
//! repository's `.venv/bin/python3`, `bin/jq` or `src/json.py` that direnv
//! or an activated venv put first; the binding reads the same values
//! (`user_search_path`).
//!
//! A project folder that holds the user's home (the agent started in `~`)
//! keeps the home the user's: paths in the home are never the project's.

mod code_words;
mod spelling;
mod words;

use spelling::{expand_parameters, physical, with_home};
use words::{function_body_word, loaded_word, named_word, names_files, settings_file_word};

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use tokio::process::Command;

use crate::binding::normalize;
use crate::dialect::code_env::steers_code;

/// Names never withheld as loaders: search paths (bound, or cut for a
/// user's hook), and what is set for the hook.
const PASSED: &[&str] = &[
    "PATH",
    "PYTHONPATH",
    "HOME",
    "TMPDIR",
    "HERMES_HOME",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_PLUGIN_ROOT",
];

/// Search paths a user's hook gets without their project entries.
const SEARCH_PATHS: [&str; 2] = ["PATH", "PYTHONPATH"];

/// What is the project's: paths in `project` (lexically or where links
/// lead), but not in the user's home or a system folder when the project
/// holds it (an agent started in `~` or in `/`: red team round 14, R14-2).
struct Project {
    folder: PathBuf,
    real: Option<PathBuf>,
    /// The user's home, by name and where it leads, and the system folders,
    /// that the project holds.
    home: Vec<PathBuf>,
}

/// Whether `path` goes through a process's own folders (`/proc/self/cwd`,
/// `/proc/<pid>/root`, `/proc/thread-self/fd/3`): where it leads depends on
/// the process that opens it.
fn through_a_process(path: &Path) -> bool {
    let mut parts = path.components().skip(1).map(|part| part.as_os_str());
    let first = parts.next();
    if first == Some(OsStr::new("dev")) {
        // `/dev/fd`, `/dev/stdin`…: links into `/proc/self`.
        return parts
            .next()
            .is_some_and(|own| own == "fd" || own.to_string_lossy().starts_with("std"));
    }
    first == Some(OsStr::new("proc"))
        && parts.any(|own| {
            ["cwd", "root", "fd", "map_files", ".."]
                .iter()
                .any(|name| own == *name)
        })
}

/// Folders of the system's own programs, libraries and settings: never a
/// project's, even when the project folder holds them (`/`).
const SYSTEM_FOLDERS: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix",
    "/snap", "/var", "/gnu", "/proc", "/sys", "/dev", "/run", "/boot",
];

impl Project {
    fn new(folder: &Path) -> Project {
        let real = std::fs::canonicalize(folder).ok();
        let folder = normalize(folder);
        let home = hermes_hooks_core::home::user_home()
            .map(|home| {
                let named = normalize(&home);
                let led = std::fs::canonicalize(&home).ok();
                std::iter::once(named).chain(led).collect::<Vec<_>>()
            })
            .unwrap_or_default();
        let holds = |inner: &PathBuf| {
            inner.starts_with(&folder) || real.as_ref().is_some_and(|real| inner.starts_with(real))
        };
        let mut kept_out = if home.iter().any(holds) {
            home
        } else {
            Vec::new()
        };
        // Only a folder above them (`/`): a project that is `/opt/app` or `/opt` owns it (R15-6).
        let above =
            |system: &PathBuf| holds(system) && *system != folder && real.as_ref() != Some(system);
        kept_out.extend(SYSTEM_FOLDERS.iter().map(PathBuf::from).filter(above));
        Project {
            folder,
            real,
            home: kept_out,
        }
    }

    /// Whether relative `word`'s first part is in the project folder now: a
    /// word naming nothing there loads nothing (`LESSOPEN="| lesspipe %s"`,
    /// `GIT_AUTHOR_NAME=jane.doe`, `npm/10.2.4`, `NIX_PATH=nixpkgs=…`: red
    /// team round 16, R16-8).
    ///
    /// A word a shell may expand or unquote (`$PWD/x`, `` `pwd`/x ``, `~+/x`,
    /// `t""ools`, `tool\s`) is taken as there, and a word is looked up in
    /// the folder the hook runs in too (a native hook started in `P/sub`):
    /// red team round 17, R17-1, R17-2.
    fn has(&self, word: &str) -> bool {
        // Globs and braces too: `sh -c` expands `t*ols/x.sh` (R18-3).
        if word.contains(['$', '`', '\\', '"', '\'', '*', '?', '[', '{', '}'])
            || word.starts_with("~+")
            || word.starts_with("~-")
        {
            return true;
        }
        self.holds(word)
    }

    /// Whether relative `word`, read literally (no shell expands it), names
    /// something in the project folder now, or in the folder the hook runs in.
    fn holds(&self, word: &str) -> bool {
        let mut rest = word.trim_start_matches("./");
        while let Some(more) = rest.strip_prefix("./") {
            rest = more;
        }
        if rest.is_empty() || rest == "." {
            return true;
        }
        // `../x` is where the kernel takes it from the project folder (R21a-6).
        if rest == ".." || rest.starts_with("../") {
            return self.owns(Path::new(rest));
        }
        let first = rest.split('/').next().unwrap_or(rest);
        // A dotted module (`tools.mod.W`) is found from its package's folder.
        let package = first.split('.').next().unwrap_or(first);
        let here = std::env::current_dir().ok();
        let folders = std::iter::once(&self.folder).chain(here.as_ref());
        folders.into_iter().any(|folder| {
            [first, package].iter().any(|entry| {
                !entry.is_empty() && std::fs::symlink_metadata(folder.join(entry)).is_ok()
            })
        })
    }

    /// Whether `word`, `../` parts and then a path, goes on with a part
    /// named as one of the folders of the project's own path.
    fn spelled_from_above(&self, word: &Path) -> bool {
        let parent = std::path::Component::ParentDir;
        let Some(next) = word.components().find(|part| *part != parent) else {
            return false;
        };
        let named = |folder: &PathBuf| folder.components().any(|part| part == next);
        named(&self.folder) || self.real.as_ref().is_some_and(named)
    }

    /// Whether `word` (relative: from the project folder) names a path of the project.
    /// A path through a process's own folders (`/proc/self/cwd/x`) is read
    /// where the hook runs, the project, not where `hooks` does (red team
    /// round 15, R15-1).
    fn owns(&self, word: &Path) -> bool {
        let joined = self.folder.join(word);
        let path = normalize(&joined);
        // As written too: `/dev/fd/../cwd` is `/proc/self/cwd` to the kernel (R17-3).
        if through_a_process(&path) || through_a_process(word) {
            return true;
        }
        // A `..` in a path that starts in the project may follow a link of
        // it anywhere, back into it included (`<p>/l/../../tools`: R18-1).
        let starts_here = joined.starts_with(&self.folder)
            || self
                .real
                .as_ref()
                .is_some_and(|real| joined.starts_with(real));
        let parent = |part: &std::path::Component<'_>| *part == std::path::Component::ParentDir;
        let climbs = joined.components().any(|part| parent(&part));
        // `../install` climbs out of the project folder itself, through no
        // link of it: read where the kernel reads it (R21a-6).
        let out_of_it = word.is_relative()
            && word.components().next().is_some_and(|part| parent(&part))
            && !word
                .components()
                .skip_while(parent)
                .any(|part| parent(&part));
        if starts_here && climbs && !out_of_it {
            return true;
        }
        // A program may take `../x` from a folder of its own
        // (`PYENV_VERSION=../../<p>` from pyenv's versions: R22a regression
        // of R21a-6): one whose next part is named as a folder of the
        // project's path may lead into it.
        if out_of_it && self.spelled_from_above(word) {
            return true;
        }
        let real = std::fs::canonicalize(&path).ok();
        let climbed = climbs.then(|| physical(&joined)).flatten();
        let here = out_of_it
            .then(|| physical(&std::env::current_dir().ok()?.join(word)))
            .flatten();
        let candidates: Vec<&PathBuf> = std::iter::once(&path)
            .chain(real.as_ref())
            .chain(climbed.as_ref())
            .chain(here.as_ref())
            .collect();
        let in_home = candidates
            .iter()
            .any(|p| self.home.iter().any(|home| p.starts_with(home)));
        !in_home
            && candidates.iter().any(|p| {
                p.starts_with(&self.folder) || self.real.as_ref().is_some_and(|r| p.starts_with(r))
            })
    }
}

/// The inherited variables of this process that would load code from
/// `project`, with the path each names.
/// `users`: for a user's hook, which also loses every other variable that
/// names a path in the project (`PWD` and `OLDPWD` aside).
pub fn project_loaders(project: &Path, users: bool) -> Vec<(String, String)> {
    loaders_in(std::env::vars_os(), &Project::new(project), users)
}

/// [`project_loaders`] of the variables `vars`; `users`: for a user's
/// hook, where any variable naming a project path is left out.
fn loaders_in(
    vars: impl Iterator<Item = (OsString, OsString)>,
    project: &Project,
    users: bool,
) -> Vec<(String, String)> {
    let vars: Vec<(String, String)> = vars
        .filter_map(|(name, value)| {
            let name = name.into_string().ok()?;
            // A code-loading value that is not text cannot be read: withheld (R13-3).
            let value = value
                .into_string()
                .unwrap_or_else(|raw| raw.to_string_lossy().replace('\u{fffd}', "./"));
            Some((name, value))
        })
        .collect();
    let key_of = |key: &str| {
        vars.iter()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value.clone())
    };
    // A variable withheld is unset where the hook's shell expands `${X}`:
    // read again without those until nothing more is withheld (R22a).
    let mut found: Vec<(String, String)> = Vec::new();
    loop {
        let withheld = |key: &str| found.iter().any(|(name, _)| name == key);
        let lookup = |key: &str| key_of(key).filter(|_| !withheld(key));
        let more: Vec<(String, String)> = vars
            .iter()
            .filter(|(name, _)| !PASSED.contains(&name.to_ascii_uppercase().as_str()))
            .filter(|(name, _)| !withheld(name))
            .filter_map(|(name, value)| {
                let path = loader_word(name, value, project, users, &lookup)?;
                Some((name.clone(), path))
            })
            .collect();
        if more.is_empty() {
            break;
        }
        found.extend(more);
    }
    let git_value = found
        .iter()
        .any(|(name, _)| name.starts_with("GIT_CONFIG_VALUE_"));
    if git_value && key_of(code_words::GIT_CONFIG_COUNT).is_some() {
        let why = "(one of the git settings it counts is withheld)".to_owned();
        found.push((code_words::GIT_CONFIG_COUNT.to_owned(), why));
    }
    found
}

/// The word of host variable `name`'s `value` that loads from `project`
/// (or, for a user's hook, names it), read as a shell reads it; `lookup`
/// gives the other variables the hook's shell expands.
fn loader_word(
    name: &str,
    value: &str,
    project: &Project,
    users: bool,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    let written = value;
    // A shell reads `~/x` as the home's (R18-2): read it so too.
    let home = hermes_hooks_core::home::user_home();
    let expanded = home.as_ref().map(|home| with_home(value, home));
    let value = expanded.as_deref().unwrap_or(value);
    // And `$HOME/x` as the value of `HOME` (R21a-5); a function's body
    // expands when it is called, as its own work.
    let function = code_words::exported_function(name);
    let expanded = (!function).then(|| expand_parameters(value, lookup, &project.folder));
    let value = expanded.as_deref().unwrap_or(value);
    let present = |word: &str| project.has(word);
    let read = |value: &str| {
        if function {
            function_body_word(value, project)
                .or_else(|| code_words::code_word(name, value, lookup, &present))
        } else if steers_code(name) {
            loaded_word(name, value, project)
                .or_else(|| code_words::code_word(name, value, lookup, &present))
        } else if users && !USERS_KEEP.contains(&name) {
            // A command line a program runs (`FZF_DEFAULT_COMMAND`: R22a-7);
            // a file a tool reads from the folder it runs in, as written too
            // (`KUBECONFIG='$x'`: R21a-3, R22a-4).
            let command = code_words::runs_as_command(name);
            let settings = |value| names_files(name).then(|| settings_file_word(value, project));
            named_word(value, project)
                .or_else(|| {
                    command.then(|| code_words::code_word(name, value, lookup, &present))?
                })
                .or_else(|| settings(value)?)
                .or_else(|| settings(written)?)
        } else {
            None
        }
    };
    // Also with a shell's operators as blanks: `true&&<p>/x.sh` (R19-2).
    let spaced = value.replace([';', '&', '|', '(', ')', '<', '>'], " ");
    read(value).or_else(|| read(&spaced))
}

/// Names a user's hook keeps whatever they name (the shell's own).
const USERS_KEEP: &[&str] = &["PWD", "OLDPWD"];

/// `value` of the search path `name` as a user's hook gets it in `project`:
/// without the entries that are the project's (an empty or relative entry
/// is the folder the hook runs in: the project). Other names as they are.
pub(crate) fn user_search_path(name: &str, value: &OsStr, project: &Path) -> OsString {
    if !SEARCH_PATHS.contains(&name) || value.is_empty() {
        return value.to_owned();
    }
    let project = Project::new(project);
    let kept: Vec<PathBuf> = std::env::split_paths(value)
        .filter(|entry| !entry.as_os_str().is_empty() && !project.owns(entry))
        .collect();
    std::env::join_paths(kept).unwrap_or_else(|_| value.to_owned())
}

/// Leaves out of `command`'s environment every variable
/// [`project_loaders`] finds in any of `projects`, and, for a user's hook
/// (`users`), their entries of its search paths (a value the hook's own
/// settings set after this call is kept). Returns what was left out, for a
/// failed run to say (red team round 13, R13-5).
pub(crate) fn withhold_project_loaders(
    command: &mut Command,
    projects: &[&Path],
    users: bool,
) -> Vec<String> {
    let mut withheld = Vec::new();
    for project in projects {
        for (name, path) in project_loaders(project, users) {
            tracing::debug!("{name} names {path} in the project: not passed to the hook");
            command.env_remove(&name);
            if !withheld
                .iter()
                .any(|said: &String| said.starts_with(&format!("{name} ")))
            {
                withheld.push(format!("{name} (it names {path})"));
            }
        }
    }
    if !users {
        return withheld;
    }
    // Search paths first: a program not found is the likeliest failure.
    let mut cut_entries = Vec::new();
    for name in SEARCH_PATHS {
        let Some(value) = std::env::var_os(name) else {
            continue;
        };
        let kept = projects.iter().fold(value.clone(), |kept, project| {
            user_search_path(name, &kept, project)
        });
        if kept != value {
            let cut: Vec<String> = std::env::split_paths(&value)
                .filter(|entry| !std::env::split_paths(&kept).any(|k| k == *entry))
                .map(|entry| entry.display().to_string())
                .collect();
            cut_entries.push(format!("{name} entries {}", cut.join(":")));
            command.env(name, kept);
        }
    }
    cut_entries.extend(withheld);
    cut_entries
}

/// What a run that could not start or exited non-zero (a timeout is its own
/// cause) says about what of
/// the host's environment it was not given (`withheld`, from
/// [`withhold_project_loaders`]; the first few named); `None` when nothing was.
pub(crate) fn withheld_note(result: &crate::run::RunResult) -> Option<String> {
    const NAMED: usize = 4;
    let withheld = &result.withheld;
    if withheld.is_empty() || result.exit_code == Some(0) || result.timed_out {
        return None;
    }
    let more = withheld.len().saturating_sub(NAMED);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    Some(format!(
        "not passed to this hook: {}{more} (they name the project's files, which its approval \
         does not bind); if it needs a program or file there, name it by its full path in its \
         command",
        withheld[..withheld.len().min(NAMED)].join("; ")
    ))
}

#[cfg(test)]
#[path = "host_env_tests.rs"]
mod tests;
