//! No secret or signature value in logs, Debug output or reports; the log lines
//! of §4.5 are there.

use hermes_hooks_core::HookEvent;
use hermes_hooks_outbound::{Outbound, TargetSpec};

use crate::support::logs::capture;
use crate::support::{Answer, Sink, dead_url};
use crate::*;

const SECRET: &str = "hunter2-very-secret-value";

#[tokio::test(flavor = "current_thread")]
async fn secrets_and_signatures_never_show() {
    let (logs, _guard) = capture();
    let sink = Sink::start(|request, _| match request.path.as_str() {
        "/ok" => Answer::Status(200),
        "/bad" => Answer::Status(400),
        "/down" => Answer::Status(502),
        _ => Answer::Redirect(302, "https://elsewhere.example/x".into()),
    })
    .await;
    let mut targets: Vec<_> = ["/ok", "/bad", "/down", "/moved"]
        .iter()
        .map(|path| signed_target(&sink.url(path), &[HookEvent::OnSessionEnd], SECRET))
        .collect();
    targets.push(signed_target(
        &dead_url().await,
        &[HookEvent::OnSessionEnd],
        SECRET,
    ));
    for target in &mut targets {
        target.standard_webhooks = true;
    }
    let outbound =
        Outbound::new(targets.clone(), options().with_queue_capacity(5)).expect("outbound");
    for _ in 0..3 {
        outbound.enqueue(&session_end());
    }
    assert!(outbound.wait_idle(SOON).await);
    // Everything logged meanwhile (tests beside this one too) for the leaks;
    // the lines naming this test's targets for the lines that must be there.
    let text = logs.text();
    let labels: Vec<String> = targets.iter().map(TargetSpec::label).collect();
    let own = logs.lines_with(&labels);
    let reports = outbound.take_reports();
    let debug = format!("{outbound:?} {targets:?} {reports:?}");

    let signatures: Vec<String> = sink
        .requests()
        .iter()
        .flat_map(|request| {
            ["x-hermes-signature-256", "webhook-signature"]
                .into_iter()
                .filter_map(|name| request.header(name).map(str::to_owned))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(!signatures.is_empty());
    for needle in std::iter::once(SECRET.to_owned()).chain(signatures.iter().map(|s| {
        // The hex or base64 digest itself, without the scheme prefix.
        s.trim_start_matches("sha256=")
            .trim_start_matches("v1,")
            .to_owned()
    })) {
        assert!(!text.contains(&needle), "log leaks {needle}:\n{text}");
        assert!(!debug.contains(&needle), "Debug leaks {needle}");
    }

    // The reference's log lines are there, a registration per target.
    for label in &labels {
        let expected = format!("outbound webhook registered: on_session_end -> {label} (");
        assert!(own.contains(&expected), "missing {expected:?} in:\n{own}");
    }
    for expected in [
        "outbound webhook registered: on_session_end -> ",
        "outbound webhook delivered: on_session_end -> ",
        "outbound webhook rejected (event=on_session_end target=",
        "): HTTP 400 — not retrying",
        "outbound webhook target redirected (event=on_session_end target=",
        "HTTP 302 -> https://elsewhere.example/x — redirects are not followed; update the configured url",
        "outbound webhook delivery failed after 2 attempt(s) (event=on_session_end target=",
        "): HTTP 502",
        "): connection failed",
        "outbound webhook queue full (1 pending) — dropping on_session_end event for ",
    ] {
        assert!(own.contains(expected), "missing {expected:?} in:\n{own}");
    }
}

/// A capture holds every thread's lines, whichever thread logs first: a
/// per-thread capture lost its own `registered` line when a thread without a
/// subscriber had logged that line first (tracing cached "never" for it; a
/// loaded CI run), and never saw the other thread's.
#[test]
fn a_capture_holds_every_threads_lines_whichever_logs_first() {
    let (logs, _guard) = capture();
    // Ports below 1024: no sink of a test beside this one has these labels.
    let register = |url: &'static str| {
        move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            let target = crate::target(url, &[HookEvent::OnSessionEnd]);
            let label = target.label();
            runtime.block_on(async { drop(Outbound::new(vec![target], options())) });
            label
        }
    };
    let elsewhere = std::thread::spawn(register("http://127.0.0.1:7/hook"))
        .join()
        .expect("the other thread");
    let here = register("http://127.0.0.1:13/hook")();
    assert_ne!(elsewhere, here);
    let own = logs.lines_with(&[&elsewhere, &here]);
    for label in [elsewhere, here] {
        let expected = format!("outbound webhook registered: on_session_end -> {label} (");
        assert!(own.contains(&expected), "missing {expected:?} in:\n{own}");
    }
}

/// Credentials inside target URLs: userinfo, query values, secret path segments.
#[tokio::test(flavor = "current_thread")]
async fn url_credentials_never_show() {
    const PASSWORD: &str = "pa55w0rd-in-url";
    const TOKEN: &str = "qtoken-77aa";
    const PATH_SECRET: &str = "XyZ9ab8Cd7Ef6Gh5Ij4Kl3Mn";
    let (logs, _guard) = crate::support::logs::capture_with("trace");
    let sink = Sink::start(|request, _| match request.path.as_str() {
        path if path.starts_with("/ok") => Answer::Status(200),
        path if path.starts_with("/down") => Answer::Status(503),
        _ => Answer::Redirect(
            302,
            format!("https://u:{PASSWORD}@elsewhere.example/?token={TOKEN}"),
        ),
    })
    .await;
    let with_secrets = |path: &str| {
        sink.url(&format!("/{path}/{PATH_SECRET}?token={TOKEN}"))
            .replacen("http://", &format!("http://alice:{PASSWORD}@"), 1)
    };
    let mut targets: Vec<_> = ["ok", "down", "moved"]
        .iter()
        .map(|path| crate::target(&with_secrets(path), &[HookEvent::OnSessionEnd]))
        .collect();
    let dead = dead_url()
        .await
        .replacen("http://", &format!("http://bob:{PASSWORD}@"), 1);
    targets.push(crate::target(
        &format!("{dead}?token={TOKEN}"),
        &[HookEvent::OnSessionEnd],
    ));
    let outbound = Outbound::new(targets.clone(), options()).expect("outbound");
    outbound.enqueue(&session_end());
    assert!(outbound.wait_idle(SOON).await);
    assert_eq!(
        sink.requests().len(),
        4,
        "the ok, moved and two down attempts arrived"
    );

    // A config with the same urls, to see its warnings (a duplicate entry warns with the url).
    let home = tempfile::tempdir().expect("home");
    let entry = serde_json::json!({"url": with_secrets("ok"), "events": ["on_session_end"]});
    let config = hermes_hooks_core::Config::from_value(
        home.path(),
        serde_json::json!({"hooks": {"outbound": [entry.clone(), entry,
            {"url": format!("ftp://x:{PASSWORD}@h/"), "events": ["on_session_end"]},
            {"url": format!("https://x:{PASSWORD}@[::1"), "events": ["on_session_end"]}]}}),
    );
    let parsed = hermes_hooks_outbound::parse_config(&config);
    assert_eq!(parsed.warnings.len(), 5, "{:?}", parsed.warnings);

    let shown = [
        logs.text(),
        format!("{outbound:?} {targets:?}"),
        format!("{:?}", outbound.take_reports()),
        serde_json::to_string(&outbound.take_reports()).unwrap_or_default(),
        format!("{:?}", parsed.warnings),
        targets
            .iter()
            .map(|t| format!("{} {}", t.label(), t.redacted_url()))
            .collect(),
    ];
    for text in &shown {
        for secret in [PASSWORD, TOKEN, PATH_SECRET] {
            assert!(!text.contains(secret), "{secret} leaked in:\n{text}");
        }
    }
    let labels: Vec<String> = targets.iter().map(TargetSpec::label).collect();
    let own = logs.lines_with(&labels);
    assert!(own.contains("target=127.0.0.1:"), "{own}");
}

/// Every optional dependency is named with `dep:` in a feature, so cargo makes
/// no implicit feature of it: the features are exactly the documented ones
/// (`"tokio/rt"` without `"dep:tokio"` once published a feature `tokio`).
#[test]
fn the_features_are_the_documented_ones_and_no_dependency_is_one() {
    let manifest = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .expect("read Cargo.toml");
    let manifest: toml::Table = toml::from_str(&manifest).expect("parse Cargo.toml");
    let features = manifest["features"].as_table().expect("[features]");
    let mut names: Vec<&str> = features.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["default", "durable", "nats", "receiver", "sender"]);
    let enabled: Vec<&str> = features
        .values()
        .filter_map(toml::Value::as_array)
        .flatten()
        .filter_map(toml::Value::as_str)
        .collect();
    let dependencies = manifest["dependencies"].as_table().expect("[dependencies]");
    for (name, spec) in dependencies {
        let optional = spec
            .get("optional")
            .and_then(toml::Value::as_bool)
            .unwrap_or(false);
        if optional {
            let named = format!("dep:{name}");
            assert!(
                enabled.contains(&named.as_str()),
                "optional dependency {name} is never enabled as {named}: cargo makes it a feature"
            );
        }
    }
}
