//! What a home configures, mechanism by mechanism, found without running any
//! of it in this process: the one inspection API the `hooks` command's
//! `list`, `doctor` and `test` read (feature `inspect`). For each mechanism
//! the hooks with their source file and scope, the sandbox profile, the
//! consent standing and what an approval is bound to, and every problem
//! met, with the `list --json` shape.
//!
//! One inventory for both, read with the runtime's own discovery, so each
//! case is reported as the runtime treats it. [`Probe::Static`] (`list`)
//! reads manifests and the cache only and runs no hook or plugin code;
//! [`Probe::Trial`] (`doctor`) trial-loads every enabled plugin and
//! `handler.py` in child processes, all at once under one bound, and caches
//! what it learnt for `list`. The child is a program the caller names
//! ([`Trials::program`]): the `hooks` binary answers the hidden subcommands
//! [`native::INSPECT_SUBCOMMAND`] and [`TRIAL_PYTHON_SUBCOMMAND`], with
//! [`native::run_child`] and [`trial::run_python_child`].

pub mod cache;
pub mod findings;
pub mod gateway;
pub mod imported;
pub mod interpreter;
pub mod native;
pub mod outbound;
pub mod plugins;
pub mod requires;
pub mod run;
pub mod shell;
pub mod trial;

use std::path::{Path, PathBuf};

use hermes_hooks_core::ConfigWarning;
use hermes_hooks_shell::Allowlist;
use serde_json::{Value, json};

pub use gateway::GatewayRow;
pub use imported::ImportedRow;
pub use outbound::{OutboundRow, redact_url};
pub use plugins::{NATIVE_TRUST_NOTE, PluginKind, PluginRow, PluginState};
pub use shell::ShellHookRow;

pub use trial::{DEFAULT_TRIAL_TIMEOUT, TRIAL_PYTHON_SUBCOMMAND, Trials};

use crate::home::Home;

/// How much the inventory may do to learn what plugins and handlers register.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Probe {
    /// Nothing runs: manifests, and what the cache holds for unchanged files.
    Static,
    /// Trial-load each enabled plugin and `handler.py` in child processes,
    /// in parallel, each bounded by [`Trials::timeout`]; the results are cached.
    Trial(Trials),
}

/// Which part of a home a warning or problem is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// The home directory itself.
    Home,
    /// `config.yaml` outside one mechanism's section.
    Config,
    /// A shell hook (or the allowlist).
    ShellHook,
    /// An outbound webhook target.
    Outbound,
    /// A plugin.
    Plugin,
    /// A gateway hook.
    GatewayHook,
    /// A hook imported from Claude Code, Codex or Cursor (`hooks_from:`).
    ImportedHook,
}

impl Kind {
    /// `home`, `config`, `shell_hook`, `outbound`, `plugin`, `gateway_hook` or `imported_hook`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Home => "home",
            Kind::Config => "config",
            Kind::ShellHook => "shell_hook",
            Kind::Outbound => "outbound",
            Kind::Plugin => "plugin",
            Kind::GatewayHook => "gateway_hook",
            Kind::ImportedHook => "imported_hook",
        }
    }
}

/// A problem found while reading the home: what it is about and the text
/// (raw: escape it before a person reads it).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Warning {
    /// What it is about.
    pub kind: Kind,
    /// The entry: a config key, a plugin or hook name, a file.
    pub name: String,
    /// The message, naming file and field.
    pub message: String,
}

impl Warning {
    fn config(kind: Kind, warning: &ConfigWarning) -> Warning {
        Warning {
            kind,
            name: warning.key.clone(),
            message: warning.to_string(),
        }
    }
}

/// Everything a home configures.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Inventory {
    /// The home directory.
    pub home: PathBuf,
    /// Its `config.yaml`.
    pub config_file: PathBuf,
    /// Shell hooks, in config order.
    pub shell_hooks: Vec<ShellHookRow>,
    /// Outbound webhook targets, in config order.
    pub outbound: Vec<OutboundRow>,
    /// Plugins, sorted by key.
    pub plugins: Vec<PluginRow>,
    /// Gateway hooks, in folder order.
    pub gateway_hooks: Vec<GatewayRow>,
    /// Hooks imported with `hooks_from:`, in file order.
    pub imported_hooks: Vec<ImportedRow>,
    /// Imported handlers of types that cannot run (`prompt`, `agent`, `mcp_tool`).
    pub unsupported_hooks: Vec<hermes_hooks_shell::dialect::Unsupported>,
    /// Claude Code settings files whose `disableAllHooks: true` turned their hooks off.
    pub imported_disabled_by: Vec<PathBuf>,
    /// Imported fail-closed guards that cannot run as written (a file that
    /// does not parse, a matcher that does not compile): each blocks every
    /// call of its event.
    pub imported_guards_down: Vec<hermes_hooks_shell::dialect::GuardDown>,
    /// `config.yaml`'s fail-closed guards that the file dropped without
    /// taking them out: each blocks every call of its event.
    pub shell_guards_down: Vec<hermes_hooks_shell::config::LostGuard>,
    /// Every problem met while reading, in mechanism order.
    pub warnings: Vec<Warning>,
}

impl Inventory {
    /// Reads everything `home` configures; `probe` says whether plugins and
    /// `handler.py` files are trial-loaded (in child processes) or read from
    /// the cache.
    pub fn scan(home: &Home, probe: &Probe) -> Inventory {
        let mut cache = cache::Cache::open(&home.path);
        let mut warnings: Vec<Warning> = home
            .warnings
            .iter()
            .map(|message| Warning {
                kind: Kind::Home,
                name: home.path.display().to_string(),
                message: message.clone(),
            })
            .collect();
        warnings.extend(
            home.config
                .load_warnings()
                .iter()
                .map(|w| Warning::config(Kind::Config, w)),
        );
        let (_, setting_warnings) = home.config.plugin_settings();
        warnings.extend(
            setting_warnings
                .iter()
                .map(|w| Warning::config(Kind::Config, w)),
        );

        let shell = hermes_hooks_shell::parse_config(&home.config);
        warnings.extend(
            shell
                .warnings
                .iter()
                .map(|w| Warning::config(Kind::ShellHook, w)),
        );
        let allowlist = Allowlist::in_home(&home.path);
        let (mut shell_hooks, allowlist_problem) =
            ShellHookRow::scan(&shell.specs, &allowlist, home.config.path());
        for row in &mut shell_hooks {
            row.scope = home.config.scope_of(&row.spec.key());
            row.spec.project = Some(home.project.clone());
        }
        if let Some(message) = allowlist_problem {
            warnings.push(Warning {
                kind: Kind::ShellHook,
                name: allowlist.path().display().to_string(),
                message,
            });
        }

        let (imported_hooks, discovery) = ImportedRow::scan(home, &allowlist);
        warnings.extend(
            discovery
                .warnings
                .iter()
                .map(|w| Warning::config(Kind::ImportedHook, w)),
        );

        let outbound = hermes_hooks_outbound::parse_config(&home.config);
        warnings.extend(outbound.warnings.iter().map(|w| Warning {
            name: outbound_name(home, &w.key),
            ..Warning::config(Kind::Outbound, w)
        }));

        // Plugins and gateway handlers at the same time: doctor's trial loads
        // of both run under the one bound, not one bound after the other.
        let mut gateway_cache = cache.clone();
        let ((plugins, plugin_warnings), (gateway_hooks, gateway_warnings, option_warnings)) =
            std::thread::scope(|scope| {
                let gateway = scope.spawn(|| gateway::scan(home, probe, &mut gateway_cache));
                let plugins = plugins::scan(home, probe, &mut cache);
                let gateway = gateway
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                (plugins, gateway)
            });
        cache.absorb(gateway_cache);
        let config_file = home.config_file().to_owned();
        warnings.extend(plugin_warnings.iter().map(|w| Warning {
            kind: Kind::Plugin,
            // About a config.yaml entry (`plugins.required`): the key; else the plugin folder.
            name: if w.file == config_file {
                w.key.clone()
            } else {
                folder_name(&w.file)
            },
            message: w.to_string(),
        }));

        if (matches!(probe, Probe::Trial(_)) || cache.is_dirty())
            && home.path.is_dir()
            && let Err(error) = cache.save()
        {
            // The verdicts stand; only `list` cannot show them later.
            tracing::warn!(cache = %cache.path().display(), %error, "cannot save the inventory cache");
        }
        warnings.extend(
            option_warnings
                .iter()
                .map(|w| Warning::config(Kind::GatewayHook, w)),
        );
        warnings.extend(gateway_warnings.iter().map(|w| Warning {
            kind: Kind::GatewayHook,
            name: folder_name(&w.path),
            message: w.to_string(),
        }));

        Inventory {
            home: home.path.clone(),
            config_file: home.config_file().to_owned(),
            shell_hooks,
            outbound: outbound
                .targets
                .into_iter()
                .map(|target| OutboundRow { target })
                .collect(),
            plugins,
            gateway_hooks,
            imported_hooks,
            unsupported_hooks: discovery.unsupported,
            imported_disabled_by: discovery.disabled_by,
            imported_guards_down: discovery.guards_down,
            shell_guards_down: shell.lost_guards,
            warnings,
        }
    }

    /// The project files whose command hooks run without a sandbox by
    /// configuration: their approved code has the user's full power
    /// ([`hermes_hooks_shell::unsandboxed::FULL_POWER`]).
    pub fn full_power_sources(&self) -> Vec<PathBuf> {
        hermes_hooks_shell::unsandboxed::full_power_sources(
            self.imported_hooks.iter().map(|row| &row.hook),
        )
    }

    /// The `list --json` document.
    pub fn to_json(&self) -> Value {
        json!({
            "home": self.home.display().to_string(),
            "shell_hooks": self.shell_hooks.iter().map(ShellHookRow::to_json).collect::<Vec<_>>(),
            "outbound": self.outbound.iter().map(OutboundRow::to_json).collect::<Vec<_>>(),
            "plugins": self.plugins.iter().map(PluginRow::to_json).collect::<Vec<_>>(),
            "gateway_hooks": self.gateway_hooks.iter().map(GatewayRow::to_json).collect::<Vec<_>>(),
            "imported_hooks": self
                .imported_hooks
                .iter()
                .map(ImportedRow::to_json)
                .chain(self.unsupported_hooks.iter().map(imported::unsupported_json))
                .collect::<Vec<_>>(),
            "imported_disabled_by": self
                .imported_disabled_by
                .iter()
                .map(|path| path.display().to_string())
                .collect::<Vec<_>>(),
            "imported_unsandboxed": self
                .full_power_sources()
                .iter()
                .map(|path| path.display().to_string())
                .collect::<Vec<_>>(),
            "imported_guards_down": self
                .imported_guards_down
                .iter()
                .map(|guard| json!({
                    "format": guard.dialect.as_str(),
                    "source": guard.source.display().to_string(),
                    "key": guard.key,
                    "blocks": guard.event.as_str(),
                    "reason": guard.reason,
                    "fix": guard.fix,
                }))
                .collect::<Vec<_>>(),
            "shell_guards_down": self
                .shell_guards_down
                .iter()
                .map(|guard| json!({
                    "source": guard.file.display().to_string(),
                    "blocks": guard.event.as_str(),
                    "lost": guard.count,
                    "reason": guard.reason,
                }))
                .collect::<Vec<_>>(),
            "warnings": self.warnings.iter().map(|w| w.message.as_str()).collect::<Vec<_>>(),
        })
    }
}

/// The name of the folder a plugin or gateway-hook warning is about: the
/// folder itself, or the folder of the file named.
fn folder_name(path: &Path) -> String {
    let folder = if path.is_dir() {
        Some(path)
    } else {
        path.parent()
    };
    folder.and_then(Path::file_name).map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The target a `hooks.outbound[<i>]...` key is about: its `name`, else its
/// redacted URL, else the key.
fn outbound_name(home: &Home, key: &str) -> String {
    let index = key
        .strip_prefix("hooks.outbound[")
        .and_then(|rest| rest.split(']').next())
        .and_then(|index| index.parse::<usize>().ok());
    let entry = index.and_then(|index| home.config.get("hooks.outbound")?.get(index));
    let text = |field: &str| {
        entry
            .and_then(|entry| entry.get(field))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    text("name")
        .or_else(|| text("url").map(|url| redact_url(&url)))
        .unwrap_or_else(|| key.to_owned())
}
