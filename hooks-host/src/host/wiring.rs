//! One shape for every mechanism: `X::load(&Config, XOptions) -> Loaded<X>`
//! ([`Load`]), the mechanism ready to go in the bus, its typed warnings and
//! a status line. The mechanism crates' own constructors differ (`discover`,
//! `register`, `from_config`, `discover` returning a pair); this module hides
//! that, and it is the only place the facade calls them.

use std::sync::Arc;

use hermes_hooks_callbacks::Callbacks;
use hermes_hooks_core::Config;
use hermes_hooks_core::prompt::PromptSections;
#[cfg(feature = "gateway")]
use hermes_hooks_gateway::{GatewayHooks, GatewayOptions};
#[cfg(feature = "outbound")]
use hermes_hooks_outbound::{Outbound, OutboundOptions};
#[cfg(any(feature = "shell", feature = "gateway"))]
use hermes_hooks_process::runtime::Background;
#[cfg(feature = "shell")]
use hermes_hooks_shell::{ImportedHooks, RegisterOptions, ShellHooks};

use super::MechanismStatus;
#[cfg(feature = "shell")]
use crate::consent::ConsentPolicy;
use crate::warning::Warning;

/// A mechanism loaded from a home's config.
#[derive(Debug)]
#[non_exhaustive]
pub struct Loaded<M> {
    /// The mechanism, ready for the bus.
    pub mechanism: M,
    /// Problems met, each naming file and key.
    pub warnings: Vec<Warning>,
    /// What was registered.
    pub status: MechanismStatus,
}

impl<M> Loaded<M> {
    /// The mechanism, its warnings and status appended to the host's lists
    /// (so both stay in load order).
    pub fn take(self, warnings: &mut Vec<Warning>, statuses: &mut Vec<MechanismStatus>) -> M {
        warnings.extend(self.warnings);
        statuses.push(self.status);
        self.mechanism
    }
}

/// A mechanism that loads from a home's config with its options.
pub trait Load: Sized {
    /// How it loads.
    type Options;
    /// What it loads into (the mechanism itself, or `None` when it cannot start).
    type Output;

    /// Loads what `config` (and its home, [`Config::home`]) configures.
    fn load(config: &Config, options: Self::Options) -> Loaded<Self::Output>;
}

/// The in-process callbacks (first in the bus) and the system-prompt
/// sections, with every enabled plugin registered in load order.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Plugins {
    /// Plugins' hooks, then the host's own closures.
    pub callbacks: Arc<Callbacks>,
    /// Plugins' system-prompt sections.
    pub sections: Arc<PromptSections>,
}

/// How [`Plugins`] load.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PluginsOptions {
    /// Overrides `hook_callback_timeout`; `Some(None)`: unbounded.
    pub callback_timeout: Option<Option<std::time::Duration>>,
    /// `false`: no plugin is loaded (the host's closures still register).
    pub load_plugins: bool,
    /// How long a callback is skipped after one of its calls timed out.
    pub suppression_window: std::time::Duration,
}

impl Default for PluginsOptions {
    /// No timeout override, no plugin loaded, Hermes's 60 s suppression window.
    fn default() -> Self {
        PluginsOptions {
            callback_timeout: None,
            load_plugins: false,
            suppression_window: super::DEFAULT_SUPPRESSION_WINDOW,
        }
    }
}

impl Load for Plugins {
    type Options = PluginsOptions;
    type Output = Plugins;

    /// Native libraries in this process and Python plugins in their worker,
    /// as the build's features allow.
    fn load(config: &Config, options: PluginsOptions) -> Loaded<Plugins> {
        let (mut settings, config_warnings) = config.plugin_settings();
        if let Some(timeout) = options.callback_timeout {
            settings.callback_timeout = timeout;
        }
        let mut warnings: Vec<Warning> = config_warnings
            .iter()
            .map(|w| Warning::from_config("plugins", w))
            .collect();
        let callbacks = Callbacks::builder(settings)
            .suppression_window(options.suppression_window)
            .build();
        let sections = Arc::new(PromptSections::new());
        let (loaded, failed) = if options.load_plugins {
            register_plugins(config, &callbacks, &sections, &mut warnings)
        } else {
            (0, 0)
        };
        Loaded {
            mechanism: Plugins {
                callbacks,
                sections,
            },
            warnings,
            status: MechanismStatus::new("plugins", loaded, failed, format!("{loaded} plugin(s)")),
        }
    }
}

#[cfg(any(feature = "plugins", feature = "python"))]
fn register_plugins(
    config: &Config,
    callbacks: &Callbacks,
    sections: &Arc<PromptSections>,
    warnings: &mut Vec<Warning>,
) -> (usize, usize) {
    let registration =
        hermes_hooks_plugin::register_plugins(config.home(), config, callbacks, sections);
    warnings.extend(
        registration
            .warnings
            .iter()
            .map(|w| Warning::from_config("plugins", w)),
    );
    let loaded = registration
        .plugins
        .iter()
        .filter(|info| info.status == hermes_hooks_plugin::PluginStatus::Loaded)
        .count();
    (loaded, registration.failures().count())
}

/// Without `plugins` and `python` no plugin loads ([`left_out`] warns when the home enables some).
#[cfg(not(any(feature = "plugins", feature = "python")))]
fn register_plugins(
    _config: &Config,
    _callbacks: &Callbacks,
    _sections: &Arc<PromptSections>,
    _warnings: &mut Vec<Warning>,
) -> (usize, usize) {
    (0, 0)
}

/// How shell and imported hooks load.
#[cfg(feature = "shell")]
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ShellOptions {
    /// Who decides hooks not in the allowlist yet.
    pub consent: Arc<dyn ConsentPolicy>,
    /// The project directory of imported hooks (`CLAUDE_PROJECT_DIR`), and
    /// the one `config.yaml`'s hooks run for (`RegisterOptions::project`).
    pub project: std::path::PathBuf,
    /// Where queued events and `async` imported hooks run (the host's
    /// runtime); `None`: the process default.
    pub runtime: Option<Background>,
    /// Sandbox profiles set per source (see [`crate::HostOptions::sandbox`]).
    pub sandbox: hermes_hooks_shell::sandboxing::SandboxOverrides,
}

#[cfg(feature = "shell")]
impl ShellOptions {
    /// Options deciding with `consent`, imported hooks run for `project`.
    pub fn new(consent: Arc<dyn ConsentPolicy>, project: impl Into<std::path::PathBuf>) -> Self {
        ShellOptions {
            consent,
            project: project.into(),
            runtime: None,
            sandbox: Default::default(),
        }
    }

    /// Runs hooks under the profiles `sandbox` sets per source.
    #[must_use]
    pub fn with_sandbox(
        mut self,
        sandbox: hermes_hooks_shell::sandboxing::SandboxOverrides,
    ) -> Self {
        self.sandbox = sandbox;
        self
    }

    /// Runs queued events and `async` imported hooks on `runtime`.
    #[must_use]
    pub fn with_runtime(mut self, runtime: Background) -> Self {
        self.runtime = Some(runtime);
        self
    }

    /// The shell crate's options: deciding with the policy, on the runtime.
    fn register_options(&self) -> RegisterOptions {
        let mut options = RegisterOptions::new(crate::consent::shell_consent(&self.consent))
            .with_project(self.project.clone());
        options.sandbox = self.sandbox.clone();
        match &self.runtime {
            Some(runtime) => options.with_runtime(runtime.clone()),
            None => options,
        }
    }
}

#[cfg(feature = "shell")]
impl Load for ShellHooks {
    type Options = ShellOptions;
    type Output = ShellHooks;

    /// Shell hooks of config.yaml, each unapproved one decided by the policy.
    fn load(config: &Config, options: ShellOptions) -> Loaded<ShellHooks> {
        let registration = ShellHooks::register(config, options.register_options());
        let registered = registration.hooks.len();
        // A fail-closed hook whose consent failed blocks: a host must see why.
        let mut warnings: Vec<Warning> = registration
            .warnings
            .iter()
            .chain(&registration.refusals)
            .map(|w| Warning::from_config("shell", w))
            .collect();
        warnings.extend(super::unsandboxable::shell(
            &registration.hooks,
            config.path(),
            &options.project,
        ));
        Loaded {
            mechanism: registration.hooks,
            warnings,
            status: MechanismStatus::new(
                "shell",
                registered,
                registration.denied.len(),
                format!("{registered} shell hook(s)"),
            ),
        }
    }
}

#[cfg(feature = "shell")]
impl Load for ImportedHooks {
    type Options = ShellOptions;
    type Output = ImportedHooks;

    /// Hooks of Claude Code, Codex and Cursor (`hooks_from:`), with the
    /// shell hooks' consent. Without the shell crate's `http` feature, each
    /// `type: http` hook is warned about (it fails whenever it runs).
    fn load(config: &Config, options: ShellOptions) -> Loaded<ImportedHooks> {
        let registration =
            ImportedHooks::register(config, &options.project, options.register_options());
        let registered = registration.hooks.len();
        let unsupported = registration.discovery.unsupported.len();
        let mut warnings: Vec<Warning> = registration
            .warnings()
            .iter()
            .chain(&registration.refusals)
            .map(|w| Warning::from_config("imported", w))
            .collect();
        warnings.extend(super::unsandboxable::imported(&registration.hooks));
        if !hermes_hooks_shell::dialect::http::HTTP_HOOKS {
            for hook in registration.hooks.hooks() {
                if matches!(
                    hook.handler,
                    hermes_hooks_shell::dialect::Handler::Http { .. }
                ) {
                    warnings.push(Warning::new(
                        "imported",
                        Some(&hook.source),
                        Some(&hook.key),
                        format!(
                            "{}: {}; it fails each time it runs{}",
                            hook.key,
                            hermes_hooks_shell::dialect::http::NEEDS_HTTP_FEATURE,
                            if hook.fail_closed {
                                " (and blocks: it fails closed)"
                            } else {
                                ""
                            }
                        ),
                    ));
                }
            }
        }
        Loaded {
            warnings,
            status: MechanismStatus::new(
                "imported",
                registered,
                registration.denied.len() + unsupported,
                format!("{registered} imported hook(s)"),
            ),
            mechanism: registration.hooks,
        }
    }
}

#[cfg(feature = "outbound")]
impl Load for Outbound {
    type Options = OutboundOptions;
    type Output = Option<Arc<Outbound>>;

    /// Outbound webhook lanes on the current tokio runtime (the host enters
    /// its own while loading; `None` when they cannot start).
    fn load(config: &Config, options: OutboundOptions) -> Loaded<Option<Arc<Outbound>>> {
        match Outbound::from_config(config, options) {
            Ok((outbound, warnings)) => {
                let registered = outbound.targets().count();
                Loaded {
                    mechanism: Some(Arc::new(outbound)),
                    warnings: warnings
                        .iter()
                        .map(|w| Warning::from_config("outbound", w))
                        .collect(),
                    status: MechanismStatus::new(
                        "outbound",
                        registered,
                        0,
                        format!("{registered} webhook target(s)"),
                    ),
                }
            }
            Err(error) => Loaded {
                mechanism: None,
                warnings: vec![Warning::new(
                    "outbound",
                    None,
                    Some(hermes_hooks_outbound::config::OUTBOUND_KEY),
                    format!("outbound webhooks disabled: {error}"),
                )],
                status: MechanismStatus::new("outbound", 0, 1, "webhooks disabled"),
            },
        }
    }
}

/// How [`GatewayHooks`] load, beside config.yaml's `gateway_hooks:` settings.
#[cfg(feature = "gateway")]
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct GatewayLoadOptions {
    /// The runtime the lanes and trial imports run on (the host's); `None`:
    /// the process default.
    pub runtime: Option<Background>,
    /// Whether each `handler.py` is imported once at load to report a broken
    /// one (see [`GatewayOptions::trial_import`]).
    pub trial_import: bool,
}

#[cfg(feature = "gateway")]
impl GatewayLoadOptions {
    /// On `runtime` (`None`: the process default), with the trial import.
    pub fn new(runtime: Option<Background>) -> GatewayLoadOptions {
        GatewayLoadOptions {
            runtime,
            trial_import: true,
        }
    }

    /// Turns the trial import at load on or off.
    #[must_use]
    pub fn trial_import(mut self, enabled: bool) -> GatewayLoadOptions {
        self.trial_import = enabled;
        self
    }
}

#[cfg(feature = "gateway")]
impl Load for GatewayHooks {
    type Options = GatewayLoadOptions;
    type Output = GatewayHooks;

    /// Gateway hooks with the `gateway_hooks:` settings of config.yaml, each
    /// `handler.py` tried once (and run) with the interpreter Hermes uses,
    /// unless `load.trial_import` is off.
    fn load(config: &Config, load: GatewayLoadOptions) -> Loaded<GatewayHooks> {
        let (mut options, option_warnings) = GatewayOptions::from_config(config);
        if let Some(runtime) = load.runtime {
            options = options.with_runtime(runtime);
        }
        options = options.with_trial_import(load.trial_import);
        let (gateway, discovery) = GatewayHooks::discover(config.home(), options);
        let registered = discovery.hooks.len();
        let warnings = option_warnings
            .iter()
            .map(|w| Warning::from_config("gateway", w))
            .chain(discovery.warnings.iter().map(|w| {
                Warning::with_text(
                    "gateway",
                    Some(&w.path),
                    w.field.as_deref(),
                    w.message.clone(),
                    &w.to_string(),
                )
            }))
            .collect();
        Loaded {
            mechanism: gateway,
            warnings,
            status: MechanismStatus::new(
                "gateway",
                registered,
                discovery.warnings.iter().filter(|w| w.skipped).count(),
                format!("{registered} gateway hook(s)"),
            ),
        }
    }
}

/// A warning for each mechanism the home configures that this build of the
/// facade leaves out (a Cargo feature is off): what the user wrote does not
/// run, and says so, rather than looking like "nothing configured".
#[allow(unused_variables, unused_mut)]
pub(super) fn left_out(config: &Config, warnings: &mut Vec<Warning>) {
    let mut missing = |key: &str, what: &str, feature: &str| {
        let message = format!(
            "{what} configured at '{key}' do not run: this host was built without the `{feature}` feature of hermes-hooks"
        );
        warnings.push(Warning::from_config("host", &config.warning(key, message)));
    };
    #[cfg(not(feature = "shell"))]
    {
        let shell_events = config
            .get("hooks")
            .and_then(|hooks| hooks.as_object())
            .is_some_and(|hooks| hooks.keys().any(|key| key != "outbound"));
        if shell_events {
            missing("hooks", "shell hooks", "shell");
        }
        if config.get("hooks_from").is_some() {
            missing("hooks_from", "imported hooks", "shell");
        }
    }
    #[cfg(not(any(feature = "plugins", feature = "python")))]
    if config
        .get("plugins.enabled")
        .and_then(|enabled| enabled.as_array())
        .is_some_and(|list| !list.is_empty())
    {
        missing("plugins.enabled", "plugins", "plugins` or `python");
    }
    #[cfg(not(feature = "outbound"))]
    if config.get("hooks.outbound").is_some() {
        missing("hooks.outbound", "outbound webhooks", "outbound");
    }
    #[cfg(not(feature = "gateway"))]
    {
        let dir = config.home().join("hooks");
        let any = std::fs::read_dir(&dir)
            .map(|mut entries| {
                entries.any(|entry| entry.is_ok_and(|e| e.path().join("HOOK.yaml").is_file()))
            })
            .unwrap_or(false);
        if any {
            warnings.push(Warning::new(
                "host",
                Some(&dir),
                None,
                "gateway hooks do not run: this host was built without the `gateway` feature of hermes-hooks",
            ));
        }
    }
}
