//! The bus's delivery order and its on-the-spot fast path.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use futures::FutureExt;
use serde_json::json;

use super::Hooks;
use crate::catalog::{GATEWAY_EVENTS, HookEvent};
use crate::dispatch::Dispatcher;
use crate::event::{Event, EventName};
use crate::merge::merge;
use crate::outcome::Outcome;
use crate::reply::Reply;

type Log = Arc<Mutex<Vec<String>>>;

/// A mechanism that records how it was called; `waits` makes it decline the
/// on-the-spot path and yield once inside `dispatch`.
struct Recorder {
    label: &'static str,
    waits: bool,
    log: Log,
}

impl Recorder {
    fn record(&self, how: &str) {
        if let Ok(mut log) = self.log.lock() {
            log.push(format!("{}:{how}", self.label));
        }
    }

    fn reply(&self) -> Reply {
        Reply::new(self.label, json!({"from": self.label}))
    }
}

#[async_trait]
impl Dispatcher for Recorder {
    fn name(&self) -> &str {
        self.label
    }

    fn interest(&self, event: &EventName) -> bool {
        event.hook() == Some(HookEvent::PostToolCall)
    }

    async fn dispatch(&self, _event: &Event) -> Vec<Reply> {
        self.record("dispatch");
        if self.waits {
            let mut yielded = false;
            futures::future::poll_fn(|cx| {
                if yielded {
                    return std::task::Poll::Ready(());
                }
                yielded = true;
                cx.waker().wake_by_ref();
                std::task::Poll::Pending
            })
            .await;
        }
        vec![self.reply()]
    }

    fn dispatch_now(&self, _event: &Event, replies: &mut Vec<Reply>) -> bool {
        if self.waits {
            return false;
        }
        self.record("now");
        replies.push(self.reply());
        true
    }
}

fn bus(shape: &[(&'static str, bool)]) -> (Hooks, Log) {
    let log = Log::default();
    let mut builder = Hooks::builder();
    for &(label, waits) in shape {
        builder = builder.with(Recorder {
            label,
            waits,
            log: Arc::clone(&log),
        });
    }
    (builder.build(), log)
}

fn entries(log: &Log) -> Vec<String> {
    log.lock().map(|log| log.clone()).unwrap_or_default()
}

fn post_tool_call() -> Event {
    Event::from_json(HookEvent::PostToolCall, json!({"tool_name": "terminal"}))
}

fn sources(replies: &[Reply]) -> Vec<&str> {
    replies.iter().map(|reply| &*reply.source).collect()
}

#[test]
fn every_merge_rule_gives_nothing_for_no_replies() {
    let payload = json!({"tool_name": "terminal", "args": {"command": "ls"}, "message": "hi"});
    let names = HookEvent::ALL.into_iter().map(EventName::Hook).chain(
        GATEWAY_EVENTS
            .iter()
            .map(|meta| EventName::parse(meta.name)),
    );
    for name in names {
        let event = Event::from_json(name.clone(), payload.clone());
        assert_eq!(merge(&event, &[]), Outcome::Nothing, "{name}");
    }
}

#[test]
fn nothing_runs_before_the_first_poll() {
    let (hooks, log) = bus(&[("a", false)]);
    let event = post_tool_call();
    drop(hooks.emit(&event));
    drop(hooks.collect(&event));
    assert!(entries(&log).is_empty());
}

#[test]
fn on_the_spot_mechanisms_finish_in_the_first_poll() {
    let (hooks, log) = bus(&[("a", false), ("b", false)]);
    let event = post_tool_call();
    let replies = hooks.collect(&event).now_or_never();
    assert_eq!(replies.as_deref().map(sources), Some(vec!["a", "b"]));
    assert_eq!(entries(&log), ["a:now", "b:now"]);
}

#[test]
fn a_waiting_mechanism_keeps_the_order_and_later_ones_still_run() {
    let (hooks, log) = bus(&[("a", false), ("slow", true), ("c", false)]);
    let event = post_tool_call();
    let replies = futures::executor::block_on(hooks.collect(&event));
    assert_eq!(sources(&replies), ["a", "slow", "c"]);
    assert_eq!(entries(&log), ["a:now", "slow:dispatch", "c:now"]);
}

#[test]
fn a_waiting_last_mechanism_keeps_what_came_before_it_and_alone_is_its_own_rest() {
    let event = post_tool_call();
    for (shape, expected) in [
        (&[("a", false), ("slow", true)][..], &["a", "slow"][..]),
        (&[("slow", true)][..], &["slow"][..]),
        (
            &[("slow", true), ("later", true)][..],
            &["slow", "later"][..],
        ),
    ] {
        let (hooks, log) = bus(shape);
        let replies = futures::executor::block_on(hooks.collect(&event));
        assert_eq!(sources(&replies), expected);
        let dispatched: Vec<String> = expected
            .iter()
            .map(|label| match *label {
                "a" => "a:now".to_owned(),
                other => format!("{other}:dispatch"),
            })
            .collect();
        assert_eq!(entries(&log), dispatched);
    }
}

#[test]
fn unhooked_emit_is_ready_at_once_and_ignores_every_mechanism() {
    let (hooks, log) = bus(&[("slow", true)]);
    let event = Event::from_json(HookEvent::PreLlmCall, json!({}));
    assert_eq!(hooks.emit(&event).now_or_never(), Some(Outcome::Nothing));
    assert_eq!(
        hooks.collect(&event).now_or_never().map(|r| r.len()),
        Some(0)
    );
    assert!(entries(&log).is_empty());
}

#[test]
fn a_nested_bus_finishes_on_the_spot_only_when_it_cannot_be_left_half_done() {
    let event = post_tool_call();
    let (single, _) = bus(&[("a", false)]);
    let mut replies = Vec::new();
    assert!(single.dispatch_now(&event, &mut replies));
    assert_eq!(sources(&replies), ["a"]);

    let (mixed, log) = bus(&[("a", false), ("slow", true)]);
    let mut replies = Vec::new();
    assert!(!mixed.dispatch_now(&event, &mut replies));
    assert!(replies.is_empty());
    assert!(entries(&log).is_empty());
    let replies = futures::executor::block_on(Dispatcher::dispatch(&mixed, &event));
    assert_eq!(sources(&replies), ["a", "slow"]);
}
