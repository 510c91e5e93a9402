//! The binary's side of the host library: the home named by `--home`, and
//! every mechanism of it registered through [`hermes_hooks::Host`] — the same one
//! call an embedding host makes.

use std::ops::Deref;
use std::sync::Arc;

use anyhow::Result;
use hermes_hooks::{Host, HostOptions, TerminalPrompt};
use hermes_hooks_core::Hooks;
use hermes_hooks_outbound::outbound::SHUTDOWN_FLUSH_TIMEOUT;
use hermes_hooks_outbound::{DeliveryReport, DeliveryTotals, SpoolLeft};
use serde_json::Value;

use crate::cli::Cli;
use crate::output::warn_once;

/// A Hermes home and its config (see [`hermes_hooks_cli::Home`]).
pub struct Home(hermes_hooks_cli::Home);

impl Home {
    /// Resolves `--home`, `$HERMES_HOME` or `~/.hermes` and loads its config;
    /// warns (once) when the home does not exist. A config file that exists
    /// but cannot be read or parsed is an error naming it.
    pub fn load(cli: &Cli) -> Result<Home> {
        let mut home = hermes_hooks_cli::Home::load(cli.home.clone())?;
        if let Some(project) = &cli.project {
            // Relative to where `hooks` runs, made absolute: hooks run with
            // another cwd. One spelling: `~/a/` is `~/a`, approvals included.
            let project = hermes_hooks_core::home::project_dir(project);
            if !project.is_dir() {
                warn_once(&format!(
                    "the project directory {} does not exist; imported hooks find nothing there",
                    hermes_hooks_core::display::escape(&project.display().to_string())
                ));
            }
            home = home.with_project(project);
        }
        for warning in &home.warnings {
            warn_once(warning);
        }
        Ok(Home(home))
    }
}

impl Deref for Home {
    type Target = hermes_hooks_cli::Home;

    fn deref(&self) -> &hermes_hooks_cli::Home {
        &self.0
    }
}

/// Every mechanism of a home, registered as a host would at start-up.
pub struct Mechanisms {
    /// The host; `None` only when it could not start (its error was warned).
    host: Option<Host>,
    /// The bus holding the mechanisms in order.
    pub hooks: Arc<Hooks>,
}

impl Mechanisms {
    /// Registers every mechanism of `home`, starting no gateway handler before
    /// an event reaches it. `accept` is `--accept-hooks`.
    /// The host runs on the binary's one runtime (`main.rs` enters it).
    pub fn register(home: &Home, accept: bool) -> Mechanisms {
        // The terminal's consent (`--accept-hooks`, `HERMES_ACCEPT_HOOKS`,
        // else a y/N prompt on a terminal): the library itself never asks.
        // No gateway handler is imported at load: `emit` and `replay` start
        // only the processes of the hooks their events reach (`hooks list`
        // and `hooks doctor` are where every handler is tried).
        let mut options = HostOptions::new()
            .consent(TerminalPrompt::from_environment(accept))
            .trial_imports(false);
        if let Some(runtime) = hermes_hooks::Background::own_or_default() {
            options = options.runtime(runtime);
        }
        match Host::from_home(home.0.clone(), &options) {
            Ok(host) => Mechanisms {
                hooks: host.shared_hooks(),
                host: Some(host),
            },
            Err(error) => {
                warn_once(&format!("no hook is registered: {error}"));
                Mechanisms {
                    host: None,
                    hooks: Arc::new(Hooks::empty()),
                }
            }
        }
    }

    /// Prints the registration warnings on stderr (each once per run).
    pub fn print_warnings(&self) {
        for warning in self.host.iter().flat_map(Host::warnings) {
            warn_once(&warning.to_string());
        }
    }

    /// What was registered, e.g. `2 shell hook(s), 1 webhook target(s), ...`.
    pub fn describe(&self) -> String {
        self.host.as_ref().map(Host::describe).unwrap_or_default()
    }

    /// Waits (at most 5 s, as a host at exit) for queued webhook deliveries and
    /// returns the delivery reports (the most recent, when there are more than
    /// the list keeps) with the totals of all of them.
    pub async fn finish(&self) -> Deliveries {
        let Some(host) = &self.host else {
            return Deliveries::default();
        };
        // The flush also waits (within the same bound) until every durable
        // row this process spooled was attempted once.
        let flushed = host.flush(SHUTDOWN_FLUSH_TIMEOUT).await;
        let pending = flushed.pending;
        if flushed.spans_abandoned {
            warn_once(
                "OTLP export of hook runs abandoned: the collector (OTEL_EXPORTER_OTLP_ENDPOINT) \
                 did not answer in time (HOOKS_OTLP_WAIT_MS, default 40); the spans of this run are dropped",
            );
        }
        // The spool's background worker gets a second for what it has in
        // flight; the rest stays spooled for the next host or `hooks deliver`.
        let spool = host.stop_spool(std::time::Duration::from_secs(1)).await;
        if pending > 0 {
            warn_once(&format!(
                "{pending} webhook delivery(ies) still pending after {}s; abandoned",
                SHUTDOWN_FLUSH_TIMEOUT.as_secs()
            ));
        }
        if let Some(left) = &spool
            && left.spool_failed > 0
        {
            warn_once(&format!(
                "{} durable delivery(ies) lost: the spool could not be written (spool_failed; see `hooks doctor`)",
                left.spool_failed
            ));
        }
        Deliveries {
            list: flushed.deliveries.into_iter().map(Delivery).collect(),
            totals: flushed.totals,
            omitted: flushed.omitted,
            spool,
        }
    }
}

/// What became of an invocation's webhook deliveries: the listed reports, and
/// the totals of all of them. A struct, so later delivery kinds (durable
/// spools, other transports) add fields rather than change a shape.
#[derive(Default)]
pub struct Deliveries {
    /// The reports, in finishing order (the most recent when `omitted > 0`).
    pub list: Vec<Delivery>,
    /// Every report of the invocation, by outcome, listed or not.
    pub totals: DeliveryTotals,
    /// Reports not in `list`.
    pub omitted: u64,
    /// With a durable target: what this invocation's spooled rows came to.
    pub spool: Option<SpoolLeft>,
}

impl Deliveries {
    /// Whether there is nothing to report.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty() && self.totals.total() == 0 && self.spool.is_none()
    }

    /// The JSON fields `emit --json` and `replay --json` add beside the
    /// `deliveries` list: `delivery_totals` (by outcome, and `total`),
    /// `deliveries_truncated` and `deliveries_omitted`; with a durable
    /// target, `spool` (what this invocation's spooled rows came to:
    /// `written`, `delivered`, `dead`, `retrying`, `unattempted`, `held`,
    /// `recovered`, `spool_failed`, `write_errors`, `left` for `hooks
    /// deliver`, and the spool's `pending`/`dead` totals).
    pub fn summary_json(&self) -> Vec<(&'static str, Value)> {
        let mut totals = serde_json::to_value(self.totals).unwrap_or(Value::Null);
        if let Some(object) = totals.as_object_mut() {
            object.insert("total".to_owned(), Value::from(self.totals.total()));
        }
        let mut fields = vec![
            ("delivery_totals", totals),
            ("deliveries_truncated", Value::from(self.omitted > 0)),
            ("deliveries_omitted", Value::from(self.omitted)),
        ];
        if let Some(left) = &self.spool {
            let mut spool = serde_json::to_value(left.status).unwrap_or(Value::Null);
            if let Some(object) = spool.as_object_mut() {
                object.insert("left".to_owned(), Value::from(left.status.left()));
                object.insert("pending_total".to_owned(), Value::from(left.pending));
                object.insert("dead_total".to_owned(), Value::from(left.dead));
            }
            fields.push(("spool", spool));
        }
        fields
    }

    /// The totals line of the text output: `webhook totals: 3 delivered, 1
    /// dropped`, with `(listing the last N)` when the list is cut.
    pub fn totals_text(&self) -> String {
        let mut text = format!("webhook totals: {}", self.totals.to_text());
        if self.omitted > 0 {
            text.push_str(&format!(
                " (listing the last {}; {} more not listed)",
                self.list.len(),
                self.omitted
            ));
        }
        if let Some(left) = &self.spool {
            let status = &left.status;
            text.push_str(&format!(
                "\n  spool: {} written, {} delivered and {} dead-lettered before exit; {} left for `hooks deliver`",
                status.written,
                status.delivered,
                status.dead,
                status.left()
            ));
            if status.spool_failed > 0 || status.held > 0 {
                text.push_str(&format!(
                    " ({} lost: the spool could not be written — spool_failed)",
                    status.spool_failed
                ));
            }
        }
        text
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
            hermes_hooks_outbound::DeliveryOutcome::Failed { error } => format!(": {error}"),
            hermes_hooks_outbound::DeliveryOutcome::Redirected { location } => {
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
