//! The spool file on its own: inserts, the bound, claims and leases, settling, retry and purge.

use super::*;

fn spool() -> (tempfile::TempDir, Spool) {
    let dir = tempfile::tempdir().expect("tempdir");
    let spool = Spool::open(&dir.path().join("outbound/spool.sqlite3")).expect("open");
    (dir, spool)
}

fn delivery<'a>(id: &'a str, max_rows: u64) -> NewDelivery<'a> {
    NewDelivery {
        target_key: "k1",
        target: "ci",
        event: "on_session_end",
        delivery_id: id,
        document: br#"{"hook_event_name":"on_session_end"}"#,
        max_rows,
    }
}

const KEYS: fn() -> Vec<String> = || vec!["k1".to_owned()];

#[test]
fn the_file_is_private_and_rows_survive_reopening() {
    let (dir, spool) = spool();
    assert!(spool.insert(&delivery("a", 10)).expect("insert"));
    drop(spool);
    let path = dir.path().join("outbound/spool.sqlite3");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&path).expect("stat").permissions().mode();
    assert_eq!(mode & 0o077, 0, "spool readable by others: {mode:o}");
    let reopened = Spool::open(&path).expect("reopen");
    let rows = reopened.list(SpoolTable::Pending).expect("list");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].delivery_id, "a");
    assert_eq!(rows[0].document, delivery("a", 1).document);
}

#[test]
fn past_max_spool_a_delivery_is_refused() {
    let (_dir, spool) = spool();
    assert!(spool.insert(&delivery("a", 2)).expect("a"));
    assert!(spool.insert(&delivery("b", 2)).expect("b"));
    assert!(
        !spool.insert(&delivery("c", 2)).expect("c"),
        "over the bound"
    );
    assert_eq!(spool.counts().expect("counts"), (2, 0));
}

#[test]
fn a_claimed_row_is_not_claimed_again_until_settled_or_released() {
    let (_dir, spool) = spool();
    spool.insert(&delivery("a", 10)).expect("insert");
    let lease = Duration::from_secs(60);
    let first = spool.claim_due(&KEYS(), lease, 10).expect("claim");
    assert_eq!(first.len(), 1);
    assert!(
        spool
            .claim_due(&KEYS(), lease, 10)
            .expect("again")
            .is_empty()
    );
    assert!(
        spool
            .claim_due(&["other".to_owned()], lease, 10)
            .expect("other")
            .is_empty()
    );
    spool.release(&[first[0].id]).expect("release");
    let again = spool.claim_due(&KEYS(), lease, 10).expect("after release");
    assert_eq!(again.len(), 1);
    spool
        .settle_retry(again[0].id, 1, now_ms() + 60_000, 0, "HTTP 503")
        .expect("retry");
    assert!(
        spool
            .claim_due(&KEYS(), lease, 10)
            .expect("backing off")
            .is_empty()
    );
    let rows = spool.list(SpoolTable::Pending).expect("list");
    assert_eq!(
        (rows[0].attempts, rows[0].last_error.as_deref()),
        (1, Some("HTTP 503"))
    );
    spool.settle_delivered(rows[0].id).expect("delivered");
    assert_eq!(spool.counts().expect("counts"), (0, 0));
}

#[test]
fn dead_letters_come_back_with_retry_and_go_with_purge() {
    let (_dir, spool) = spool();
    spool.insert(&delivery("a", 10)).expect("a");
    spool.insert(&delivery("b", 10)).expect("b");
    let rows = spool
        .claim_due(&KEYS(), Duration::from_secs(60), 10)
        .expect("claim");
    spool
        .settle_dead(rows[0].id, 1, "HTTP 404 (rejected)")
        .expect("dead");
    spool
        .settle_retry(rows[1].id, 1, now_ms() + 600_000, 0, "HTTP 503")
        .expect("later");
    assert_eq!(spool.counts().expect("counts"), (1, 1));
    let dead = spool.list(SpoolTable::Dead).expect("dead");
    assert_eq!(dead[0].delivery_id, "a");
    assert_eq!(dead[0].last_error.as_deref(), Some("HTTP 404 (rejected)"));

    assert_eq!(spool.retry(Some("a")).expect("retry a"), 1);
    assert_eq!(spool.counts().expect("counts"), (2, 0));
    assert_eq!(
        spool
            .claim_due(&KEYS(), Duration::from_secs(60), 10)
            .expect("due")
            .len(),
        1
    );
    assert_eq!(
        spool.retry(None).expect("retry all"),
        1,
        "the leased one is left alone"
    );
    assert_eq!(spool.retry(Some("nope")).expect("unknown"), 0);

    let rows = spool.list(SpoolTable::Pending).expect("list");
    spool
        .settle_dead(rows[0].id, 2, "HTTP 410 (rejected)")
        .expect("dead again");
    assert_eq!(spool.purge(true).expect("purge dead"), 1);
    assert_eq!(spool.counts().expect("counts"), (1, 0));
    assert_eq!(spool.purge(false).expect("purge all"), 1);
    assert_eq!(spool.counts().expect("counts"), (0, 0));
}
