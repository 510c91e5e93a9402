//! What this machine offers a sandbox, and what a set of rules would miss.

use std::sync::OnceLock;

use super::rules::Rules;

/// Test-only switch: a comma-separated list of mechanisms to treat as
/// unavailable (`landlock`, `userns`, or `all`), so the block / skip paths
/// run on a machine that has everything.
pub const UNAVAILABLE_ENV: &str = "HERMES_HOOKS_SANDBOX_UNAVAILABLE";

/// What a hook run without a mount namespace can still reach (said by
/// `list` and `doctor`; see `masked.rs`).
const SOCKETS: &str = "the session's and the system's sockets (the session bus, ssh and gpg \
     agents in /run/user/<uid>, docker)";

/// What the kernel (and this build) offers.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Support {
    /// The Landlock ABI (`0`: no Landlock).
    pub landlock_abi: i32,
    /// Whether new user, network and mount namespaces can be entered (root
    /// can without user namespaces); `Err` says why not.
    pub namespaces: Result<(), String>,
    /// Whether this build has the `sandbox` feature and runs on Linux.
    pub built: bool,
}

impl Support {
    /// What this process can do, read once (sysctls and one syscall; no fork).
    pub fn detect() -> &'static Support {
        static SUPPORT: OnceLock<Support> = OnceLock::new();
        SUPPORT.get_or_init(|| {
            let simulated = std::env::var(UNAVAILABLE_ENV).unwrap_or_default();
            let off = |name: &str| {
                simulated
                    .split(',')
                    .map(str::trim)
                    .any(|item| item == name || item == "all")
            };
            let mut support = probe();
            if off("landlock") {
                support.landlock_abi = 0;
            }
            if off("userns") {
                support.namespaces =
                    Err(format!("user namespaces (simulated by {UNAVAILABLE_ENV})"));
            }
            support
        })
    }

    /// What `rules` need that this machine lacks, each a short phrase
    /// (`Landlock`, `TCP rules (Landlock ABI 4)`, `user namespaces: ...`).
    pub fn missing(&self, rules: &Rules) -> Vec<String> {
        let mut missing = Vec::new();
        if !self.built {
            missing.push("a build with the sandbox feature on Linux".to_owned());
            return missing;
        }
        if self.landlock_abi < 1 {
            missing.push("Landlock (filesystem rules)".to_owned());
        }
        if let Err(why) = &self.namespaces
            && (!rules.network || rules.private_tmp || !rules.masked.is_empty())
        {
            missing.push(format!("network and mount namespaces ({why})"));
        }
        if self.namespaces.is_err() && !rules.read_only.is_empty() {
            // Said, as best effort runs the hook anyway: Landlock keeps
            // `.git` read-only then, at a cost.
            missing.push(
                "a read-only mount of .git and the agent settings (Landlock keeps them \
                 read-only instead: no new file or folder at the top level of the project \
                 or of a folder holding them)"
                    .to_owned(),
            );
        }
        if self.namespaces.is_err() && !rules.masked.is_empty() {
            // Said, as best effort runs the hook anyway (`masked.rs`).
            missing.push(format!("a mask over {SOCKETS}: they stay reachable"));
        }
        missing
    }

    /// One line for `hooks doctor`.
    pub fn summary(&self) -> String {
        if !self.built {
            return "sandbox: not built in (no `sandbox` feature or not Linux)".to_owned();
        }
        let landlock = match self.landlock_abi {
            0 => "Landlock: unavailable".to_owned(),
            1..=3 => format!(
                "Landlock: ABI {} (filesystem only, no TCP rules)",
                self.landlock_abi
            ),
            abi => format!("Landlock: ABI {abi}"),
        };
        let namespaces = match &self.namespaces {
            Ok(()) => "namespaces: user/network/mount available".to_owned(),
            Err(why) => format!(
                "namespaces: unavailable ({why}); a project hook run best effort keeps \
                 .git read-only by Landlock, so it cannot create files at the project's top \
                 level; {SOCKETS} stay reachable"
            ),
        };
        format!("{landlock}; {namespaces}")
    }
}

#[cfg(all(target_os = "linux", feature = "sandbox"))]
fn probe() -> Support {
    Support {
        landlock_abi: super::child::landlock_abi(),
        namespaces: namespaces(),
        built: true,
    }
}

#[cfg(all(target_os = "linux", not(feature = "sandbox")))]
fn probe() -> Support {
    Support {
        landlock_abi: super::child::landlock_abi(),
        namespaces: Err("this build has no sandbox feature".to_owned()),
        built: false,
    }
}

#[cfg(not(target_os = "linux"))]
fn probe() -> Support {
    Support {
        landlock_abi: 0,
        namespaces: Err("not Linux".to_owned()),
        built: false,
    }
}

/// Root enters namespaces directly; anyone else needs unprivileged user
/// namespaces, which these sysctls can forbid.
#[cfg(all(target_os = "linux", feature = "sandbox"))]
fn namespaces() -> Result<(), String> {
    if rustix::process::geteuid().is_root() {
        return Ok(());
    }
    let read = |path: &str| {
        std::fs::read_to_string(path)
            .ok()
            .map(|text| text.trim().to_owned())
    };
    if read("/proc/sys/user/max_user_namespaces").as_deref() == Some("0") {
        return Err("user namespaces: user.max_user_namespaces is 0".to_owned());
    }
    if read("/proc/sys/kernel/unprivileged_userns_clone").as_deref() == Some("0") {
        return Err("user namespaces: kernel.unprivileged_userns_clone is 0".to_owned());
    }
    if read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns").as_deref() == Some("1") {
        return Err(
            "user namespaces: kernel.apparmor_restrict_unprivileged_userns is 1".to_owned(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::{Context, Profile, Sandbox};

    #[test]
    fn without_namespaces_the_reachable_sockets_are_said() {
        let rules = Sandbox::new(Profile::Project)
            .rules(&Context::new("/work/p"))
            .unwrap()
            .unwrap();
        let support = Support {
            landlock_abi: 6,
            namespaces: Err("user namespaces: refused".to_owned()),
            built: true,
        };
        let missing = support.missing(&rules).join("; ");
        assert!(missing.contains("/run/user/<uid>"), "{missing}");
        assert!(support.summary().contains("stay reachable"));
    }
}
