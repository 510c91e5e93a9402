//! Stream workers as a fleet operator meets them, against a real
//! `nats-server -js`: a receiver that answers 401 (a rotated secret) gets
//! dead letters that `--dead` lists and `--retry-dead` brings back once it is
//! fixed; workers sharing a durable consumer hand each message over once.

use std::net::TcpListener;
use std::time::Duration;

use crate::durable::Receiver;
use crate::harness::{command, within};
use crate::jetstream::{NatsServer, publish, sigterm, wait_until, worker, worker_home};

const BOUND: Duration = Duration::from_secs(60);

#[test]
fn a_4xx_answer_is_a_dead_letter_that_retry_dead_delivers_once_fixed() {
    let Some(server) = NatsServer::start("dead letters on 4xx") else {
        return;
    };
    let receiver = Receiver::on(TcpListener::bind("127.0.0.1:0").expect("bind"), 401);
    let home = worker_home(&receiver);
    let mut running = worker(&home, &server, &[]);
    let ids = publish(&server, 3);
    let url = server.url();
    let dead = || {
        let run = within(
            command(&home, &["deliver", "--from", &url, "--dead", "--json"]),
            BOUND,
        )
        .expect("--dead hung");
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        run.json()["dead"].as_array().cloned().unwrap_or_default()
    };
    wait_until("three dead letters", || dead().len() >= 3);
    let letters = dead();
    assert_eq!(letters.len(), 3, "{letters:?}");
    for letter in &letters {
        assert_eq!(letter["status"], 401, "{letter}");
        assert_eq!(letter["target"], "ci", "{letter}");
        assert_eq!(letter["reason"], "HTTP 401 (rejected)", "{letter}");
        assert_eq!(letter["subject"], "hermes.hooks.on_session_end", "{letter}");
    }
    // Terminated: no second attempt of the refused messages.
    std::thread::sleep(Duration::from_millis(2500));
    assert!(receiver.seen().values().all(|&count| count == 1));

    // The secret is fixed: each comes back once, and the dead letters are gone.
    receiver.answer(200);
    let retried = within(
        command(&home, &["deliver", "--from", &url, "--retry-dead"]),
        BOUND,
    )
    .expect("--retry-dead hung");
    assert!(
        retried.ok().contains("3 dead letter(s) republished"),
        "{}",
        retried.stdout()
    );
    wait_until("the retried deliveries", || {
        ids.iter()
            .all(|id| receiver.seen().get(id).copied().unwrap_or(0) >= 2)
    });
    assert!(dead().is_empty());
    std::thread::sleep(Duration::from_millis(500));
    let (code, stdout) = sigterm(&mut running);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("3 dead-lettered"), "{stdout}");
    assert!(receiver.seen().values().all(|&count| count == 2));
}

#[test]
fn two_stream_workers_with_a_slow_receiver_hand_each_message_over_once() {
    let Some(server) = NatsServer::start("stream workers, slow receiver") else {
        return;
    };
    let receiver = Receiver::slow(
        TcpListener::bind("127.0.0.1:0").expect("bind"),
        200,
        Duration::from_millis(300),
    );
    let home = worker_home(&receiver);
    let mut first = worker(&home, &server, &[]);
    let mut second = worker(&home, &server, &[]);
    let ids = publish(&server, 16);
    wait_until("every message", || receiver.seen().len() >= ids.len());
    // Longer than the 2 s ack_wait: a message left waiting would come again now.
    std::thread::sleep(Duration::from_millis(2500));
    for running in [&mut first, &mut second] {
        let (code, stdout) = sigterm(running);
        assert_eq!(code, Some(0), "{stdout}");
    }
    let seen = receiver.seen();
    let twice: Vec<_> = seen.iter().filter(|(_, count)| **count > 1).collect();
    assert!(twice.is_empty(), "sent more than once: {twice:?}");
}
