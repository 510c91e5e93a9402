//! Everything that allocates, done in the parent before the fork: the
//! Landlock ruleset (the `landlock` crate), the uid/gid maps, the private
//! temporary directory; the child then only makes syscalls ([`super::child`]).

use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
};

use super::child::{ChildPlan, ReadOnlyMount};
use super::kernel_record::{Channel, Denies};
use super::recorded_outside::Granted;
use super::resolved::resolve;
use super::rules::Rules;
use super::seccomp::{Recorded, Recording, program};
use super::support::Support;
use super::{Context, Sandbox, SandboxError};

/// A sandbox ready for one spawn. Keep it until the spawn returned; then
/// keep its private directory (if any) until the tree has ended.
#[derive(Debug)]
pub struct Prepared {
    pub(crate) plan: ChildPlan,
    /// Owns the fd the plan names.
    _ruleset: Option<OwnedFd>,
    /// The profile's name (for the run record).
    pub(crate) name: String,
    /// What best effort left out on this machine (empty: applied whole).
    pub(crate) weakened: Vec<String>,
    /// `TMPDIR` of the child.
    pub(crate) tmpdir: PathBuf,
    /// A private temporary directory in the host's `/tmp`, made when no
    /// private `/tmp` could be mounted; removed when the tree ends.
    pub(crate) private_dir: Option<PathBuf>,
    /// Whether the child's environment loses the session's socket
    /// variables ([`super::SESSION_ENV`]).
    hides_session: bool,
    /// The socketpair of the kernel's record, where it was asked for.
    record: Option<Channel>,
}

impl Prepared {
    /// The profile's name (`project`, `strict+best_effort`, ...).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What this machine lacked and best effort left out (empty: applied whole).
    pub fn weakened(&self) -> &[String] {
        &self.weakened
    }

    /// What the child applies, taken for one spawn of `command` (which gets
    /// its `TMPDIR`, and loses the session's socket variables where its
    /// profile hides the session).
    pub(crate) fn take_plan(&mut self, command: &mut tokio::process::Command) -> ChildPlan {
        command.env("TMPDIR", &self.tmpdir);
        if self.hides_session {
            for name in super::SESSION_ENV {
                command.env_remove(name);
            }
        }
        std::mem::take(&mut self.plan)
    }

    /// The private temporary directory, for the tree to remove when it ends.
    pub(crate) fn take_private_dir(&mut self) -> Option<PathBuf> {
        self.private_dir.take()
    }

    /// The kernel record's socketpair, for the tree to listen on before
    /// it spawns the child.
    pub(crate) fn take_record_channel(&mut self) -> Option<Channel> {
        self.record.take()
    }
}

impl Sandbox {
    /// Prepares this profile for one run of a hook in `context`: `None` for
    /// no sandbox; an error when the rules cannot be made or this machine
    /// cannot apply them whole (and the profile is not `best_effort`).
    pub fn prepare(&self, context: &Context) -> Result<Option<Prepared>, SandboxError> {
        let Some(rules) = self.rules(context).map_err(SandboxError::Rules)? else {
            return Ok(None);
        };
        let support = Support::detect();
        let missing = support.missing(&rules);
        if !missing.is_empty() && !self.best_effort {
            return Err(SandboxError::Unavailable {
                profile: self.name(),
                missing,
            });
        }
        if !support.built {
            return Err(SandboxError::Unavailable {
                profile: self.name(),
                missing,
            });
        }
        let namespaces = support.namespaces.is_ok();
        let abi = ABI::from(support.landlock_abi);
        // A tmpfs over /tmp would hide a root of the setup that lives there
        // (a project in /tmp): `rules.private_tmp` says so (`host_tmp.rs`).
        let tmp_mount = namespaces && rules.private_tmp;
        let private_dir = if tmp_mount {
            None
        } else {
            Some(make_private_dir().map_err(|error| {
                SandboxError::Landlock(format!(
                    "cannot make a private temporary directory: {error}"
                ))
            })?)
        };
        // With a mount namespace the protected paths are mounted read-only
        // in it; without one, Landlock keeps them out of the writable roots
        // (whose top levels are then opened entry by entry). A pinned link
        // cannot be mounted over: Landlock keeps it either way.
        let (read_only, mut carved) = if namespaces {
            (read_only_mounts(&rules.read_only), Vec::new())
        } else {
            (Vec::new(), rules.read_only.clone())
        };
        carved.extend(rules.pinned.iter().cloned());
        let ruleset = if support.landlock_abi >= 1 {
            Some(
                build_ruleset(&rules, &carved, abi, private_dir.as_deref())
                    .map_err(SandboxError::Landlock)?,
            )
        } else {
            None
        };
        let (uid, gid) = (
            rustix::process::getuid().as_raw(),
            rustix::process::getgid().as_raw(),
        );
        let limits = rules.limits;
        // What only the kernel can tell of a fail-closed guard: a network
        // it was denied, a host `/tmp` path its private one hid, a unix
        // socket masked or cut off (abstract ones go with the network),
        // and, where Landlock holds it, a path beneath no root it grants.
        let abstract_denied = !rules.network && (namespaces || support.landlock_abi >= 6);
        let recorded = Recorded {
            network: !rules.network,
            lookups: tmp_mount || ruleset.is_some(),
            unix_sockets: namespaces || abstract_denied,
            abstract_denied,
        };
        let record = if context.record_denials && recorded.any() {
            let denies = Denies {
                abstract_denied,
                granted: (ruleset.as_ref())
                    .map(|_| Granted::new(&rules.read, &rules.write, &rules.hidden)),
            };
            Some(Channel::new(denies).map_err(|error| {
                SandboxError::Landlock(format!("cannot record what it is denied: {error}"))
            })?)
        } else {
            None
        };
        let plan = ChildPlan {
            namespaces,
            keep_network: rules.network,
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            private_tmp: tmp_mount,
            overlays: Vec::new(),
            tmp_access: AccessFs::from_all(abi).bits(),
            ruleset: ruleset.as_ref().map(AsRawFd::as_raw_fd),
            shared: if namespaces && !rules.network {
                super::shared::shared_namespaces(uid, gid, support.landlock_abi)
            } else {
                None
            },
            limits: [
                (libc::RLIMIT_AS as i32, limits.address_space),
                (libc::RLIMIT_NPROC as i32, limits.processes),
                (libc::RLIMIT_FSIZE as i32, limits.file_size),
            ],
            read_only,
            masks: if namespaces {
                super::masked::masks(&rules, tmp_mount)
            } else {
                Vec::new()
            },
            lower_limits: true,
            recording: record.as_ref().map(|channel| Recording {
                channel: channel.child_end(),
                filter: program(recorded, channel.child_end()),
            }),
        };
        Ok(Some(Prepared {
            plan,
            _ruleset: ruleset,
            name: self.name(),
            weakened: missing,
            tmpdir: private_dir.clone().unwrap_or_else(|| PathBuf::from("/tmp")),
            private_dir,
            hides_session: super::masked::hides_session(&rules),
            record,
        }))
    }
}

fn make_private_dir() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    let mut builder = std::fs::DirBuilder::new();
    builder.mode(0o700);
    for attempt in 0..16u32 {
        let random = std::hash::BuildHasher::hash_one(
            &std::collections::hash_map::RandomState::new(),
            (std::process::id(), attempt),
        );
        let dir = std::env::temp_dir().join(format!("hermes-hooks-tmp.{random:016x}"));
        match builder.create(&dir) {
            Ok(()) => return Ok(dir),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error),
        }
    }
    Err(std::io::Error::other("no free name"))
}

/// The mounts that keep `paths` read-only, each with the identity the
/// child checks (a path gone since the rules were made has nothing to keep).
fn read_only_mounts(paths: &[PathBuf]) -> Vec<ReadOnlyMount> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;
    paths
        .iter()
        .filter_map(|path| {
            let metadata = std::fs::metadata(path).ok()?;
            Some(ReadOnlyMount {
                path: std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?,
                identity: (metadata.dev(), metadata.ino()),
            })
        })
        .collect()
}

fn build_ruleset(
    rules: &Rules,
    unwritable: &[PathBuf],
    abi: ABI,
    private_dir: Option<&Path>,
) -> Result<OwnedFd, String> {
    build(rules, unwritable, abi, private_dir).map_err(|error| error.to_string())?
}

fn build(
    rules: &Rules,
    unwritable: &[PathBuf],
    abi: ABI,
    private_dir: Option<&Path>,
) -> Result<Result<OwnedFd, String>, landlock::RulesetError> {
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))?;
    if !rules.network && abi >= ABI::V4 {
        ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
    }
    if abi >= ABI::V6 {
        let scopes: BitFlags<Scope> = if rules.network {
            Scope::Signal.into()
        } else {
            Scope::Signal | Scope::AbstractUnixSocket
        };
        ruleset = ruleset.scope(scopes)?;
    }
    let mut created = ruleset.create()?;
    let resolved = resolve(&rules.read, &rules.write, &rules.hidden, unwritable, abi);
    for entry in &resolved.entries {
        created = created.add_rule(PathBeneath::new(entry.fd.as_fd(), entry.access))?;
    }
    // Made for this spawn: opened now, never cached.
    if let Some(dir) = private_dir
        && let Ok(fd) = PathFd::new(dir)
    {
        created = created.add_rule(PathBeneath::new(fd, AccessFs::from_all(abi)))?;
    }
    // No fd: Landlock went away between the probe and now. Enforcing
    // nothing would be a silent allow, so this is an error.
    Ok(Option::<OwnedFd>::from(created)
        .ok_or_else(|| "Landlock is not enforced by this kernel".to_owned()))
}
