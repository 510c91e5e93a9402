//! [`HostOptions`]: what [`super::Host::load`] loads and how.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hermes_hooks_process::runtime::Background;

use crate::consent::{AcceptAll, ConsentPolicy, DenyAll};

/// A mechanism a host can leave out at run time (a Cargo feature leaves it
/// out of the build).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Mechanism {
    /// Native and Python plugins (the host's own closures always register).
    Plugins,
    /// Shell hooks of config.yaml.
    Shell,
    /// Hooks of Claude Code, Codex and Cursor (`hooks_from:`).
    Imported,
    /// Outbound webhooks.
    Outbound,
    /// Gateway hooks (`hooks/<name>/HOOK.yaml`).
    Gateway,
}

impl Mechanism {
    /// Every mechanism, in bus order.
    pub const ALL: [Mechanism; 5] = [
        Mechanism::Plugins,
        Mechanism::Shell,
        Mechanism::Imported,
        Mechanism::Outbound,
        Mechanism::Gateway,
    ];

    /// The name [`super::MechanismStatus::mechanism`] uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Mechanism::Plugins => "plugins",
            Mechanism::Shell => "shell",
            Mechanism::Imported => "imported",
            Mechanism::Outbound => "outbound",
            Mechanism::Gateway => "gateway",
        }
    }
}

/// What [`super::Host::load`] needs to know. Build it with the methods:
/// fields may be added.
#[derive(Clone)]
#[non_exhaustive]
pub struct HostOptions {
    /// The Hermes home; `None`: `$HERMES_HOME`, else `~/.hermes`.
    pub home: Option<PathBuf>,
    /// The project directory of hooks imported with `hooks_from:` (Claude
    /// Code, Codex, Cursor); `None`: the current directory.
    pub project: Option<PathBuf>,
    /// Who decides hooks not in the allowlist yet; default [`DenyAll`].
    pub consent: Arc<dyn ConsentPolicy>,
    /// Mechanisms left out even when the home configures them.
    pub skip: Vec<Mechanism>,
    /// Overrides the plugin callback timeout of config.yaml
    /// (`hook_callback_timeout`); `Some(None)`: unbounded.
    pub callback_timeout: Option<Option<Duration>>,
    /// How long [`super::Host::close`] waits for queued webhook deliveries
    /// and observer queues; default [`DEFAULT_FLUSH_BOUND`].
    pub flush_bound: Duration,
    /// The runtime the mechanisms run on; `None` (the default): the host
    /// starts one of its own ([`Background::start`]) and stops it at
    /// shutdown. One given here is shared, never stopped by the host.
    pub runtime: Option<Background>,
}

/// The default [`HostOptions::flush_bound`]: five seconds, as the `hooks` command waits at exit.
pub const DEFAULT_FLUSH_BOUND: Duration = Duration::from_secs(5);

impl Default for HostOptions {
    fn default() -> HostOptions {
        HostOptions {
            home: None,
            project: None,
            consent: Arc::new(DenyAll),
            skip: Vec::new(),
            callback_timeout: None,
            flush_bound: DEFAULT_FLUSH_BOUND,
            runtime: None,
        }
    }
}

impl fmt::Debug for HostOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostOptions")
            .field("home", &self.home)
            .field("project", &self.project)
            .field("consent", &self.consent)
            .field("skip", &self.skip)
            .field("callback_timeout", &self.callback_timeout)
            .field("flush_bound", &self.flush_bound)
            .field("runtime", &self.runtime)
            .finish()
    }
}

impl HostOptions {
    /// The defaults: the home from the environment, every mechanism the
    /// build has, unapproved hooks denied without asking.
    pub fn new() -> HostOptions {
        HostOptions::default()
    }

    /// Uses `home` as the Hermes home.
    #[must_use]
    pub fn home(mut self, home: impl Into<PathBuf>) -> HostOptions {
        self.home = Some(home.into());
        self
    }

    /// `true`: approves (and records) hooks not allowlisted yet, as
    /// `--accept-hooks` ([`AcceptAll`]); `false`: denies them ([`DenyAll`]).
    #[must_use]
    pub fn accept_hooks(self, accept: bool) -> HostOptions {
        if accept {
            self.consent(AcceptAll)
        } else {
            self.consent(DenyAll)
        }
    }

    /// Decides hooks not allowlisted yet with `policy`.
    #[must_use]
    pub fn consent(mut self, policy: impl ConsentPolicy + 'static) -> HostOptions {
        self.consent = Arc::new(policy);
        self
    }

    /// Uses `project` as the project directory of imported hooks.
    #[must_use]
    pub fn project(mut self, project: impl Into<PathBuf>) -> HostOptions {
        self.project = Some(project.into());
        self
    }

    /// Leaves `mechanism` out.
    #[must_use]
    pub fn skip(mut self, mechanism: Mechanism) -> HostOptions {
        if !self.skip.contains(&mechanism) {
            self.skip.push(mechanism);
        }
        self
    }

    /// Loads only `mechanisms` (of those the build has).
    #[must_use]
    pub fn only(mut self, mechanisms: impl IntoIterator<Item = Mechanism>) -> HostOptions {
        let keep: Vec<Mechanism> = mechanisms.into_iter().collect();
        self.skip = Mechanism::ALL
            .into_iter()
            .filter(|m| !keep.contains(m))
            .collect();
        self
    }

    /// Bounds every plugin callback by `timeout` (`None`: unbounded),
    /// whatever config.yaml's `hook_callback_timeout` says.
    #[must_use]
    pub fn callback_timeout(mut self, timeout: Option<Duration>) -> HostOptions {
        self.callback_timeout = Some(timeout);
        self
    }

    /// Bounds [`super::Host::close`]'s wait for webhook deliveries and
    /// observer queues by `bound`.
    #[must_use]
    pub fn flush_bound(mut self, bound: Duration) -> HostOptions {
        self.flush_bound = bound;
        self
    }

    /// Runs every mechanism on `runtime` (shared with the embedding program
    /// or another host) instead of a runtime of the host's own; the host
    /// never stops it.
    #[must_use]
    pub fn runtime(mut self, runtime: Background) -> HostOptions {
        self.runtime = Some(runtime);
        self
    }

    /// Whether `mechanism` is to be loaded.
    pub fn loads(&self, mechanism: Mechanism) -> bool {
        !self.skip.contains(&mechanism)
    }
}
