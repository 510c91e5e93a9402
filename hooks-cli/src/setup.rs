//! Loading a Hermes home and assembling the mechanisms into one bus, as a host would.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Result;
use hooks_core::callbacks::{CallbackError, Callbacks};
use hooks_core::{Config, Hooks};
use hooks_gateway::{GatewayHooks, GatewayOptions};
use hooks_outbound::outbound::SHUTDOWN_FLUSH_TIMEOUT;
use hooks_outbound::{DeliveryReport, Outbound, OutboundOptions};
use hooks_plugin::NativePlugin;
use hooks_shell::{Consent, RegisterOptions, ShellHooks};
use serde_json::Value;

use crate::cli::Cli;

/// A Hermes home and its config.
pub struct Home {
    /// The home directory.
    pub path: PathBuf,
    /// Its `config.yaml` (empty when the file does not exist).
    pub config: Config,
}

impl Home {
    /// Resolves `--home`, `$HERMES_HOME` or `~/.hermes` and loads its config.
    /// A config file that exists but cannot be read or parsed is an error naming it.
    pub fn load(cli: &Cli) -> Result<Home> {
        let path = hooks_core::home::resolve_home(cli.home.clone());
        let config = Config::load(&path)?;
        Ok(Home { path, config })
    }

    /// The config file's path as the user would type it.
    pub fn config_display(&self) -> String {
        self.config.path().display().to_string()
    }
}

/// Every mechanism of a home, registered as a host would at start-up, in the
/// bus order: in-process plugins, shell hooks, outbound webhooks, gateway hooks.
pub struct Mechanisms {
    /// Outbound webhooks, kept to flush them and read their reports.
    outbound: Option<Arc<Outbound>>,
    /// Warnings from every mechanism's config, in the order found.
    warnings: Vec<String>,
    /// A short description of what was registered.
    counts: Vec<String>,
    /// The bus holding them in order.
    pub hooks: Hooks,
}

impl Mechanisms {
    /// Registers every mechanism of `home`. `accept` is `--accept-hooks`.
    /// Must run inside a tokio runtime (webhook lanes are spawned on it).
    pub fn register(home: &Home, accept: bool) -> Mechanisms {
        let mut warnings = Vec::new();
        let mut counts = Vec::new();
        let mut builder = Hooks::builder();

        let (settings, setting_warnings) = home.config.plugin_settings();
        warnings.extend(setting_warnings.iter().map(ToString::to_string));
        let callbacks = Callbacks::new(settings);
        let plugins = hooks_plugin::discover(&home.path, &home.config);
        warnings.extend(plugins.warnings.iter().map(ToString::to_string));
        register_plugins(&callbacks, &plugins.plugins);
        counts.push(format!("{} native plugin(s)", plugins.plugins.len()));
        builder = builder.with_shared(callbacks);

        let consent = Consent::from_environment(accept);
        let registration = ShellHooks::register(&home.config, RegisterOptions::new(consent));
        warnings.extend(registration.warnings.iter().map(ToString::to_string));
        counts.push(format!("{} shell hook(s)", registration.hooks.len()));
        builder = builder.with(registration.hooks);

        let outbound = match Outbound::from_config(&home.config, OutboundOptions::default()) {
            Ok((outbound, target_warnings)) => {
                warnings.extend(target_warnings.iter().map(ToString::to_string));
                let outbound = Arc::new(outbound);
                counts.push(format!("{} webhook target(s)", outbound.targets().count()));
                builder = builder.with_shared(outbound.clone());
                Some(outbound)
            }
            Err(error) => {
                warnings.push(format!("outbound webhooks disabled: {error}"));
                None
            }
        };

        let (gateway, discovery) = GatewayHooks::discover(&home.path, GatewayOptions::default());
        warnings.extend(discovery.warnings.iter().map(ToString::to_string));
        counts.push(format!("{} gateway hook(s)", discovery.hooks.len()));
        builder = builder.with(gateway);

        Mechanisms {
            outbound,
            warnings,
            counts,
            hooks: builder.build(),
        }
    }

    /// The outbound webhooks, when they are on.
    pub fn outbound(&self) -> Option<&Outbound> {
        self.outbound.as_deref()
    }

    /// Prints the registration warnings on stderr.
    pub fn print_warnings(&self) {
        for warning in &self.warnings {
            crate::output::warn_once(warning);
        }
    }

    /// What was registered, e.g. `2 shell hook(s), 1 webhook target(s), ...`.
    pub fn describe(&self) -> String {
        self.counts.join(", ")
    }

    /// Waits (at most 5 s, as a host at exit) for queued webhook deliveries and
    /// returns every delivery report.
    pub async fn finish(&self) -> Vec<Delivery> {
        self.hooks.flush(SHUTDOWN_FLUSH_TIMEOUT).await;
        let Some(outbound) = &self.outbound else {
            return Vec::new();
        };
        let pending = outbound.stats().pending;
        if pending > 0 {
            crate::output::warn_once(&format!(
                "{pending} webhook delivery(ies) still pending after {}s; abandoned",
                SHUTDOWN_FLUSH_TIMEOUT.as_secs()
            ));
        }
        outbound.take_reports().into_iter().map(Delivery).collect()
    }
}

/// Registers every hook of every loaded plugin, in load order, as in-process callbacks.
fn register_plugins(callbacks: &Callbacks, plugins: &[Arc<NativePlugin>]) {
    for plugin in plugins {
        for hook in plugin.hooks() {
            let owner = plugin.name().to_owned();
            let plugin = plugin.clone();
            callbacks.register(hook, &owner, move |event| {
                plugin
                    .call(event)
                    .map_err(|error| CallbackError::new("PluginError", error.to_string()))
            });
        }
    }
}

/// One webhook delivery's report, as the CLI prints it.
pub struct Delivery(pub DeliveryReport);

impl Delivery {
    /// The report as JSON (no secret or signature is in it).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(&self.0).unwrap_or(Value::Null)
    }

    /// One line: `<target> <event> <outcome> (HTTP <status>, <n> attempt(s), <ms> ms)`.
    pub fn to_text(&self) -> String {
        let report = &self.0;
        let status = report
            .status
            .map_or("no HTTP status".to_owned(), |s| format!("HTTP {s}"));
        let detail = match &report.outcome {
            hooks_outbound::DeliveryOutcome::Failed { error } => format!(": {error}"),
            hooks_outbound::DeliveryOutcome::Redirected { location } => {
                format!(" to {}", location.as_deref().unwrap_or("?"))
            }
            _ => String::new(),
        };
        format!(
            "{} {} {}{detail} ({status}, {} attempt(s), {:.1} ms)",
            report.target,
            report.event,
            report.outcome.as_str(),
            report.attempts,
            report.elapsed.as_secs_f64() * 1000.0
        )
    }
}
