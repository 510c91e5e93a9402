//! `emit --json` lists the webhook deliveries it abandoned at the flush bound,
//! with their own status, instead of leaving them out as if no target wanted the
//! event; and the totals of every delivery, with whether the list is cut.

use std::net::TcpListener;
use std::time::Duration;

use crate::harness::{command, side_by_side, within};
use crate::support::TempHome;

/// A receiver that takes the connection (the kernel's backlog does) and never
/// answers, and a home whose one webhook target is it (`timeout: 30`, longer
/// than the flush bound).
fn silent_target() -> (TcpListener, TempHome) {
    let silent = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = silent.local_addr().expect("addr").port();
    let home = TempHome::new();
    home.config(&format!(
        "hooks:\n  outbound:\n    - name: silent\n      url: http://127.0.0.1:{port}/x\n      \
         events: [on_session_end]\n      timeout: 30\n"
    ));
    (silent, home)
}

#[test]
fn emit_lists_deliveries_abandoned_at_the_flush_bound() {
    let (json_target, json_home) = silent_target();
    let (text_target, text_home) = silent_target();
    // The flush bound is 5 s; 60 s is generous for a loaded machine.
    let (run, text_run) = side_by_side(
        || {
            within(
                command(&json_home, &["emit", "on_session_end", "--json"]),
                Duration::from_secs(60),
            )
            .expect("emit waited past its flush bound")
        },
        || {
            within(
                command(&text_home, &["emit", "on_session_end"]),
                Duration::from_secs(60),
            )
            .expect("emit waited past its flush bound")
        },
    );
    let document = run.json();
    let deliveries = document["deliveries"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(deliveries.len(), 1, "{document}");
    assert_eq!(deliveries[0]["target"], "silent", "{document}");
    assert_eq!(deliveries[0]["event"], "on_session_end", "{document}");
    assert_eq!(deliveries[0]["outcome"]["kind"], "abandoned", "{document}");
    assert_eq!(document["delivery_totals"]["abandoned"], 1, "{document}");
    assert_eq!(document["delivery_totals"]["total"], 1, "{document}");
    assert_eq!(document["deliveries_truncated"], false, "{document}");
    assert_eq!(document["deliveries_omitted"], 0, "{document}");

    let run = text_run;
    assert!(
        run.ok().contains("silent on_session_end abandoned"),
        "{}",
        run.stdout()
    );
    assert!(
        run.stdout().contains("\n  webhook totals: 1 abandoned\n"),
        "{}",
        run.stdout()
    );
    drop((json_target, text_target));
}

#[test]
fn url_secrets_never_reach_emit_output() {
    let home = TempHome::new();
    // Nothing listens on the discard port: the delivery fails and is reported.
    home.config(
        "hooks:\n  outbound:\n    - url: http://user:hunter2@127.0.0.1:9/x?token=sekrit\n      \
         events: [on_session_end]\n      timeout: 1\n",
    );
    for args in [
        &["emit", "on_session_end", "--json"][..],
        &["-vv", "emit", "on_session_end"],
    ] {
        let run = within(command(&home, args), Duration::from_secs(60)).expect("emit hung");
        let all = format!("{}{}", run.stdout(), run.stderr());
        assert_eq!(run.code(), Some(0), "{all}");
        assert!(
            all.contains("127.0.0.1"),
            "{args:?}: the target is not named:\n{all}"
        );
        for secret in ["hunter2", "sekrit"] {
            assert!(!all.contains(secret), "{args:?} printed {secret}:\n{all}");
        }
    }
}

/// A flood: more delivery reports than the list keeps (1,024). The list is
/// cut to the most recent, and the totals still count every delivery.
#[test]
fn replay_of_a_flood_reports_totals_and_that_the_list_is_cut() {
    let line = "{\"event\": \"on_session_end\", \"payload\": {\"session_id\": \"s\"}}\n";
    let flood = |home: &TempHome| {
        let session = home.write("flood.jsonl", &line.repeat(1500));
        session.to_string_lossy().into_owned()
    };
    let (json_target, json_home) = silent_target();
    let (text_target, text_home) = silent_target();
    let (json_session, text_session) = (flood(&json_home), flood(&text_home));
    let (run, text_run) = side_by_side(
        || {
            within(
                command(&json_home, &["replay", &json_session, "--json"]),
                Duration::from_secs(120),
            )
            .expect("replay waited past its flush bound")
        },
        || {
            within(
                command(&text_home, &["replay", &text_session]),
                Duration::from_secs(120),
            )
            .expect("replay waited past its flush bound")
        },
    );
    let document = run
        .stdout()
        .lines()
        .last()
        .and_then(|last| serde_json::from_str::<serde_json::Value>(last).ok())
        .unwrap_or_default();
    let listed = document["deliveries"].as_array().map_or(0, Vec::len);
    assert_eq!(listed, 1024, "{}", run.stderr());
    let totals = &document["delivery_totals"];
    // Every event is either queued (then abandoned at the flush bound, or
    // still in flight) or dropped at the full queue.
    let total = totals["total"].as_u64().unwrap_or_default();
    let dropped = totals["dropped"].as_u64().unwrap_or_default();
    let abandoned = totals["abandoned"].as_u64().unwrap_or_default();
    assert_eq!(dropped + abandoned, 1500, "{totals}");
    assert_eq!(total, 1500, "{totals}");
    assert!(dropped >= 1000, "{totals}");
    assert_eq!(document["deliveries_truncated"], true, "{document}");
    assert_eq!(document["deliveries_omitted"], 1500 - 1024, "{totals}");

    let text = text_run.stdout();
    let totals_line = text
        .lines()
        .find(|line| line.trim_start().starts_with("webhook totals: "))
        .unwrap_or_default();
    assert!(
        totals_line.contains(" dropped")
            && totals_line.ends_with("(listing the last 1024; 476 more not listed)"),
        "{text}"
    );
    drop((json_target, text_target));
}
