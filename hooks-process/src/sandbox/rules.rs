//! A profile made concrete for one hook: the paths it may read and write,
//! whether it keeps the network, and its resource limits.

use std::path::{Path, PathBuf};

use super::profile::{Profile, Sandbox};
use super::stores::SECRET_STORES;

/// Where the system lives: readable (and executable) under every profile.
pub const SYSTEM_READ: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/opt",
    "/nix",
    "/snap",
    "/proc",
    "/sys",
    "/dev",
    "/run",
    "/var/lib",
    "/var/cache",
    "/var/run",
];

/// Device files every profile may write (`> /dev/null` must keep working).
pub const DEVICE_WRITE: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];

/// Resource limits of a sandboxed hook (each only ever lowered, never raised).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// `RLIMIT_AS`: bytes of address space (16 GiB: runtimes such as V8
    /// reserve large virtual ranges).
    pub address_space: u64,
    /// `RLIMIT_NPROC`: processes of the user (the kernel counts them per
    /// user across the system; root is exempt).
    pub processes: u64,
    /// `RLIMIT_FSIZE`: the largest file the hook may write (1 GiB).
    pub file_size: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            address_space: 16 << 30,
            processes: 4096,
            file_size: 1 << 30,
        }
    }
}

/// What a hook is prepared with: the paths of its project and its own files.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Context {
    /// The project directory (the hook's working directory for project hooks).
    pub project: PathBuf,
    /// The hook's own files (its script, its plugin root, its hooks folder).
    pub own_files: Vec<PathBuf>,
    /// Folders the hook's own tool lets it write (Claude Code's
    /// `CLAUDE_ENV_FILE` folder and `CLAUDE_PLUGIN_DATA`): writable under
    /// `project`, as the project is.
    pub own_writable: Vec<PathBuf>,
    /// The user's home (`None`: no home is readable).
    pub home: Option<PathBuf>,
    /// More secret stores, beside [`SECRET_STORES`] (`~` expanded).
    pub secrets: Vec<PathBuf>,
    /// The user's runtime folder as the environment names it
    /// (`XDG_RUNTIME_DIR`): its sockets are masked beside those of
    /// `/run/user/<uid>` where it is a `0700` folder of the user's own.
    pub runtime_dir: Option<PathBuf>,
    /// The directories of the hook's `PATH`: readable under every profile,
    /// with the tool folder a home's entry belongs to (`~/.pyenv` for
    /// `~/.pyenv/shims`), so an interpreter a shim or version manager
    /// resolves still runs; a guard whose `python3` is denied would
    /// otherwise answer nothing and allow.
    pub path: Vec<PathBuf>,
    /// The roots of the hook's checked tree (its tool folder, a script
    /// folder): each one that is a link inside a writable root is kept
    /// pointing where it points while the hook runs, as a linked tool
    /// folder of the project always is ([`super::pinned_links`]).
    pub tree_roots: Vec<PathBuf>,
    /// Keep the kernel's record of what the sandbox denies the hook, a
    /// record its stderr cannot silence: where the profile keeps no
    /// network, each inet `socket()` of its tree is counted
    /// (`RunOutput::network_attempts`); where it has a private `/tmp`, the
    /// first path of the host's `/tmp` it looks up (opens, `stat`s,
    /// `chdir`s to, runs...) that the private one hides is kept
    /// (`RunOutput::hidden_tmp`); where Landlock holds it, the first path
    /// of the host it opens to read or runs beneath no root the profile
    /// grants, or beneath a hidden one (`RunOutput::denied_path`); where
    /// sockets are masked or abstract ones cut off, the first unix socket
    /// of the host it `connect()`s or sends a datagram to and cannot reach
    /// (`RunOutput::denied_unix_socket`). io_uring is refused
    /// to it (its opens would go unseen). Asked for a fail-closed guard,
    /// which must never allow because the sandbox cut it off from its
    /// rules (red team round 7, R7c-3; round 9, R9-4). Costs a round trip
    /// to this process for each such call of the hook.
    pub record_denials: bool,
}

impl Context {
    /// A context for a hook of `project`, the user's home from the environment.
    pub fn new(project: impl Into<PathBuf>) -> Self {
        Context {
            project: project.into(),
            own_files: Vec::new(),
            own_writable: Vec::new(),
            home: std::env::var_os("HOME").map(PathBuf::from),
            secrets: Vec::new(),
            runtime_dir: std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from),
            path: std::env::var_os("PATH")
                .map(|path| std::env::split_paths(&path).collect())
                .unwrap_or_default(),
            tree_roots: Vec::new(),
            record_denials: false,
        }
    }
}

/// The effective rules of a profile for one hook.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rules {
    /// Readable (and executable) hierarchies.
    pub read: Vec<PathBuf>,
    /// Readable and writable hierarchies.
    pub write: Vec<PathBuf>,
    /// Paths beneath a readable hierarchy that stay unreadable (secret stores).
    pub hidden: Vec<PathBuf>,
    /// Paths beneath a writable hierarchy that stay read-only: the project's
    /// git metadata and agent settings ([`super::protected_paths`]).
    pub read_only: Vec<PathBuf>,
    /// Links beneath a writable hierarchy the hook must not re-point (a
    /// linked tool folder, `.claude -> agent`): the folder holding each, and
    /// every folder above it up to the writable root, keeps its entries (no
    /// entry made, removed or renamed right there), while what is in those
    /// folders stays writable ([`super::pinned_links`]).
    pub pinned: Vec<PathBuf>,
    /// Folders and sockets masked in the hook's mount namespace so that no
    /// named socket there is reached, the user's runtime folder first
    /// (`masked.rs`; where they exist, around what the profile reads).
    pub masked: Vec<PathBuf>,
    /// The roots whose places stay unmasked (the project, the home under
    /// `project`, `PATH`'s tool folders, a map's paths): what the user's
    /// setup reads, never what a command's words name (red team round 7:
    /// `probe.sh /run/user` lifted the mask of the session's sockets).
    pub unmasking: Vec<PathBuf>,
    /// Whether the hook keeps the host's network.
    pub network: bool,
    /// Whether `/tmp` is a private one of the hook's own mount namespace:
    /// unless a root of the user's setup lies in the host's (never for a
    /// command's word: red team round 7, R7b-3).
    pub private_tmp: bool,
    /// Its resource limits.
    pub limits: Limits,
}

impl Sandbox {
    /// The rules of this profile for a hook in `context`; `None` for no
    /// sandbox. An error names a path that cannot be expanded.
    pub fn rules(&self, context: &Context) -> Result<Option<Rules>, String> {
        let tools = tool_folders(context);
        let system = SYSTEM_READ.iter().map(PathBuf::from).chain(tools.clone());
        let devices = DEVICE_WRITE.iter().map(PathBuf::from);
        // A command's words never open the folder of every home, and the
        // stores of another user's home they name are hidden as the user's.
        let own = (context.own_files.iter())
            .filter(|root| root.as_path() != Path::new("/home"))
            .cloned();
        let homes = context
            .home
            .iter()
            .cloned()
            .chain((context.own_files.iter()).filter_map(|root| home_holding(root)));
        let project = context.project.clone();
        // The roots the user's setup gives (not the words of a command): a
        // masked place beneath one stays (`masked.rs`).
        let mut unmasking: Vec<PathBuf> = tools.clone();
        let (read, write, network): (Vec<PathBuf>, Vec<PathBuf>, bool) = match &self.profile {
            Profile::None => return Ok(None),
            Profile::Project => {
                unmasking.extend(context.home.clone());
                unmasking.push(project.clone());
                unmasking.extend(context.own_writable.iter().cloned());
                (
                    system
                        .chain(own)
                        .chain(context.home.clone())
                        .chain([project.clone()])
                        .collect(),
                    devices
                        .chain([project])
                        .chain(context.own_writable.iter().cloned())
                        .collect(),
                    false,
                )
            }
            Profile::Strict => {
                unmasking.push(project.clone());
                (
                    system.chain(own).chain([project]).collect(),
                    devices.collect(),
                    false,
                )
            }
            Profile::Custom(custom) => {
                let expand = |paths: &[String]| -> Result<Vec<PathBuf>, String> {
                    paths
                        .iter()
                        .map(|path| expand_path(path, context))
                        .collect()
                };
                let (listed_read, listed_write) = (expand(&custom.read)?, expand(&custom.write)?);
                unmasking.extend(listed_read.iter().chain(&listed_write).cloned());
                (
                    system.chain(own).chain(listed_read).collect(),
                    devices.chain(listed_write).collect(),
                    custom.network,
                )
            }
        };
        // The home's secret stores are hidden under every profile (a `PATH`
        // tool folder such as `~/.local` or `~/.config` is readable under
        // `strict` too), but one a map lists, or lists a path in.
        let listed = |store: &Path| match &self.profile {
            Profile::Custom(_) => unmasking.iter().any(|root| root.starts_with(store)),
            _ => false,
        };
        let hidden = dedup(
            homes
                .flat_map(|home| SECRET_STORES.iter().map(move |store| home.join(store)))
                .filter(|store| !listed(store))
                .chain(context.secrets.iter().cloned())
                .collect(),
        );
        let read_only = super::protected_paths(&context.project)
            .into_iter()
            .filter(|path| {
                write.iter().any(|root| {
                    path.starts_with(std::fs::canonicalize(root).unwrap_or_else(|_| root.clone()))
                })
            })
            .collect();
        let pinned = super::pinned_links(&context.project, &context.tree_roots, &write);
        let masked = super::masked::targets(context);
        let private_tmp = super::host_tmp::private(&unmasking, &context.tree_roots);
        Ok(Some(Rules {
            read: dedup(read),
            write: dedup(write),
            hidden,
            read_only,
            pinned,
            masked,
            unmasking: dedup(unmasking),
            network,
            private_tmp,
            limits: Limits::default(),
        }))
    }
}

/// `~`, `~/x` and `${VAR}` / `$VAR` expanded, relative paths taken from the
/// project; an unset variable is an error.
pub fn expand_path(path: &str, context: &Context) -> Result<PathBuf, String> {
    let mut out = String::new();
    let mut rest = path;
    if rest == "~" || rest.starts_with("~/") {
        let home = context
            .home
            .as_ref()
            .ok_or_else(|| format!("'{path}': no home to expand ~ with"))?;
        out.push_str(&home.to_string_lossy());
        rest = &rest[1..];
    }
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, tail) = if let Some(braced) = after.strip_prefix('{') {
            let end = braced
                .find('}')
                .ok_or_else(|| format!("'{path}': unclosed ${{"))?;
            (&braced[..end], &braced[end + 1..])
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        let value = match name {
            "CLAUDE_PROJECT_DIR" | "HERMES_PROJECT_DIR" => {
                Some(context.project.to_string_lossy().into_owned())
            }
            _ => std::env::var(name).ok(),
        }
        .ok_or_else(|| format!("'{path}': ${name} is not set"))?;
        out.push_str(&value);
        rest = tail;
    }
    out.push_str(rest);
    let expanded = PathBuf::from(out);
    Ok(if expanded.is_relative() {
        context.project.join(expanded)
    } else {
        expanded
    })
}

/// The `PATH` directories, each widened to the tool folder it is in: the
/// first hidden folder of its path (`~/.pyenv` for `~/.pyenv/shims`,
/// `~/.nvm` for `~/.nvm/versions/node/v22/bin`), or the `$HOME` entry it
/// lies in (`~/bin`). A directory that a link on the way leads out of its
/// folder (`~/.local/bin -> /data/bin`) is listed too: a rule grants by the
/// real path, so the folder's rule would not reach it.
fn tool_folders(context: &Context) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    for dir in context.path.iter().filter(|dir| dir.is_absolute()) {
        let mut prefix = PathBuf::new();
        let mut tool = None;
        for component in dir.components() {
            prefix.push(component);
            let hidden = component
                .as_os_str()
                .to_str()
                .is_some_and(|name| name.starts_with('.') && name.len() > 1);
            if hidden {
                tool = Some(prefix.clone());
                break;
            }
        }
        let in_home = context.home.as_ref().and_then(|home| {
            let first = dir.strip_prefix(home).ok()?.components().next()?;
            Some(home.join(first))
        });
        let folder = tool.or(in_home).unwrap_or_else(|| dir.clone());
        let leads_out = folder != *dir
            && match (std::fs::canonicalize(dir), std::fs::canonicalize(&folder)) {
                (Ok(real), Ok(real_folder)) => !real.starts_with(real_folder),
                _ => false,
            };
        folders.push(folder);
        if leads_out {
            folders.push(dir.clone());
        }
    }
    folders
}

/// The home `path` lies in by the usual places of homes (`/root`,
/// `/home/<name>`), if any.
fn home_holding(path: &Path) -> Option<PathBuf> {
    if path.starts_with("/root") {
        return Some(PathBuf::from("/root"));
    }
    let name = path.strip_prefix("/home").ok()?.components().next()?;
    Some(Path::new("/home").join(name))
}

fn dedup(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut seen = Vec::with_capacity(paths.len());
    for path in paths {
        if !path.as_os_str().is_empty() && !seen.contains(&path) {
            seen.push(path);
        }
    }
    seen
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
