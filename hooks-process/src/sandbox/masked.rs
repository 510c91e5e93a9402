//! Named Unix sockets a sandboxed hook must not reach, and the folders that
//! hold them: masked in the hook's own mount namespace (red-team round 6,
//! R6-22).
//!
//! Landlock rules cover files, not `connect()` on a named socket, and the
//! network namespace covers abstract sockets and TCP, not a socket file the
//! hook can name. A socket is a door out of the sandbox when the process
//! that listens on it acts for the caller outside: the session bus
//! (`systemd-run --user` starts a process with no sandbox; the Secret
//! Service hands out passwords), the user's service manager, ssh and gpg
//! agents (sign with the user's keys), an ssh `ControlMaster` socket (a
//! shell on the user's servers, with their network), a terminal
//! multiplexer or an editor server (keystrokes, code), a container engine
//! (root on the host), a resolver (names looked up out of the network
//! namespace). So under every profile but `none` an empty read-only tmpfs
//! that nobody may enter (mode `000`, so a read there is still "permission
//! denied") is mounted over each such folder, and `/dev/null` over each
//! such socket, in the hook's mount namespace, after everything else:
//!
//! - the user's runtime folder, `/run/user/<uid>` and `XDG_RUNTIME_DIR`
//!   (when it is a `0700` folder of the user's own that holds neither the
//!   home nor the project): the session's sockets all live there;
//! - the home's socket places ([`HOME_SOCKETS`], each a secret store too);
//! - the system's ([`SYSTEM_SOCKETS`]), and, where the hook has no private
//!   `/tmp` to hide them, the host's `/tmp`'s: the usual folders of
//!   sessions' sockets ([`super::TMP_SOCKET_FOLDERS`]) and every socket
//!   directly in `/tmp` or in a folder directly in it (`host_tmp.rs`).
//!
//! What the user's setup reads is kept: a place at or beneath the project,
//! the home under `project`, a `PATH` tool folder or a path a map lists
//! (not a hidden one) is not masked (an explicit map that lists
//! `/run/user/1000` keeps it); a word of the hook's command never keeps one
//! (red team round 7: `probe.sh /run/user` reached the session bus). A place that
//! holds one is masked entry by entry around it (a `PATH` folder in the
//! runtime folder, as fnm makes). A link among those entries is left alone.
//! The session's variables that name such a socket ([`SESSION_ENV`]) are
//! removed from the hook's environment as well. Without a mount namespace
//! (best effort) nothing is masked, said by `list` and `doctor`.

use std::path::{Path, PathBuf};

use super::rules::Context;
#[cfg(all(target_os = "linux", feature = "sandbox"))]
use super::rules::Rules;

/// Folders and sockets of the system masked under every profile but `none`,
/// by kind (each kind's paths sorted; `/var/run` beside `/run` where it is
/// not a link to it).
pub const SYSTEM_SOCKETS: &[&str] = &[
    // Buses and service managers: the system bus (logind, udisks,
    // PackageKit, resolved; as root, systemd), root's service manager (any
    // unit, outside any sandbox), supervisord (starts its programs).
    "/run/dbus",
    "/run/supervisor",
    "/run/supervisor.sock",
    "/run/systemd/private",
    "/var/run/supervisor",
    "/var/run/supervisor.sock",
    // Container engines and hypervisors: root on the host for their group.
    "/run/buildkit",
    "/run/containerd",
    "/run/cri-dockerd.sock",
    "/run/crio",
    "/run/docker",
    "/run/docker.sock",
    "/run/incus",
    "/run/k3s",
    "/run/libvirt",
    "/run/podman",
    "/run/snapd-snap.socket",
    "/run/snapd.socket",
    "/var/lib/incus/unix.socket",
    "/var/lib/lxd/unix.socket",
    "/var/run/cri-dockerd.sock",
    "/var/run/docker.sock",
    "/var/snap/lxd/common/lxd/unix.socket",
    // Databases that trust the caller's uid (PostgreSQL's `peer`,
    // MariaDB's `unix_socket`: the user's role, root's for root) or ask
    // nothing (Redis, memcached).
    "/run/memcached",
    "/run/mysqld",
    "/run/postgresql",
    "/run/redis",
    "/var/run/memcached",
    "/var/run/mysqld",
    "/var/run/postgresql",
    "/var/run/redis",
    // FastCGI pools: PHP run as the pool's user.
    "/run/php",
    "/run/php-fpm",
    "/var/run/php",
    "/var/run/php-fpm",
    // Name lookups by a daemon outside the network namespace (mDNS, nscd,
    // resolved's varlink).
    "/run/avahi-daemon",
    "/run/nscd",
    "/run/systemd/resolve/io.systemd.Resolve",
    // Network daemons that act outside the network namespace: tailscaled's
    // LocalAPI (the tailnet, its keys).
    "/run/tailscale",
    "/var/run/tailscale",
    // Devices and desktop services of the system: a smart card's PC/SC
    // daemon (a plugged security key), printing, a system-wide PulseAudio
    // (the microphone), uuidd.
    "/run/cups",
    "/run/pcscd",
    "/run/pulse",
    "/run/uuidd",
    "/var/run/pulse",
    // Terminal multiplexers: screen's sessions take keystrokes.
    "/run/screen",
];

/// The home's places that hold agents' and engines' sockets (relative to
/// the home): masked under every profile but `none` unless the profile
/// reads them (each is a secret store, so `project` never does).
pub const HOME_SOCKETS: &[&str] = &[
    ".1password",
    ".bitwarden-ssh-agent.sock",
    ".colima",
    ".docker/desktop",
    ".docker/run",
    ".gnupg",
    ".lima",
    ".rd/docker.sock",
    ".ssh",
];

/// The session's variables that name a socket of the user's session,
/// removed from the environment of a hook whose runtime folder is masked.
pub const SESSION_ENV: &[&str] = &[
    "DBUS_SESSION_BUS_ADDRESS",
    "GPG_AGENT_INFO",
    "SSH_AUTH_SOCK",
];

/// The places to mask for a hook in `context`: the user's runtime folder
/// first, then `XDG_RUNTIME_DIR`, the home's and the system's.
pub(crate) fn targets(context: &Context) -> Vec<PathBuf> {
    let uid = rustix::process::getuid().as_raw();
    let runtime = PathBuf::from(format!("/run/user/{uid}"));
    let mut targets = vec![runtime.clone()];
    if let Some(dir) = &context.runtime_dir
        && *dir != runtime
        && own_runtime_dir(dir, uid, context)
    {
        targets.push(dir.clone());
    }
    if let Some(home) = &context.home {
        targets.extend(HOME_SOCKETS.iter().map(|place| home.join(place)));
    }
    targets.extend(SYSTEM_SOCKETS.iter().map(PathBuf::from));
    targets.push(PathBuf::from("/tmp/.X11-unix"));
    targets.push(PathBuf::from(format!("/tmp/tmux-{uid}")));
    targets
}

/// Whether `dir` is a runtime folder as the XDG spec has it (absolute, the
/// user's own, `0700`) that holds neither the home nor the project.
fn own_runtime_dir(dir: &Path, uid: u32, context: &Context) -> bool {
    use std::os::unix::fs::MetadataExt;
    dir.is_absolute()
        && !context.project.starts_with(dir)
        && !context
            .home
            .as_ref()
            .is_some_and(|home| home.starts_with(dir))
        && std::fs::metadata(dir).is_ok_and(|metadata| {
            metadata.is_dir() && metadata.uid() == uid && metadata.mode() & 0o077 == 0
        })
}

/// Whether the hook's environment loses [`SESSION_ENV`]: its profile does
/// not read the user's runtime folder.
#[cfg(all(target_os = "linux", feature = "sandbox"))]
pub(crate) fn hides_session(rules: &Rules) -> bool {
    let own = Own::of(rules);
    rules
        .masked
        .first()
        .is_some_and(|runtime| !own.reads(runtime))
}

/// What the profile reads by the user's setup ([`Rules::unmasking`]: not
/// the system's roots, not a command's words) minus the hidden paths.
#[cfg(all(target_os = "linux", feature = "sandbox"))]
struct Own<'a> {
    roots: Vec<&'a Path>,
    hidden: &'a [PathBuf],
}

#[cfg(all(target_os = "linux", feature = "sandbox"))]
impl<'a> Own<'a> {
    fn of(rules: &'a Rules) -> Own<'a> {
        Own {
            roots: rules.unmasking.iter().map(PathBuf::as_path).collect(),
            hidden: &rules.hidden,
        }
    }

    /// Whether the profile reads `path` (beneath a root, not hidden).
    fn reads(&self, path: &Path) -> bool {
        self.roots.iter().any(|root| path.starts_with(root))
            && !self.hidden.iter().any(|hidden| path.starts_with(hidden))
    }

    /// Whether a root lies beneath `spelled` or `real` (one of its spellings).
    fn beneath(&self, spelled: &Path, real: &Path) -> bool {
        (self.roots.iter()).any(|root| root.starts_with(spelled) || root.starts_with(real))
    }
}

/// The masks of `rules` as they are on the filesystem now: each existing
/// folder or socket (links resolved), none beneath another; under `/tmp`
/// only where the hook has no private `/tmp`, and then its socket places
/// too ([`super::host_tmp::socket_places`]).
#[cfg(all(target_os = "linux", feature = "sandbox"))]
pub(crate) fn masks(rules: &Rules, private_tmp: bool) -> Vec<super::child::Mask> {
    let in_tmp = if private_tmp {
        Vec::new()
    } else {
        let uid = rustix::process::getuid().as_raw();
        super::host_tmp::socket_places(Path::new("/tmp"), uid)
    };
    masks_among(rules, private_tmp, &in_tmp)
}

/// [`masks`] of `rules.masked` and `more`.
#[cfg(all(target_os = "linux", feature = "sandbox"))]
fn masks_among(rules: &Rules, private_tmp: bool, more: &[PathBuf]) -> Vec<super::child::Mask> {
    use std::os::unix::ffi::OsStrExt;
    let own = Own::of(rules);
    let mut found = Vec::new();
    for target in rules.masked.iter().chain(more) {
        let under_tmp = |path: &Path| private_tmp && path.starts_with("/tmp");
        if under_tmp(target) || std::fs::symlink_metadata(target).is_err() || own.reads(target) {
            continue;
        }
        let Ok(real) = std::fs::canonicalize(target) else {
            continue;
        };
        if !under_tmp(&real) && (real == *target || !own.reads(&real)) {
            cut(&own, target, &real, &mut found);
        }
    }
    found.sort();
    let mut masks: Vec<(PathBuf, bool)> = Vec::with_capacity(found.len());
    for (path, folder) in found {
        if !masks.iter().any(|(kept, _)| path.starts_with(kept)) {
            masks.push((path, folder));
        }
    }
    masks
        .into_iter()
        .filter_map(|(path, folder)| {
            let path = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
            Some(super::child::Mask { path, folder })
        })
        .collect()
}

/// Adds `real` (spelled `spelled`) to `found` if it is a folder or a
/// socket; a folder that holds a root of the profile's own rules is cut
/// into its entries instead, the ones the profile reads left alone.
#[cfg(all(target_os = "linux", feature = "sandbox"))]
fn cut(own: &Own, spelled: &Path, real: &Path, found: &mut Vec<(PathBuf, bool)>) {
    use std::os::unix::fs::FileTypeExt;
    let Ok(kind) = std::fs::symlink_metadata(real).map(|metadata| metadata.file_type()) else {
        return;
    };
    if !kind.is_dir() {
        if kind.is_socket() {
            found.push((real.to_path_buf(), false));
        }
        return;
    }
    if !own.beneath(spelled, real) {
        found.push((real.to_path_buf(), true));
        return;
    }
    let Ok(entries) = std::fs::read_dir(real) else {
        return;
    };
    for entry in entries.flatten() {
        let (name, path) = (entry.file_name(), entry.path());
        let spelled = spelled.join(&name);
        let link = entry.file_type().is_ok_and(|kind| kind.is_symlink());
        if !link && !own.reads(&spelled) && !own.reads(&path) {
            cut(own, &spelled, &path, found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::{Profile, SECRET_STORES, Sandbox};

    #[test]
    fn the_homes_socket_places_are_secret_stores() {
        for place in HOME_SOCKETS {
            assert!(SECRET_STORES.contains(place), "{place}");
        }
    }

    #[test]
    fn the_runtime_folder_comes_first_and_a_map_that_lists_it_keeps_it() {
        let mut context = Context::new("/work/p");
        context.home = Some(PathBuf::from("/home/u"));
        let rules = |profile| Sandbox::new(profile).rules(&context).unwrap().unwrap();
        let runtime = format!("/run/user/{}", rustix::process::getuid().as_raw());
        let strict = rules(Profile::Strict);
        assert_eq!(strict.masked[0], PathBuf::from(&runtime));
        assert!(strict.masked.contains(&PathBuf::from("/home/u/.ssh")));
        assert!(strict.masked.contains(&PathBuf::from("/run/dbus")));
        #[cfg(all(target_os = "linux", feature = "sandbox"))]
        {
            assert!(hides_session(&strict) && hides_session(&rules(Profile::Project)));
            let listing = crate::sandbox::CustomRules::new(vec![runtime], vec![], false);
            assert!(!hides_session(&rules(Profile::Custom(listing))));
        }
    }

    #[cfg(all(target_os = "linux", feature = "sandbox"))]
    #[test]
    fn folders_and_sockets_are_masked_around_what_the_profile_reads() {
        use std::os::unix::net::UnixListener;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let place = root.join("place");
        for folder in ["a", "k/keep", "k/other"] {
            std::fs::create_dir_all(place.join(folder)).unwrap();
        }
        std::fs::write(place.join("file"), "not a socket").unwrap();
        let _sockets = [
            UnixListener::bind(place.join("s.sock")).unwrap(),
            UnixListener::bind(place.join("k/s.sock")).unwrap(),
        ];
        std::os::unix::fs::symlink("a", place.join("link")).unwrap();
        std::os::unix::fs::symlink(place.join("a"), root.join("alias")).unwrap();
        let rules = Rules {
            read: vec![place.join("k/keep")],
            write: Vec::new(),
            hidden: Vec::new(),
            read_only: Vec::new(),
            pinned: Vec::new(),
            masked: vec![place.clone(), root.join("missing"), root.join("alias")],
            unmasking: vec![place.join("k/keep")],
            network: false,
            private_tmp: true,
            limits: crate::sandbox::Limits::default(),
        };
        let masks: Vec<(String, bool)> = masks_among(&rules, false, &[])
            .into_iter()
            .map(|mask| (mask.path.to_str().unwrap().to_owned(), mask.folder))
            .collect();
        let at = |name: &str| place.join(name).display().to_string();
        assert_eq!(
            masks,
            [
                (at("a"), true),
                (at("k/other"), true),
                (at("k/s.sock"), false),
                (at("s.sock"), false),
            ]
        );
    }
}
