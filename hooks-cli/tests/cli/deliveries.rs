//! `emit --json` lists the webhook deliveries it abandoned at the flush bound,
//! with their own status, instead of leaving them out as if no target wanted the event.

use std::time::Duration;

use crate::harness::{command, within};
use crate::support::TempHome;

#[test]
fn emit_lists_deliveries_abandoned_at_the_flush_bound() {
    // A receiver that takes the connection (the kernel's backlog does) and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = silent.local_addr().expect("addr").port();
    let home = TempHome::new();
    home.config(&format!(
        "hooks:\n  outbound:\n    - name: silent\n      url: http://127.0.0.1:{port}/x\n      \
         events: [on_session_end]\n      timeout: 30\n"
    ));
    // The flush bound is 5 s; 60 s is generous for a loaded machine.
    let run = within(
        command(&home, &["emit", "on_session_end", "--json"]),
        Duration::from_secs(60),
    )
    .expect("emit waited past its flush bound");
    let document = run.json();
    let deliveries = document["deliveries"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(deliveries.len(), 1, "{document}");
    assert_eq!(deliveries[0]["target"], "silent", "{document}");
    assert_eq!(deliveries[0]["event"], "on_session_end", "{document}");
    assert_eq!(deliveries[0]["outcome"]["kind"], "abandoned", "{document}");

    let run = within(
        command(&home, &["emit", "on_session_end"]),
        Duration::from_secs(60),
    )
    .expect("emit waited past its flush bound");
    assert!(
        run.ok().contains("silent on_session_end abandoned"),
        "{}",
        run.stdout()
    );
    drop(silent);
}
