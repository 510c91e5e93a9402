//! [`RegisterOptions`]: how shell and imported hooks are registered.

use hermes_hooks_core::wire::WireContext;
use hermes_hooks_process::runtime::Background;

use crate::ShellHookSpec;
use crate::consent::Consent;
use crate::queue::DEFAULT_QUEUE_CAPACITY;

/// How [`crate::ShellHooks::register`] decides and runs.
#[derive(Debug)]
#[non_exhaustive]
pub struct RegisterOptions {
    /// How unapproved hooks are decided.
    pub consent: Consent,
    /// The working directory and profile reported to hooks.
    pub context: WireContext,
    /// `HERMES_SAFE_MODE`: register nothing.
    pub safe_mode: bool,
    /// Events waiting per hook of a queued event before the oldest is dropped.
    pub queue_capacity: usize,
    /// The runtime queued events and `async` imported hooks run on (a
    /// host's); `None`: [`Background::process_default`].
    pub runtime: Option<Background>,
    /// Sandbox profiles the host sets per source, over config.yaml's.
    pub sandbox: crate::sandboxing::SandboxOverrides,
    /// The project `config.yaml`'s hooks run for (`hooks --project`, a
    /// host's); `None`: the folder each runs in.
    pub project: Option<std::path::PathBuf>,
}

impl RegisterOptions {
    /// Options with `consent`, the current directory and `default` profile,
    /// and safe mode read from `HERMES_SAFE_MODE`.
    pub fn new(consent: Consent) -> Self {
        RegisterOptions {
            consent,
            context: WireContext::current(),
            safe_mode: hermes_hooks_core::home::safe_mode(),
            queue_capacity: DEFAULT_QUEUE_CAPACITY,
            runtime: None,
            sandbox: crate::sandboxing::SandboxOverrides::default(),
            project: None,
        }
    }

    /// Runs `config.yaml`'s hooks for `project` (see [`ShellHookSpec::project`]).
    #[must_use]
    pub fn with_project(mut self, project: impl Into<std::path::PathBuf>) -> Self {
        self.project = Some(project.into());
        self
    }

    /// What the host sets on each of `config.yaml`'s hooks: its sandbox
    /// profile, its project.
    pub(crate) fn apply_to_spec(&self, spec: &mut ShellHookSpec) {
        self.sandbox.apply_to_spec(spec);
        if self.project.is_some() {
            spec.project.clone_from(&self.project);
        }
    }

    /// Runs queued events and `async` imported hooks on `runtime` (a host's)
    /// instead of the process default.
    #[must_use]
    pub fn with_runtime(mut self, runtime: Background) -> Self {
        self.runtime = Some(runtime);
        self
    }

    /// Sets the working directory and profile reported to hooks.
    #[must_use]
    pub fn with_context(mut self, context: WireContext) -> Self {
        self.context = context;
        self
    }

    /// Sets safe mode (register nothing).
    #[must_use]
    pub fn with_safe_mode(mut self, on: bool) -> Self {
        self.safe_mode = on;
        self
    }

    /// Sets the events waiting per hook of a queued event before the oldest is dropped.
    #[must_use]
    pub fn with_queue_capacity(mut self, capacity: usize) -> Self {
        self.queue_capacity = capacity;
        self
    }
}
