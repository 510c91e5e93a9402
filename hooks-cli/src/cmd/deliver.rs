//! `hooks deliver`: a delivery worker for the durable spool of a home. It runs
//! until SIGTERM or SIGINT (then finishes the attempts in flight and exits 0),
//! or with `--once` until nothing is due.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use hermes_hooks_outbound::spool::{Spool, SpoolTable, SpoolWorker, spool_path};
use tokio::signal::unix::{SignalKind, signal};

use hermes_hooks_core::display::escape;

use crate::cli::DeliverArgs;
use crate::output::warn_once;
use crate::payload::UsageError;
use crate::setup::Home;

/// How long a stopping worker waits for its attempts in flight, beyond the
/// longest target timeout.
const STOP_MARGIN: Duration = Duration::from_secs(5);

/// Runs `hooks deliver`.
pub async fn run(home: &Home, args: &DeliverArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    if hermes_hooks_core::home::safe_mode() {
        bail!("HERMES_SAFE_MODE is on: no outbound webhook is delivered");
    }
    let parsed = hermes_hooks_outbound::parse_config(&home.config);
    for warning in &parsed.warnings {
        warn_once(&warning.to_string());
    }
    if let Some(url) = &args.from {
        return from_stream(url, args, &parsed.targets, out).await;
    }
    let path = spool_path(&home.path);
    let spool = Arc::new(Spool::open(&path).with_context(|| "opening the durable spool")?);
    let worker = SpoolWorker::for_targets(spool.clone(), &parsed.targets)?;
    if worker.target_count() == 0 {
        bail!(
            "no outbound target of {} has 'delivery: durable'; nothing to deliver",
            hermes_hooks_cli::show_path(home.config.path())
        );
    }
    warn_orphans(&spool, &worker);
    let longest = parsed
        .targets
        .iter()
        .map(|target| target.timeout)
        .max()
        .unwrap_or_default();
    let shown = hermes_hooks_cli::show_path(&path);
    if args.once {
        let mut totals = (0, 0, 0);
        loop {
            let pass = worker.drain_once().await?;
            if pass.claimed == 0 {
                break;
            }
            totals.0 += pass.delivered;
            totals.1 += pass.retrying;
            totals.2 += pass.dead;
        }
        let (pending, dead) = spool.counts()?;
        writeln!(
            out,
            "{shown}: {} delivered, {} to retry, {} dead-lettered; {pending} pending, {dead} dead",
            totals.0, totals.1, totals.2
        )?;
        return Ok(());
    }
    let mut terminate = signal(SignalKind::terminate()).context("installing a SIGTERM handler")?;
    let mut interrupt = signal(SignalKind::interrupt()).context("installing a SIGINT handler")?;
    let mut worker = worker;
    let _serving = match &args.metrics {
        Some(addr) => {
            let labels = parsed
                .targets
                .iter()
                .filter(|target| worker.serves_target(target))
                .map(hermes_hooks_outbound::TargetSpec::label)
                .collect();
            let metrics = super::metrics::Metrics::new(spool.clone(), labels);
            worker = worker.observe(metrics.observer());
            let listener = tokio::net::TcpListener::bind(addr.as_str())
                .await
                .map_err(|error| UsageError(format!("--metrics {}: {error}", escape(addr))))?;
            let bound = listener
                .local_addr()
                .map(|a| a.to_string())
                .unwrap_or_default();
            eprintln!("hooks deliver: Prometheus metrics on http://{bound}/metrics");
            Some(AbortOnDrop(tokio::spawn(super::metrics::serve(
                listener, metrics,
            ))))
        }
        None => None,
    };
    eprintln!(
        "hooks deliver: delivering {shown} to {} durable target(s); SIGTERM or Ctrl-C to stop",
        worker.target_count()
    );
    let mut handle = worker.spawn(&tokio::runtime::Handle::current());
    tokio::select! {
        _ = terminate.recv() => {}
        _ = interrupt.recv() => {}
    }
    let in_time = handle.stop(longest + STOP_MARGIN).await;
    if !in_time {
        warn_once("a delivery in flight did not finish in time; it is sent again later");
    }
    let (pending, dead) = spool.counts()?;
    writeln!(out, "{shown}: stopped; {pending} pending, {dead} dead")?;
    Ok(())
}

/// Stops the metrics server with the worker.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// `hooks deliver --from URL`: a worker on a JetStream stream, until SIGTERM/SIGINT.
async fn from_stream(
    url: &str,
    args: &DeliverArgs,
    targets: &[hermes_hooks_outbound::TargetSpec],
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    use hermes_hooks_outbound::config::{NatsCredential, NatsTarget, is_nats_url};
    use hermes_hooks_outbound::nats::consumer::{StreamSource, run_stream_worker};
    let shown = hermes_hooks_outbound::redact::redact_url(url);
    if !is_nats_url(url) {
        return Err(UsageError(format!(
            "--from {shown}: expected nats://HOST:PORT or tls://HOST:PORT"
        ))
        .into());
    }
    let credential = |flag: &str, var: &Option<String>| -> anyhow::Result<Option<NatsCredential>> {
        let Some(var) = var else { return Ok(None) };
        match std::env::var(var) {
            Ok(value) if !value.is_empty() => Ok(Some(NatsCredential::new(value))),
            _ => Err(UsageError(format!("{flag} {var}: the variable is not set")).into()),
        }
    };
    let mut source = StreamSource::new(url);
    source.nats = NatsTarget::default()
        .with_subject(args.subject.clone())
        .with_stream(args.stream.clone())
        .with_user(credential("--user-env", &args.user_env)?)
        .with_password(credential("--password-env", &args.password_env)?)
        .with_token(credential("--token-env", &args.token_env)?);
    source.consumer.clone_from(&args.consumer);
    source.max_deliver = args.max_deliver.max(1);
    source.ack_wait = Duration::from_secs(args.ack_wait.max(1));
    if args.dead {
        return list_dead(&source, args.json, out).await;
    }
    if let Some(id) = &args.retry_dead {
        use hermes_hooks_outbound::nats::dead::retry_dead;
        let id = Some(id.as_str()).filter(|id| !id.is_empty());
        let count = retry_dead(&source, id).await?;
        if count == 0
            && let Some(id) = id
        {
            return Err(UsageError(format!("no dead letter of delivery {}", escape(id))).into());
        }
        writeln!(out, "{count} dead letter(s) republished")?;
        return Ok(());
    }
    if !targets.iter().any(|target| target.nats.is_none()) {
        bail!(
            "no HTTP outbound target is configured in this home; nothing to deliver the stream to"
        );
    }
    let mut terminate = signal(SignalKind::terminate()).context("installing a SIGTERM handler")?;
    let mut interrupt = signal(SignalKind::interrupt()).context("installing a SIGINT handler")?;
    eprintln!(
        "hooks deliver: consuming stream {} of {shown} as {}; SIGTERM or Ctrl-C to stop",
        escape(&args.stream),
        escape(&args.consumer)
    );
    let stop = async move {
        tokio::select! {
            _ = terminate.recv() => {}
            _ = interrupt.recv() => {}
        }
    };
    let totals = run_stream_worker(&source, targets, stop).await?;
    writeln!(
        out,
        "stream {}: stopped; {} acked, {} nakked, {} dead-lettered, {} skipped",
        escape(&args.stream),
        totals.acked,
        totals.nakked,
        totals.dead,
        totals.skipped
    )?;
    Ok(())
}

/// `hooks deliver --from URL --dead`: the dead letters, oldest first.
async fn list_dead(
    source: &hermes_hooks_outbound::nats::consumer::StreamSource,
    as_json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let letters = hermes_hooks_outbound::nats::dead::list_dead(source).await?;
    if as_json {
        let document = serde_json::json!({"dead": letters});
        writeln!(out, "{document}")?;
        return Ok(());
    }
    writeln!(out, "{} dead letter(s)", letters.len())?;
    for letter in &letters {
        writeln!(
            out,
            "  #{} {} {} target={} status={} reason={}",
            letter.sequence,
            escape(&letter.event),
            escape(&letter.delivery_id),
            escape(letter.target.as_deref().unwrap_or("(every target)")),
            letter
                .status
                .map_or_else(|| "-".to_owned(), |status| status.to_string()),
            escape(&letter.reason)
        )?;
    }
    Ok(())
}

/// Says (once) when the spool holds deliveries for targets the config no
/// longer has: they stay in the spool, untouched, until the target is back or
/// an operator purges them.
fn warn_orphans(spool: &Spool, worker: &SpoolWorker) {
    let Ok(rows) = spool.list(SpoolTable::Pending) else {
        return;
    };
    let orphans = rows.iter().filter(|row| !worker.serves(row)).count();
    if orphans > 0 {
        warn_once(&format!(
            "{orphans} spooled delivery(ies) belong to targets no longer configured (or renamed); \
             they stay in the spool — see `hooks spool`"
        ));
    }
}
