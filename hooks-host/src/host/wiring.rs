//! One constructor shape for every mechanism, in this crate's wiring only:
//! `load_<mechanism>(home, options) -> Loaded<M>`, the mechanism ready to go in
//! the bus, its warnings (raw text naming file and key) and a status line.
//! The mechanism crates' own constructors differ (`discover`, `register`,
//! `from_config`, `discover` returning a pair); this module hides that.

use std::sync::Arc;

use hermes_hooks_core::Callbacks;
use hermes_hooks_core::prompt::PromptSections;
use hermes_hooks_gateway::{GatewayHooks, GatewayOptions};
use hermes_hooks_outbound::{Outbound, OutboundOptions};
use hermes_hooks_shell::{Consent, ImportedHooks, RegisterOptions, ShellHooks};

use super::{HostOptions, MechanismStatus};
use crate::home::Home;

/// A mechanism loaded from a home.
pub(super) struct Loaded<M> {
    /// The mechanism, ready for the bus.
    pub mechanism: M,
    /// Problems met, each naming file and key.
    pub warnings: Vec<String>,
    /// What was registered.
    pub status: MechanismStatus,
}

impl<M> Loaded<M> {
    /// The mechanism, its warnings and status appended to the host's lists
    /// (so both stay in load order).
    pub(super) fn take(self, warnings: &mut Vec<String>, statuses: &mut Vec<MechanismStatus>) -> M {
        warnings.extend(self.warnings);
        statuses.push(self.status);
        self.mechanism
    }
}

/// In-process callbacks with every enabled plugin's hooks registered (native
/// libraries in this process, Python plugins in their worker), in load order,
/// and their system-prompt sections.
pub(super) fn load_plugins(
    home: &Home,
    _options: &HostOptions,
) -> Loaded<(Arc<Callbacks>, Arc<PromptSections>)> {
    let (settings, mut warnings) = home.config.plugin_settings();
    let callbacks = Callbacks::new(settings);
    let sections = Arc::new(PromptSections::new());
    let registration =
        hermes_hooks_plugin::register_plugins(&home.path, &home.config, &callbacks, &sections);
    warnings.extend(registration.warnings.iter().cloned());
    let loaded = registration
        .plugins
        .iter()
        .filter(|info| info.status == hermes_hooks_plugin::PluginStatus::Loaded)
        .count();
    Loaded {
        mechanism: (callbacks, sections),
        warnings: warnings.iter().map(ToString::to_string).collect(),
        status: MechanismStatus {
            mechanism: "plugins",
            registered: loaded,
            failed: registration.failures().count(),
            summary: format!("{loaded} plugin(s)"),
        },
    }
}

/// Shell hooks with consent from `--accept-hooks`, `HERMES_ACCEPT_HOOKS`,
/// `hooks_auto_accept` or a terminal prompt.
pub(super) fn load_shell(home: &Home, options: &HostOptions) -> Loaded<ShellHooks> {
    let consent = Consent::from_environment(options.accept_hooks);
    let registration = ShellHooks::register(&home.config, RegisterOptions::new(consent));
    let registered = registration.hooks.len();
    Loaded {
        mechanism: registration.hooks,
        warnings: registration
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect(),
        status: MechanismStatus {
            mechanism: "shell",
            registered,
            failed: registration.denied.len(),
            summary: format!("{registered} shell hook(s)"),
        },
    }
}

/// Hooks of Claude Code, Codex and Cursor (`hooks_from:`), with the shell
/// hooks' consent, for the project directory of `options` (else the home's).
pub(super) fn load_imported(home: &Home, options: &HostOptions) -> Loaded<ImportedHooks> {
    let consent = Consent::from_environment(options.accept_hooks);
    let project = options.project.as_deref().unwrap_or(&home.project);
    let registration =
        ImportedHooks::register(&home.config, project, RegisterOptions::new(consent));
    let registered = registration.hooks.len();
    let unsupported = registration.discovery.unsupported.len();
    Loaded {
        warnings: registration
            .warnings()
            .iter()
            .map(ToString::to_string)
            .collect(),
        status: MechanismStatus {
            mechanism: "imported",
            registered,
            failed: registration.denied.len() + unsupported,
            summary: format!("{registered} imported hook(s)"),
        },
        mechanism: registration.hooks,
    }
}

/// Outbound webhook lanes on the current tokio runtime (`None` when they cannot start).
pub(super) fn load_outbound(home: &Home, _options: &HostOptions) -> Loaded<Option<Arc<Outbound>>> {
    match Outbound::from_config(&home.config, OutboundOptions::default()) {
        Ok((outbound, warnings)) => {
            let registered = outbound.targets().count();
            Loaded {
                mechanism: Some(Arc::new(outbound)),
                warnings: warnings.iter().map(ToString::to_string).collect(),
                status: MechanismStatus {
                    mechanism: "outbound",
                    registered,
                    failed: 0,
                    summary: format!("{registered} webhook target(s)"),
                },
            }
        }
        Err(error) => Loaded {
            mechanism: None,
            warnings: vec![format!("outbound webhooks disabled: {error}")],
            status: MechanismStatus {
                mechanism: "outbound",
                registered: 0,
                failed: 1,
                summary: "webhooks disabled".to_owned(),
            },
        },
    }
}

/// Gateway hooks with the `gateway_hooks:` settings of config.yaml, each
/// `handler.py` tried once (and run) with the interpreter Hermes uses.
pub(super) fn load_gateway(home: &Home, _options: &HostOptions) -> Loaded<GatewayHooks> {
    let (options, option_warnings) = GatewayOptions::from_config(&home.config);
    let (gateway, discovery) = GatewayHooks::discover(&home.path, options);
    let registered = discovery.hooks.len();
    let warnings = option_warnings
        .iter()
        .map(ToString::to_string)
        .chain(discovery.warnings.iter().map(ToString::to_string))
        .collect();
    Loaded {
        mechanism: gateway,
        warnings,
        status: MechanismStatus {
            mechanism: "gateway",
            registered,
            failed: discovery.warnings.iter().filter(|w| w.skipped).count(),
            summary: format!("{registered} gateway hook(s)"),
        },
    }
}
