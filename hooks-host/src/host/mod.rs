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
//! let host = Host::load(HostOptions::new().home("/home/me/.hermes"))?;
//! for warning in host.warnings() {
//!     eprintln!("warning: {warning}");
//! }
//! // ... host.hooks().emit(&event).await at each lifecycle point ...
//! let report = host.shutdown(Duration::from_secs(5)).await;
//! eprintln!("{} webhook deliveries, {} abandoned", report.deliveries.len(), report.abandoned);
//! if let Some(spool) = report.spool {
//!     eprintln!("{} durable deliveries left in the spool", spool.pending);
//! }
//! # Ok(()) }
//! ```

mod wiring;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hermes_hooks_core::prompt::PromptSections;
use hermes_hooks_core::{Callbacks, ConfigError, Hooks};
use hermes_hooks_outbound::{DeliveryReport, DeliveryTotals, Outbound, ReportBatch, SpoolLeft};

use crate::home::Home;

/// What [`Host::load`] needs to know.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct HostOptions {
    /// The Hermes home; `None`: `$HERMES_HOME`, else `~/.hermes`.
    pub home: Option<PathBuf>,
    /// Approve shell hooks that are not allowlisted yet (as `--accept-hooks`;
    /// `HERMES_ACCEPT_HOOKS=1` and `hooks_auto_accept: true` also approve).
    pub accept_hooks: bool,
    /// The project directory of hooks imported with `hooks_from:` (Claude
    /// Code, Codex, Cursor); `None`: the current directory.
    pub project: Option<PathBuf>,
}

impl HostOptions {
    /// The defaults: the home from the environment, no blanket approval.
    pub fn new() -> HostOptions {
        HostOptions::default()
    }

    /// Uses `home` as the Hermes home.
    #[must_use]
    pub fn home(mut self, home: impl Into<PathBuf>) -> HostOptions {
        self.home = Some(home.into());
        self
    }

    /// Approves shell hooks not allowlisted yet (and records the approval).
    #[must_use]
    pub fn accept_hooks(mut self, accept: bool) -> HostOptions {
        self.accept_hooks = accept;
        self
    }

    /// Uses `project` as the project directory of imported hooks.
    #[must_use]
    pub fn project(mut self, project: impl Into<PathBuf>) -> HostOptions {
        self.project = Some(project.into());
        self
    }
}

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

/// What one mechanism registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MechanismStatus {
    /// `plugins`, `shell`, `imported` (with `hooks_from:`), `outbound` or `gateway`.
    pub mechanism: &'static str,
    /// How many were registered (plugins, hooks, targets).
    pub registered: usize,
    /// How many were configured but left out (failed to load, refused consent, skipped).
    pub failed: usize,
    /// A short description, e.g. `2 shell hook(s)`.
    pub summary: String,
}

/// What [`Host::shutdown`] did.
#[derive(Debug, Clone, Default)]
pub struct ShutdownReport {
    /// Every webhook delivery report not taken before.
    pub deliveries: Vec<DeliveryReport>,
    /// Webhook deliveries still queued or in flight at the bound: abandoned.
    pub abandoned: u64,
    /// Every delivery report since the last take, by outcome, listed or not.
    pub totals: DeliveryTotals,
    /// Reports not in `deliveries` (the capped list let the oldest go).
    pub omitted: u64,
    /// Whether every streaming observer queue drained in time.
    pub observers_drained: bool,
    /// With a `delivery: durable` target: what the spool still holds after
    /// its background worker stopped (the next host of the home, or
    /// `hooks deliver`, sends it).
    pub spool: Option<SpoolLeft>,
}

/// A loaded home: the bus and what runs behind it.
pub struct Host {
    home: Home,
    hooks: Arc<Hooks>,
    callbacks: Arc<Callbacks>,
    prompt_sections: Arc<PromptSections>,
    outbound: Option<Arc<Outbound>>,
    warnings: Vec<String>,
    mechanisms: Vec<MechanismStatus>,
    /// The OTLP exporter of hook runs, when the environment asks for one.
    #[cfg(feature = "otlp")]
    otlp: Option<Arc<crate::otlp::OtlpRuns>>,
}

impl Host {
    /// Loads the home `options` names and registers every mechanism. Must run
    /// inside a tokio runtime. Config problems are warnings (see
    /// [`Host::warnings`]); only a config file that cannot be read or is not
    /// YAML is an error. A home that does not exist loads empty, with a warning.
    pub fn load(options: HostOptions) -> Result<Host, HostError> {
        let home = Home::load(options.home.clone())?;
        Host::from_home(home, &options)
    }

    /// Registers every mechanism of an already loaded `home` (`options.home`
    /// is not read: the home is given).
    pub fn from_home(home: Home, options: &HostOptions) -> Result<Host, HostError> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(HostError::NoRuntime);
        }
        let mut warnings: Vec<String> = home.warnings.clone();
        let mut mechanisms = Vec::with_capacity(4);
        let mut builder = Hooks::builder();

        let (callbacks, prompt_sections) =
            wiring::load_plugins(&home, options).take(&mut warnings, &mut mechanisms);
        builder = builder.with_shared(callbacks.clone());

        let shell = wiring::load_shell(&home, options).take(&mut warnings, &mut mechanisms);
        builder = builder.with(shell);

        // Hooks of other agents (`hooks_from:`) sit beside the shell hooks they are.
        if home.config.get("hooks_from").is_some() {
            let imported =
                wiring::load_imported(&home, options).take(&mut warnings, &mut mechanisms);
            builder = builder.with(imported);
        }

        let outbound = wiring::load_outbound(&home, options).take(&mut warnings, &mut mechanisms);
        if let Some(lanes) = &outbound {
            builder = builder.with_shared(lanes.clone());
        }

        let gateway = wiring::load_gateway(&home, options).take(&mut warnings, &mut mechanisms);
        builder = builder.with(gateway);

        #[cfg(feature = "otlp")]
        let otlp = match crate::otlp::OtlpRuns::from_env() {
            Some(Ok(exporter)) => {
                let exporter = Arc::new(exporter);
                builder = builder.observe_runs(exporter.clone());
                Some(exporter)
            }
            Some(Err(warning)) => {
                warnings.push(warning);
                None
            }
            None => None,
        };

        Ok(Host {
            home,
            hooks: Arc::new(builder.build()),
            callbacks,
            prompt_sections,
            outbound,
            warnings: warnings
                .iter()
                .map(|warning| hermes_hooks_core::display::escape(warning).into_owned())
                .collect(),
            mechanisms,
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

    /// Every problem met while loading, each naming file and key, escaped for display.
    pub fn warnings(&self) -> &[String] {
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
    /// deliveries, hook-run spans for an OTLP collector) and returns the delivery reports finished since the last
    /// call, plus how many deliveries are still pending.
    pub async fn flush(&self, timeout: Duration) -> (Vec<DeliveryReport>, u64) {
        let (batch, pending) = self.flush_batch(timeout).await;
        (batch.reports, pending)
    }

    /// [`Host::flush`], with the totals of every report since the last take
    /// (the list is capped; the totals are not) and how many it leaves out.
    pub async fn flush_batch(&self, timeout: Duration) -> (ReportBatch, u64) {
        self.hooks.flush(timeout).await;
        #[cfg(feature = "otlp")]
        if let Some(exporter) = self.otlp.clone() {
            // Blocks until the collector answers (bounded by the export timeout).
            let _ = tokio::task::spawn_blocking(move || exporter.flush()).await;
        }
        match &self.outbound {
            Some(outbound) => (outbound.take_report_batch(), outbound.stats().pending),
            None => (ReportBatch::default(), 0),
        }
    }

    /// Flushes (at most `timeout` in all), stops the streaming observer
    /// queues and the gateway workers, and reports what was delivered and
    /// what was abandoned.
    pub async fn shutdown(self, timeout: Duration) -> ShutdownReport {
        let deadline = Instant::now() + timeout;
        let (batch, abandoned) = self.flush_batch(timeout).await;
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
            deliveries: batch.reports,
            abandoned,
            totals: batch.totals,
            omitted: batch.omitted,
            observers_drained,
            spool,
        }
    }

    /// Stops the background worker of the durable spool (its attempts in
    /// flight get at most `timeout`) and says what the spool still holds;
    /// `None` without a durable target. Deliveries emitted afterwards are
    /// still spooled, and sent by the next host or `hooks deliver`.
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
