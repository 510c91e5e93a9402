//! One call for a host: load a Hermes home and get the Hermes-compatible bus
//! with every mechanism registered, in the bus order (in-process plugins, shell
//! hooks, outbound webhooks, gateway hooks), its warnings, and a shutdown that
//! flushes and stops what runs in the background. Everything that runs in the
//! background runs on the host's one [`Background`] runtime, whatever
//! executor (or none) the host program uses.
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
mod register;
mod report;
#[cfg(feature = "shell")]
mod unsandboxable;
mod wiring;

use std::sync::Arc;
use std::time::{Duration, Instant};

use hermes_hooks_callbacks::Callbacks;
use hermes_hooks_core::prompt::PromptSections;
use hermes_hooks_core::{ConfigError, Hooks};
#[cfg(feature = "outbound")]
use hermes_hooks_outbound::{Outbound, SpoolLeft};
use hermes_hooks_process::runtime::{Background, DROP_STOP_BOUND, Stopped};

pub use options::{DEFAULT_FLUSH_BOUND, DEFAULT_SUPPRESSION_WINDOW, HostOptions, Mechanism};
pub use register::CallbackFuture;
pub use report::{FlushReport, MechanismStatus, ShutdownReport};
#[cfg(feature = "gateway")]
pub use wiring::GatewayLoadOptions;
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
    /// The host's background runtime could not start (threads refused).
    #[error("the hooks host's background runtime could not start: {0}")]
    Runtime(#[source] std::io::Error),
}

/// The least time [`Host::shutdown`] gives its runtime to stop (kill the
/// gateway's processes) when flushing took the whole bound.
pub const MIN_RUNTIME_STOP: Duration = Duration::from_secs(1);

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
    /// Where every mechanism runs.
    runtime: Background,
    /// Whether the host started `runtime` (and so stops it).
    owns_runtime: bool,
}

impl Host {
    /// Loads the home `options` names and registers every mechanism, with
    /// the blocking part (reading files, trying plugins and gateway
    /// handlers, starting Python workers, asking the consent policy) on the
    /// host runtime's blocking pool; awaits under any executor. Config
    /// problems are warnings (see [`Host::warnings`]); only a config file
    /// that cannot be read or is not YAML is an error. A home that does not
    /// exist loads empty, with a warning.
    pub async fn load(options: HostOptions) -> Result<Host, HostError> {
        let (runtime, owned) = Host::runtime_for(&options)?;
        let handle = runtime.handle().clone();
        let loading = handle.spawn_blocking(move || {
            let home = Home::load(options.home.clone())?;
            Host::wire(home, &options, runtime, owned)
        });
        match loading.await {
            Ok(host) => host,
            Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
            Err(error) => Err(HostError::Runtime(std::io::Error::other(error))),
        }
    }

    /// [`Host::load`] on the calling thread: it blocks (for as long as the
    /// home's plugins and gateway handlers take to load, and a consent policy
    /// takes to answer). Needs no tokio runtime: a plain `fn main` embeds a
    /// host this way (and emits with [`Host::block_on`]); inside an async
    /// runtime, call it off its async threads.
    pub fn load_blocking(options: HostOptions) -> Result<Host, HostError> {
        let home = Home::load(options.home.clone())?;
        Host::from_home(home, &options)
    }

    /// Registers every mechanism of an already loaded `home` (`options.home`
    /// is not read: the home is given). Blocks as [`Host::load_blocking`] does.
    pub fn from_home(home: Home, options: &HostOptions) -> Result<Host, HostError> {
        let (runtime, owned) = Host::runtime_for(options)?;
        Host::wire(home, options, runtime, owned)
    }

    /// The runtime `options` gives, else a new one of the host's own (`true`).
    fn runtime_for(options: &HostOptions) -> Result<(Background, bool), HostError> {
        match &options.runtime {
            Some(runtime) => Ok((runtime.clone(), false)),
            None => Background::start()
                .map(|runtime| (runtime, true))
                .map_err(HostError::Runtime),
        }
    }

    fn wire(
        home: Home,
        options: &HostOptions,
        runtime: Background,
        owns_runtime: bool,
    ) -> Result<Host, HostError> {
        // What the mechanisms start while they load (webhook lanes, Python
        // workers) lands on the host's runtime.
        let entered = runtime.enter();
        let mut warnings: Vec<Warning> = home
            .warnings
            .iter()
            .map(|text| Warning::escaped("home", text))
            .collect();
        let config = &home.config;
        // What loading the config met (a managed scope ignored or missing: R39-5).
        let loaded = config.load_warnings().iter();
        warnings.extend(loaded.map(|warning| Warning::from_config("home", warning)));
        let (mut mechanisms, mut builder) = (Vec::with_capacity(4), Hooks::builder());

        let plugins = Plugins::load(
            config,
            PluginsOptions {
                callback_timeout: options.callback_timeout,
                load_plugins: options.loads(Mechanism::Plugins),
                suppression_window: options.suppression_window,
            },
        )
        .take(&mut warnings, &mut mechanisms);
        builder = builder.with_shared(plugins.callbacks.clone());

        #[cfg(feature = "shell")]
        {
            use hermes_hooks_shell::{ImportedHooks, ShellHooks};
            let project = options.project.as_deref().unwrap_or(&home.project);
            let project = hermes_hooks_core::home::project_dir(project);
            let shell = ShellOptions::new(options.consent.clone(), project)
                .with_runtime(runtime.clone())
                .with_sandbox(options.sandbox.clone());
            let mut native = None;
            if options.loads(Mechanism::Shell) {
                let hooks =
                    ShellHooks::load(config, shell.clone()).take(&mut warnings, &mut mechanisms);
                native = Some(hooks.clone());
                builder = builder.with(hooks);
            }
            // Hooks of other agents (`hooks_from:`) sit beside the shell hooks they are.
            // (Or that it had, with a fail-closed guard: a list dropped by
            // mistake keeps blocking what it guarded.)
            let imports = hermes_hooks_shell::dialect::discover::imports_or_remembers(config);
            if options.loads(Mechanism::Imported) && imports {
                let hooks = ImportedHooks::load(config, shell).take(&mut warnings, &mut mechanisms);
                // An imported hook's rewrite of a tool call is judged again by
                // the plugins' callbacks and the user's config.yaml guards,
                // which saw only the original.
                let mut others: Vec<Arc<dyn hermes_hooks_core::Dispatcher>> =
                    vec![plugins.callbacks.clone()];
                if let Some(native) = native {
                    others.push(Arc::new(native));
                }
                hooks.recheck_with_all(others);
                builder = builder.with(hooks);
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
            let load = wiring::GatewayLoadOptions::new(Some(runtime.clone()))
                .trial_import(options.trial_imports);
            let gateway = hermes_hooks_gateway::GatewayHooks::load(config, load);
            builder = builder.with(gateway.take(&mut warnings, &mut mechanisms));
        }
        wiring::left_out(config, &mut warnings);
        for observer in &options.run_observers {
            builder = builder.observe_runs(observer.clone());
        }

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

        drop(entered);
        Ok(Host {
            runtime,
            owns_runtime,
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

    /// The in-process callbacks, first in the bus: the plugins' hooks, then
    /// the host's own closures ([`Host::register`]).
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

    /// The runtime every mechanism runs on (the host's own, or the one
    /// [`HostOptions::runtime`] gave).
    pub fn runtime(&self) -> &Background {
        &self.runtime
    }

    /// Runs `future` to completion on the calling thread inside the host's
    /// runtime (its timers, IO and child processes work): how a program
    /// without tokio emits (`host.block_on(host.hooks().emit(&event))`) and
    /// shuts down (`host.block_on(host.shutdown(bound))`). Panics when
    /// called from inside an async runtime, as tokio's `block_on` does:
    /// there, `.await` instead.
    ///
    /// ```no_run
    /// use std::time::Duration;
    /// use hermes_hooks::{Host, HostOptions};
    ///
    /// let host = Host::load_blocking(HostOptions::new())?;
    /// // ... host.block_on(host.hooks().emit(&event)) at each lifecycle point ...
    /// let report = host.block_on(host.shutdown(Duration::from_secs(5)));
    /// eprintln!("{} webhook deliveries abandoned", report.abandoned);
    /// # Ok::<(), hermes_hooks::HostError>(())
    /// ```
    pub fn block_on<F: std::future::Future>(&self, future: F) -> F::Output {
        self.runtime.handle().block_on(future)
    }

    /// Waits, at most `timeout`, for background work (queued webhook
    /// deliveries, hook-run spans for an OTLP collector) and reports the
    /// deliveries finished since the last call (the list is capped; the
    /// totals are not) and how many are still pending. Awaits under any
    /// executor: the waiting runs on the host's runtime.
    pub async fn flush(&self, timeout: Duration) -> FlushReport {
        let hooks = self.hooks.clone();
        // A runtime already stopped has nothing left to flush.
        let _ = self
            .runtime
            .handle()
            .spawn(async move { hooks.flush(timeout).await })
            .await;
        // Waits for the collector at most its flush wait (40 ms), or `timeout` if shorter.
        #[cfg(feature = "otlp")]
        let spans_abandoned = match self.otlp.clone() {
            Some(exporter) => {
                let wait = timeout.min(exporter.flush_wait());
                !self
                    .runtime
                    .handle()
                    .spawn_blocking(move || exporter.flush_within(wait))
                    .await
                    .unwrap_or(false)
            }
            None => false,
        };
        #[cfg(not(feature = "otlp"))]
        let spans_abandoned = false;
        #[cfg(feature = "outbound")]
        if let Some(outbound) = &self.outbound {
            let batch = outbound.take_report_batch();
            return FlushReport {
                deliveries: batch.reports,
                totals: batch.totals,
                omitted: batch.omitted,
                pending: outbound.stats().pending,
                spans_abandoned,
                spool: outbound.spool_status(),
            };
        }
        FlushReport {
            spans_abandoned,
            ..FlushReport::default()
        }
    }

    /// The bound [`Host::close`] waits for ([`HostOptions::flush_bound`]).
    pub fn flush_bound(&self) -> Duration {
        self.flush_bound
    }

    /// [`Host::shutdown`] bounded by [`HostOptions::flush_bound`].
    pub async fn close(&self) -> ShutdownReport {
        let bound = self.flush_bound;
        self.shutdown(bound).await
    }

    /// Flushes (at most `timeout` in all), stops the durable spool's worker
    /// and the streaming observer queues, then stops the host's runtime:
    /// its tasks are dropped, so every gateway worker and handler process is
    /// killed with its tree (given what is left of `timeout`, at least
    /// [`MIN_RUNTIME_STOP`]). Reports what was delivered, what was
    /// abandoned, and whether the stop hit its bound. Call it from outside
    /// the host's runtime (a task of it is dropped by the stop), e.g. with
    /// [`Host::block_on`]. After it the host emits nothing more: its
    /// runtime is stopped (a second call finds nothing left to do).
    pub async fn shutdown(&self, timeout: Duration) -> ShutdownReport {
        // `Duration::MAX` means no bound: a deadline a year away, not an overflow.
        let now = Instant::now();
        let deadline = now
            .checked_add(timeout)
            .unwrap_or_else(|| now + Duration::from_secs(365 * 24 * 3600));
        let flushed = self.flush(timeout).await;
        #[cfg(feature = "outbound")]
        let spool = self
            .stop_spool(deadline.saturating_duration_since(Instant::now()))
            .await;
        let callbacks = self.callbacks.clone();
        let remaining = deadline.saturating_duration_since(Instant::now());
        // `Callbacks::shutdown` blocks while queues drain: off the async threads.
        let observers_drained = self
            .runtime
            .handle()
            .spawn_blocking(move || callbacks.shutdown(remaining))
            .await
            .unwrap_or(false);
        let bound = deadline
            .saturating_duration_since(Instant::now())
            .max(MIN_RUNTIME_STOP);
        let runtime = self.stop_runtime(bound).await;
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
            runtime,
            bound_hit: runtime.is_some_and(|stopped| !stopped.is_clean()),
        }
    }

    /// Stops the host's own runtime (not one it was given) on a thread of
    /// its own, so the awaiting executor is never blocked.
    async fn stop_runtime(&self, bound: Duration) -> Option<Stopped> {
        if !self.owns_runtime {
            return None;
        }
        let runtime = self.runtime.clone();
        let (sender, receiver) = tokio::sync::oneshot::channel();
        let stopping = std::thread::Builder::new()
            .name("hooks-host-stop".into())
            .spawn(move || {
                let _ = sender.send(runtime.shutdown(bound));
            });
        match stopping {
            Ok(_) => Some(receiver.await.unwrap_or(Stopped::NotWaited)),
            // No thread to spare: stop from here (bounded all the same).
            Err(_) => Some(self.runtime.shutdown(bound)),
        }
    }

    /// Stops the background worker of the durable spool (its attempts in
    /// flight get at most `timeout`) and says what the spool still holds;
    /// `None` without a durable target. Deliveries emitted afterwards are
    /// still spooled, and sent by the next host or `hooks deliver`.
    #[cfg(feature = "outbound")]
    pub async fn stop_spool(&self, timeout: Duration) -> Option<SpoolLeft> {
        let outbound = self.outbound.clone()?;
        self.runtime
            .handle()
            .spawn(async move { outbound.stop_spool(timeout).await })
            .await
            .ok()
            .flatten()
    }
}

/// A host dropped without [`Host::shutdown`] still stops its own runtime
/// (bounded by [`DROP_STOP_BOUND`]), so no gateway worker, handler process or
/// runtime thread outlives it.
impl Drop for Host {
    fn drop(&mut self) {
        if self.owns_runtime
            && let Stopped::BoundHit { threads } = self.runtime.shutdown(DROP_STOP_BOUND)
        {
            tracing::warn!(
                "[hooks] the host was dropped with {threads} runtime thread(s) still busy after {DROP_STOP_BOUND:?}"
            );
        }
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
