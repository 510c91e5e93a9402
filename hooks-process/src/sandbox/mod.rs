//! Sandboxed hooks: what a hook may read, write and reach, enforced by the
//! kernel between fork and exec for every process of its tree.
//!
//! A [`Sandbox`] is a [`Profile`] (`none`, `project`, `strict`, or an explicit
//! map) plus `best_effort`. [`Sandbox::rules`] makes it concrete for one hook
//! ([`Rules`]); [`Sandbox::prepare`] builds, before the fork, everything the
//! child applies ([`Prepared`]), which [`ChildTree::spawn_sandboxed`] and
//! [`run_sandboxed`] take. In the child, in this order:
//!
//! 1. a user namespace mapping the user to itself (root too: its
//!    capabilities then end at the namespace; where user namespaces are
//!    refused, root enters the others directly), with new mount and cgroup
//!    namespaces and, unless the profile keeps the network, a network
//!    namespace (only a loopback that is down). Where Landlock scopes
//!    abstract unix sockets (ABI 6), the user and network namespaces are
//!    one pair made once per process and entered with `setns` (see
//!    `shared.rs`: creating and tearing down a network namespace per spawn
//!    was the costliest step); elsewhere, or where that pair cannot be
//!    made, each spawn makes its own;
//! 2. a tmpfs on `/tmp` in that mount namespace (256 MiB), so a hook's
//!    writes to `/tmp` land in its private `/tmp` (`TMPDIR=/tmp`). Where a
//!    root of the user's setup lives under `/tmp` (the tmpfs would hide it;
//!    a word of the hook's command never counts, `host_tmp.rs`), or
//!    namespaces are not there (best effort), it gets a fresh `0700`
//!    directory in the host's temporary directory as `TMPDIR` instead, and
//!    the host's `/tmp` has its socket places masked ([`TMP_SOCKET_FOLDERS`]);
//!    Then the project's git metadata and agent settings files
//!    ([`protected_paths`]) are bind-mounted read-only onto themselves,
//!    each checked to be the file the parent saw (where there is no mount
//!    namespace, Landlock leaves them out of the writable rules instead);
//!    a link of the hook's tree (`.claude -> agent`, [`pinned_links`]) is
//!    left out of the writable rules with or without one (a link cannot be
//!    mounted over): the folders holding it keep their entries. Last, an
//!    empty read-only tmpfs is mounted over the user's runtime folder
//!    (`/run/user/<uid>`), the home's socket places ([`HOME_SOCKETS`]) and
//!    the system's ([`SYSTEM_SOCKETS`]), `/dev/null` over such a socket,
//!    around what the profile itself reads (`masked.rs`): Landlock does not
//!    cover `connect()` on a named socket. The session's socket variables
//!    ([`SESSION_ENV`]) leave the environment;
//! 3. `no_new_privs`, then the Landlock ruleset (built per spawn by the
//!    parent from paths opened once and reused while they still match, see
//!    `resolved.rs`): read (and execute) the
//!    [`SYSTEM_READ`] hierarchies and the profile's readable paths minus the
//!    hidden ones (the [`SECRET_STORES`] of the home, extensible per host),
//!    write the profile's writable paths, the private `/tmp` and a few
//!    devices ([`DEVICE_WRITE`]); on ABI 4+ no TCP bind or connect at all
//!    unless the profile keeps the network; on ABI 6+ no signal to, and no
//!    abstract socket of, a process outside the sandbox;
//! 4. an empty capability bounding set, and lowered rlimits ([`Limits`]).
//!
//! Landlock cannot deny beneath an allowed hierarchy, so a readable root
//! that contains a hidden path is replaced by its entries (recursively) at
//! preparation time; a file created later directly in such a directory (the
//! home's top level, say) is not readable by the hook. Landlock grants by
//! the file a path leads to, so a hidden path is hidden where its links
//! lead too (`~/.ssh -> dotfiles/ssh`, and a link right inside a hidden
//! folder: see `real.rs`), and a link among a cut root's entries (`~/x ->
//! .ssh`, `~/code -> /data/code`) is never granted as such: what it leads
//! to is readable only where a rule grants it by its real path, as beneath
//! a root that is not cut. A writable root is cut the same way around a
//! read-only path (without a mount namespace), a pinned link and a link on
//! the way to a hidden path: the folders on the way keep their entries
//! (the cost: no file or folder made, removed or renamed right at the top
//! of a project whose tool folder is a link), and a link among the entries
//! is never followed to grant its target.
//!
//! Where a profile cannot be applied whole ([`Support::missing`]),
//! [`Sandbox::prepare`] fails with [`SandboxError::Unavailable`] unless the
//! profile is `best_effort`; callers block a fail-closed hook and skip a
//! fail-open one with a warning. [`UNAVAILABLE_ENV`] simulates a machine
//! without Landlock or user namespaces, for tests.
//!
//! [`ChildTree::spawn_sandboxed`]: super::ChildTree::spawn_sandboxed
//! [`run_sandboxed`]: super::run_sandboxed

#[cfg(target_os = "linux")]
pub(crate) mod child;
mod explain;
#[cfg(all(target_os = "linux", feature = "sandbox"))]
mod held;
mod host_tmp;
#[cfg(target_os = "linux")]
pub(crate) mod kernel_record;
mod masked;
#[cfg(all(target_os = "linux", feature = "sandbox"))]
mod overlay;
#[cfg(all(target_os = "linux", feature = "sandbox"))]
mod prepare;
mod profile;
mod protected;
#[cfg(all(target_os = "linux", feature = "sandbox"))]
mod real;
#[cfg(target_os = "linux")]
mod recorded_outside;
#[cfg(target_os = "linux")]
mod recorded_path;
#[cfg(target_os = "linux")]
mod recorded_socket;
#[cfg(all(target_os = "linux", feature = "sandbox"))]
pub(crate) mod release;
#[cfg(all(target_os = "linux", feature = "sandbox"))]
mod resolved;
mod rules;
#[cfg(target_os = "linux")]
mod seccomp;
#[cfg(all(target_os = "linux", feature = "sandbox"))]
mod shared;
mod stores;
mod support;

pub use explain::{Denial, denials};
pub use host_tmp::TMP_SOCKET_FOLDERS;
pub use masked::{HOME_SOCKETS, SESSION_ENV, SYSTEM_SOCKETS};
#[cfg(all(target_os = "linux", feature = "sandbox"))]
pub use prepare::Prepared;
pub use profile::{CustomRules, Profile, Sandbox};
pub use protected::{PROTECTED_SETTINGS, TOOL_FOLDERS, pinned_links, protected_paths};
pub use rules::{Context, DEVICE_WRITE, Limits, Rules, SYSTEM_READ, expand_path};
pub use stores::SECRET_STORES;
pub use support::{Support, UNAVAILABLE_ENV};

/// Why a sandbox could not be prepared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SandboxError {
    /// A path of the profile cannot be expanded.
    #[error("sandbox rules: {0}")]
    Rules(String),
    /// This machine cannot apply the profile whole.
    #[error("sandbox profile '{profile}' cannot be applied here: missing {}", missing.join(", "))]
    Unavailable {
        /// The profile's name.
        profile: String,
        /// What is missing, each a short phrase.
        missing: Vec<String>,
    },
    /// The Landlock ruleset could not be built.
    #[error("sandbox: {0}")]
    Landlock(String),
}

/// A sandbox that cannot exist in this build (no `sandbox` feature, or not Linux).
#[cfg(not(all(target_os = "linux", feature = "sandbox")))]
#[derive(Debug)]
pub struct Prepared {
    _never: std::convert::Infallible,
}

#[cfg(not(all(target_os = "linux", feature = "sandbox")))]
impl Prepared {
    /// The profile's name.
    pub fn name(&self) -> &str {
        match self._never {}
    }

    /// What best effort left out.
    pub fn weakened(&self) -> &[String] {
        match self._never {}
    }

    /// No mount namespace without the `sandbox` feature.
    pub fn can_overlay(&self) -> bool {
        match self._never {}
    }

    /// Never called: no `Prepared` exists without the `sandbox` feature.
    pub fn overlay_read_only(
        &mut self,
        _source: &std::path::Path,
        _target: &std::path::Path,
    ) -> Result<(), SandboxError> {
        match self._never {}
    }

    #[cfg(target_os = "linux")]
    pub(crate) fn take_plan(&mut self, _: &mut tokio::process::Command) -> child::ChildPlan {
        match self._never {}
    }

    #[cfg(target_os = "linux")]
    pub(crate) fn take_private_dir(&mut self) -> Option<std::path::PathBuf> {
        match self._never {}
    }

    #[cfg(target_os = "linux")]
    pub(crate) fn take_record_channel(&mut self) -> Option<kernel_record::Channel> {
        match self._never {}
    }
}

#[cfg(not(all(target_os = "linux", feature = "sandbox")))]
impl Sandbox {
    /// Without the `sandbox` feature (or off Linux) only `none` can run:
    /// every other profile is [`SandboxError::Unavailable`], `best_effort`
    /// included (it runs with nothing, said by [`Support::summary`]).
    pub fn prepare(&self, context: &Context) -> Result<Option<Prepared>, SandboxError> {
        match self.rules(context).map_err(SandboxError::Rules)? {
            None => Ok(None),
            Some(rules) if self.best_effort => {
                let _ = rules;
                Ok(None)
            }
            Some(rules) => Err(SandboxError::Unavailable {
                profile: self.name(),
                missing: Support::detect().missing(&rules),
            }),
        }
    }
}
