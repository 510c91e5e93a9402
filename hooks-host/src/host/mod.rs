//! One call for a host: load a Hermes home and get the Hermes-compatible bus
//! with every mechanism registered, in the bus order (in-process plugins, shell
//! hooks, outbound webhooks, gateway hooks), its warnings, and a shutdown that
//! flushes and stops what runs in the background.
//!
//! ```no_run
//! # async fn run() -> Result<(), hermes_hooks::host::HostError> {
//! use std::time::Duration;
//! use hermes_hooks::host::{Host, HostOptions};
//!
//! let host = Host::load(HostOptions::new().home("/home/me/.hermes")).await?;
//! for warning in host.warnings() {
//!     eprintln!("warning: {warning}");
//! }
//! // ... host.hooks().emit(&event).await at each lifecycle point ...
//! let report = host.shutdown(Duration::from_secs(5)).await;
//! eprintln!("{} webhook deliveries abandoned", report.abandoned);
//! # Ok(()) }
//! ```

mod options;
mod report;
mod wiring;

use std::sync::Arc;
use std::time::{Duration, Instant};

use hermes_hooks_core::prompt::PromptSections;
use hermes_hooks_core::{Callbacks, ConfigError, Hooks};
#[cfg(feature = "outbound")]
use hermes_hooks_outbound::{Outbound, SpoolLeft};

pub use options::{DEFAULT_FLUSH_BOUND, HostOptions, Mechanism};
pub use report::{FlushReport, MechanismStatus, ShutdownReport};
#[cfg(feature = "shell")]
pub use wiring::ShellOptions;
pub use wiring::{Load, Loaded, Plugins, PluginsOptions};

use crate::home::Home;
use crate::warning::Warning;

/// Why a home could not be loaded at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// `config.yaml` exists but cannot be read, or is not YAML at all.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// Called outside a tokio runtime (webhook lanes run on it).
    #[error("a hooks host must be loaded inside a tokio runtime (webhook lanes run on it)")]
    NoRuntime,
}

/// A loaded home: the bus and what runs behind it.
pub struct Host {
    home: Home,
    hooks: Arc<Hooks>,
    callbacks: Arc<Callbacks>,
    prompt_sections: Arc<PromptSections>,
    #[cfg(feature = "outbound")]
    outbound: Option<Arc<Outbound>>,
    warnings: Vec<Warning>,
    mechanisms: Vec<MechanismStatus>,
    flush_bound: Duration,
    /// The OTLP exporter of hook runs, when the environment asks for one.
    #[cfg(feature = "otlp")]
    otlp: Option<Arc<crate::otlp::OtlpRuns>>,
}

impl Host {
    /// Loads the home `options` names and registers every mechanism, with
    /// the blocking part (reading files, trying plugins and gateway
    /// handlers, starting Python workers, asking the consent policy) on
    /// tokio's blocking pool. Config problems are warnings (see
    /// [`Host::warnings`]); only a config file that cannot be read or is not
    /// YAML is an error. A home that does not exist loads empty, with a warning.
    pub async fn load(options: HostOptions) -> Result<Host, HostError> {
        let handle = tokio::runtime::Handle::try_current().map_err(|_| HostError::NoRuntime)?;
        let inner = handle.clone();
        handle
            .spawn_blocking(move || {
                // Webhook lanes are spawned on the caller's runtime.
                let _entered = inner.enter();
                Host::load_blocking(options)
            })
            .await
            .unwrap_or_else(|error| std::panic::resume_unwind(error.into_panic()))
    }

    /// [`Host::load`] on the calling thread: it blocks (for as long as the
    /// home's plugins and gateway handlers take to load, and a consent policy
    /// takes to answer). Must run inside a tokio runtime, off its async
    /// threads (webhook lanes are spawned on it).
    pub fn load_blocking(options: HostOptions) -> Result<Host, HostError> {
        let home = Home::load(options.home.clone())?;
        Host::from_home(home, &options)
    }

    /// Registers every mechanism of an already loaded `home` (`options.home`
    /// is not read: the home is given). Blocks as [`Host::load_blocking`] does.
    pub fn from_home(home: Home, options: &HostOptions) -> Result<Host, HostError> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(HostError::NoRuntime);
        }
        let mut warnings: Vec<Warning> = home
            .warnings
            .iter()
            .map(|text| Warning::escaped("home", text))
            .collect();
        let mut mechanisms = Vec::with_capacity(4);
        let mut builder = Hooks::builder();
        let config = &home.config;

        let plugins = Plugins::load(
            config,
            PluginsOptions {
                callback_timeout: options.callback_timeout,
                load_plugins: options.loads(Mechanism::Plugins),
            },
        )
        .take(&mut warnings, &mut mechanisms);
        builder = builder.with_shared(plugins.callbacks.clone());

        #[cfg(feature = "shell")]
        {
            use hermes_hooks_shell::{ImportedHooks, ShellHooks};
            let project = options.project.as_deref().unwrap_or(&home.project);
            let shell = ShellOptions::new(options.consent.clone(), project);
            if options.loads(Mechanism::Shell) {
                let hooks = ShellHooks::load(config, shell.clone());
                builder = builder.with(hooks.take(&mut warnings, &mut mechanisms));
            }
            // Hooks of other agents (`hooks_from:`) sit beside the shell hooks they are.
            if options.loads(Mechanism::Imported) && config.get("hooks_from").is_some() {
                let hooks = ImportedHooks::load(config, shell);
                builder = builder.with(hooks.take(&mut warnings, &mut mechanisms));
            }
        }

        #[cfg(feature = "outbound")]
        let outbound = if options.loads(Mechanism::Outbound) {
            let lanes = Outbound::load(config, hermes_hooks_outbound::OutboundOptions::default())
                .take(&mut warnings, &mut mechanisms);
            if let Some(lanes) = &lanes {
                builder = builder.with_shared(lanes.clone());
            }
            lanes
        } else {
            None
        };

        #[cfg(feature = "gateway")]
        if options.loads(Mechanism::Gateway) {
            let gateway = hermes_hooks_gateway::GatewayHooks::load(config, ());
            builder = builder.with(gateway.take(&mut warnings, &mut mechanisms));
        }
        wiring::left_out(config, &mut warnings);

        #[cfg(feature = "otlp")]
        let otlp = match crate::otlp::OtlpRuns::from_env() {
            Some(Ok(exporter)) => {
                let exporter = Arc::new(exporter);
                builder = builder.observe_runs(exporter.clone());
                Some(exporter)
            }
            Some(Err(warning)) => {
                warnings.push(Warning::text("otlp", warning));
                None
            }
            None => None,
        };

        Ok(Host {
            hooks: Arc::new(builder.build()),
            callbacks: plugins.callbacks,
            prompt_sections: plugins.sections,
            home,
            #[cfg(feature = "outbound")]
            outbound,
            warnings,
            mechanisms,
            flush_bound: options.flush_bound,
            #[cfg(feature = "otlp")]
            otlp,
        })
    }

    /// The bus: emit events here.
    pub fn hooks(&self) -> &Hooks {
        &self.hooks
    }

    /// The bus, shared (to hand to tasks).
    pub fn shared_hooks(&self) -> Arc<Hooks> {
        self.hooks.clone()
    }

    /// The in-process callbacks, first in the bus: register the host's own
    /// Rust closures here; they run after the native plugins' hooks.
    pub fn callbacks(&self) -> &Arc<Callbacks> {
        &self.callbacks
    }

    /// The outbound webhooks, when any lane could start (their reports and stats).
    #[cfg(feature = "outbound")]
    pub fn outbound(&self) -> Option<&Arc<Outbound>> {
        self.outbound.as_ref()
    }

    /// The system-prompt sections plugins registered: render them into the
    /// system prompt; the host may register its own.
    pub fn prompt_sections(&self) -> &Arc<PromptSections> {
        &self.prompt_sections
    }

    /// The home that was loaded.
    pub fn home(&self) -> &Home {
        &self.home
    }

    /// Every problem met while loading, in load order, each naming its file
    /// and key; `Display` gives the text escaped for a terminal.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// What each mechanism registered, in bus order.
    pub fn mechanisms(&self) -> &[MechanismStatus] {
        &self.mechanisms
    }

    /// What was registered, e.g. `1 native plugin(s), 2 shell hook(s), ...`.
    pub fn describe(&self) -> String {
        let parts: Vec<&str> = self.mechanisms.iter().map(|m| m.summary.as_str()).collect();
        parts.join(", ")
    }

    /// Waits, at most `timeout`, for background work (queued webhook
    /// deliveries, hook-run spans for an OTLP collector) and reports the
    /// deliveries finished since the last call (the list is capped; the
    /// totals are not) and how many are still pending.
    pub async fn flush(&self, timeout: Duration) -> FlushReport {
        self.hooks.flush(timeout).await;
        #[cfg(feature = "otlp")]
        if let Some(exporter) = self.otlp.clone() {
            // Blocks until the collector answers (bounded by the export timeout).
            let _ = tokio::task::spawn_blocking(move || exporter.flush()).await;
        }
        #[cfg(feature = "outbound")]
        if let Some(outbound) = &self.outbound {
            let batch = outbound.take_report_batch();
            return FlushReport {
                deliveries: batch.reports,
                totals: batch.totals,
                omitted: batch.omitted,
                pending: outbound.stats().pending,
            };
        }
        FlushReport::default()
    }

    /// The bound [`Host::close`] waits for ([`HostOptions::flush_bound`]).
    pub fn flush_bound(&self) -> Duration {
        self.flush_bound
    }

    /// [`Host::shutdown`] bounded by [`HostOptions::flush_bound`].
    pub async fn close(self) -> ShutdownReport {
        let bound = self.flush_bound;
        self.shutdown(bound).await
    }

    /// Flushes (at most `timeout` in all), stops the streaming observer
    /// queues and the gateway workers, and reports what was delivered and
    /// what was abandoned.
    pub async fn shutdown(self, timeout: Duration) -> ShutdownReport {
        let deadline = Instant::now() + timeout;
        let flushed = self.flush(timeout).await;
        #[cfg(feature = "outbound")]
        let spool = self
            .stop_spool(deadline.saturating_duration_since(Instant::now()))
            .await;
        let callbacks = self.callbacks.clone();
        let remaining = deadline.saturating_duration_since(Instant::now());
        // `Callbacks::shutdown` blocks while queues drain: off the async threads.
        let observers_drained = tokio::task::spawn_blocking(move || callbacks.shutdown(remaining))
            .await
            .unwrap_or(false);
        // Dropping the bus stops the gateway workers (with what they started).
        drop(self.hooks);
        ShutdownReport {
            #[cfg(feature = "outbound")]
            deliveries: flushed.deliveries,
            abandoned: flushed.pending,
            #[cfg(feature = "outbound")]
            totals: flushed.totals,
            #[cfg(feature = "outbound")]
            omitted: flushed.omitted,
            observers_drained,
            #[cfg(feature = "outbound")]
            spool,
        }
    }

    /// Stops the background worker of the durable spool (its attempts in
    /// flight get at most `timeout`) and says what the spool still holds;
    /// `None` without a durable target. Deliveries emitted afterwards are
    /// still spooled, and sent by the next host or `hooks deliver`.
    #[cfg(feature = "outbound")]
    pub async fn stop_spool(&self, timeout: Duration) -> Option<SpoolLeft> {
        self.outbound.as_ref()?.stop_spool(timeout).await
    }
}

impl std::fmt::Debug for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Host")
            .field("home", &self.home.path)
            .field("mechanisms", &self.mechanisms)
            .finish_non_exhaustive()
    }
}
