//! The writer on its own: held rows when the spool cannot be opened, concurrent emitters.

use super::*;

fn row(id: &str) -> OwnedDelivery {
    OwnedDelivery {
        target_key: "k".into(),
        target: "ci".into(),
        event: "on_session_end".into(),
        delivery_id: id.into(),
        document: b"{}".to_vec(),
        max_rows: 100,
    }
}

#[test]
fn a_spool_that_cannot_be_opened_holds_rows_up_to_the_bound_then_writes_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A file where the spool's folder should be: opening fails until it is gone.
    let blocker = dir.path().join("outbound");
    std::fs::write(&blocker, "not a folder").expect("blocker");
    let path = blocker.join("spool.sqlite3");
    let writer = SpoolWriter::start(&path, None, Durability::default(), 2, Box::new(|_| {}))
        .expect("writer");
    assert_eq!(writer.write(row("a")), WriteOutcome::Held);
    assert_eq!(writer.write(row("b")), WriteOutcome::Held);
    assert_eq!(writer.write(row("c")), WriteOutcome::Refused);
    let stats = writer.stats();
    assert_eq!((stats.held, stats.spool_failed), (2, 1));
    assert!(stats.last_error.is_some());

    std::fs::remove_file(&blocker).expect("unblock");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while writer.stats().held > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(writer.write(row("d")), WriteOutcome::Written);
    let stats = writer.stop();
    assert_eq!((stats.held, stats.recovered, stats.written), (0, 2, 3));
    assert_eq!(stats.last_error, None);
    let spool = Spool::open(&path).expect("open");
    let ids: Vec<String> = spool
        .list(crate::spool::SpoolTable::Pending)
        .expect("list")
        .into_iter()
        .map(|row| row.delivery_id)
        .collect();
    assert_eq!(ids, ["a", "b", "d"], "held rows first, in order");
}

#[test]
fn concurrent_writers_each_learn_their_own_outcome() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("spool.sqlite3");
    let spool = Arc::new(Spool::open(&path).expect("open"));
    let writer = SpoolWriter::start(&path, Some(spool.clone()), Durability::default(), 8, {
        Box::new(|_| {})
    })
    .expect("writer");
    std::thread::scope(|scope| {
        for thread in 0..4 {
            let writer = &writer;
            scope.spawn(move || {
                for index in 0..50 {
                    let id = format!("{thread}-{index}");
                    let mut delivery = row(&id);
                    delivery.max_rows = 1000;
                    assert_eq!(writer.write(delivery), WriteOutcome::Written);
                }
            });
        }
    });
    let (pending, _) = spool.counts().expect("counts");
    assert_eq!(pending, 200);
    let stats = writer.stop();
    assert_eq!(stats.written, 200);
}
