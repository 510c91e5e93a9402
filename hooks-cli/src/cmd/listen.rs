//! `hooks listen`: a local receiver that verifies webhook signatures and prints
//! each delivery. The secret is read from an environment variable and never printed.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context, bail};
use hermes_hooks_core::display::escape;
use hermes_hooks_outbound::receiver::{ReceivedDelivery, Verification, serve};
use serde_json::json;
use tokio::sync::Notify;

use crate::cli::ListenArgs;

/// Runs `hooks listen` until interrupted (or until `--count` deliveries).
pub async fn run(args: &ListenArgs) -> anyhow::Result<()> {
    let secret = match &args.secret_env {
        Some(var) => match std::env::var(var) {
            Ok(value) if !value.is_empty() => Some(value.into_bytes()),
            _ => {
                bail!("--secret-env {var}: the variable is not set; refusing to listen unverified")
            }
        },
        None => None,
    };
    let address = ("127.0.0.1", args.port);
    let listener = match tokio::net::TcpListener::bind(address).await {
        Ok(listener) => listener,
        Err(error) if error.kind() == std::io::ErrorKind::AddrInUse => {
            bail!("{}", port_taken(args.port))
        }
        Err(error) => {
            return Err(error).with_context(|| format!("listening on 127.0.0.1:{}", args.port));
        }
    };
    let verifying = if secret.is_some() {
        "verifying signatures"
    } else {
        "NOT verifying (no --secret-env)"
    };
    eprintln!(
        "hooks listen: http://127.0.0.1:{}/ ({verifying}); Ctrl-C to stop",
        args.port
    );

    let seen = Arc::new(AtomicU64::new(0));
    let done = Arc::new(Notify::new());
    let json_lines = args.json;
    let limit = args.count;
    let on_delivery = {
        let seen = seen.clone();
        let done = done.clone();
        move |delivery: ReceivedDelivery| {
            // The reader of stdout is gone (`| head -1`): stop, quietly.
            if print_delivery(&delivery, json_lines).is_err() {
                done.notify_one();
                return;
            }
            let count = seen.fetch_add(1, Ordering::SeqCst) + 1;
            if limit.is_some_and(|limit| count >= limit) {
                done.notify_one();
            }
        }
    };
    tokio::select! {
        () = serve(listener, secret, on_delivery) => {}
        () = done.notified() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    Ok(())
}

/// Prints one delivery on stdout; an error means stdout is closed.
/// What to do when `port` is taken: another `hooks listen` (or the demo)
/// may hold it; a different port means the webhook URL must follow.
pub fn port_taken(port: u16) -> String {
    format!(
        "cannot listen on 127.0.0.1:{port}: the port is already in use (another `hooks listen`, \
         or `cargo xtask demo`, may still run: `ss -ltnp 'sport = :{port}'` shows which). \
         Stop it, or pick a free port with `hooks listen --port N` and point the outbound \
         target's `url:` in config.yaml at that port"
    )
}

fn print_delivery(delivery: &ReceivedDelivery, json_lines: bool) -> std::io::Result<()> {
    let (verified, detail) = match &delivery.verification {
        Verification::Verified(scheme) => (true, format!("verified ({scheme:?})")),
        Verification::NoSecret => (false, "unverified (no secret)".to_owned()),
        Verification::Rejected(error) => (false, format!("REJECTED: {error}")),
        // Never call a result this build does not know verified.
        _ => (false, "unverified (unknown result)".to_owned()),
    };
    let mut out = std::io::stdout().lock();
    let line = if json_lines {
        json!({
            "status": delivery.status,
            "event": delivery.event,
            "delivery_id": delivery.delivery_id,
            "verified": verified,
            "verification": detail,
            "body": delivery.body,
        })
        .to_string()
    } else {
        format!(
            "{} {} {} → {} {detail}",
            delivery.remote,
            escape(delivery.event.as_deref().unwrap_or("?")),
            escape(delivery.delivery_id.as_deref().unwrap_or("?")),
            delivery.status
        )
    };
    writeln!(out, "{line}")?;
    out.flush()
}
