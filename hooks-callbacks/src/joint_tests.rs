//! Joint callbacks: consecutive admitted members of one joint start with one
//! `Joint::start`, each collected in order under its own deadline; a member
//! past its deadline is given up and the ones after it are collected from
//! the same run (never started again).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::executor::block_on;
use serde_json::{Value, json};

use super::{CallbackResult, Callbacks, Joint, JointRun};
use hermes_hooks_core::catalog::HookEvent;
use hermes_hooks_core::config::PluginSettings;
use hermes_hooks_core::dispatch::Dispatcher;
use hermes_hooks_core::event::Event;

/// A joint that records each start; member `hang` takes `hang` to finish.
#[derive(Default)]
struct Recorder {
    starts: Mutex<Vec<Vec<String>>>,
    hang: Duration,
    panics: bool,
}

impl Recorder {
    fn starts(&self) -> Vec<Vec<String>> {
        self.starts.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

impl Joint for Recorder {
    fn call(&self, member: &str, _event: &Event) -> CallbackResult {
        Ok(Some(json!({"alone": member})))
    }

    fn start(&self, _event: &Event, members: &[Arc<str>]) -> Box<dyn JointRun> {
        assert!(!self.panics, "the host broke");
        let members: Vec<String> = members.iter().map(|m| m.to_string()).collect();
        if let Ok(mut starts) = self.starts.lock() {
            starts.push(members.clone());
        }
        Box::new(Run {
            members,
            hang: self.hang,
        })
    }
}

struct Run {
    members: Vec<String>,
    hang: Duration,
}

impl JointRun for Run {
    fn result(&self, index: usize) -> CallbackResult {
        let member = self.members.get(index).cloned().unwrap_or_default();
        if member == "hang" {
            std::thread::sleep(self.hang);
        }
        Ok(Some(json!({"member": member, "index": index})))
    }
}

fn callbacks(timeout: Option<f64>) -> Arc<Callbacks> {
    Callbacks::new(
        PluginSettings::default().with_callback_timeout(timeout.map(Duration::from_secs_f64)),
    )
}

fn fire(callbacks: &Callbacks) -> Vec<Value> {
    let event = Event::from_json(
        HookEvent::PreToolCall,
        json!({"tool_name": "terminal", "tool_call_id": "a"}),
    );
    block_on(callbacks.dispatch(&event))
        .into_iter()
        .map(|reply| reply.value)
        .collect()
}

#[test]
fn consecutive_members_of_one_joint_start_together_in_order() {
    let callbacks = callbacks(Some(10.0));
    let (one, other) = (Arc::new(Recorder::default()), Arc::new(Recorder::default()));
    let joint = || Arc::clone(&one) as Arc<dyn Joint>;
    callbacks.register_joint("pre_tool_call", "py", joint(), "a");
    callbacks.register_joint("pre_tool_call", "py", joint(), "b");
    callbacks.register("pre_tool_call", "native", |_: &Event| {
        Ok(Some(json!({"native": true})))
    });
    callbacks.register_joint("pre_tool_call", "py", joint(), "c");
    callbacks.register_joint("pre_tool_call", "py", joint(), "d");
    callbacks.register_joint("pre_tool_call", "other", Arc::clone(&other) as _, "e");
    let replies = fire(&callbacks);
    assert_eq!(
        replies,
        vec![
            json!({"member": "a", "index": 0}),
            json!({"member": "b", "index": 1}),
            json!({"native": true}),
            json!({"member": "c", "index": 0}),
            json!({"member": "d", "index": 1}),
            json!({"member": "e", "index": 0}),
        ]
    );
    // A callback of something else in between splits the run: order holds.
    assert_eq!(one.starts(), vec![vec!["a", "b"], vec!["c", "d"]]);
    assert_eq!(other.starts(), vec![vec!["e"]]);
}

#[test]
fn members_after_a_timed_out_one_are_collected_from_the_same_run() {
    let callbacks = callbacks(Some(0.2));
    let joint = Arc::new(Recorder {
        hang: Duration::from_millis(1500),
        ..Recorder::default()
    });
    for member in ["a", "hang", "c"] {
        callbacks.register_joint("pre_tool_call", "py", Arc::clone(&joint) as _, member);
    }
    let replies = fire(&callbacks);
    assert_eq!(replies.len(), 3, "{replies:?}");
    assert_eq!(replies[0], json!({"member": "a", "index": 0}));
    assert_eq!(replies[1]["action"], "block");
    assert!(
        replies[1]["message"]
            .as_str()
            .is_some_and(|m| m.contains("timed out")),
        "{replies:?}"
    );
    assert_eq!(replies[2], json!({"member": "c", "index": 2}));
    // Started once: `c` was not started again on the worker that took over.
    assert_eq!(joint.starts(), vec![vec!["a", "hang", "c"]]);
}

#[test]
fn inline_events_run_each_member_alone() {
    let callbacks = callbacks(None);
    let joint = Arc::new(Recorder::default());
    for member in ["a", "b"] {
        callbacks.register_joint("pre_tool_call", "py", Arc::clone(&joint) as _, member);
    }
    assert_eq!(
        fire(&callbacks),
        vec![json!({"alone": "a"}), json!({"alone": "b"})]
    );
    assert!(joint.starts().is_empty());
}

#[test]
fn a_joint_whose_start_panics_fails_every_member_closed() {
    let callbacks = callbacks(Some(10.0));
    let joint = Arc::new(Recorder {
        panics: true,
        ..Recorder::default()
    });
    for member in ["a", "b"] {
        callbacks.register_joint("pre_tool_call", "py", Arc::clone(&joint) as _, member);
    }
    let replies = fire(&callbacks);
    assert_eq!(replies.len(), 2, "{replies:?}");
    for reply in &replies {
        assert_eq!(reply["action"], "block", "{replies:?}");
        assert!(
            reply["message"]
                .as_str()
                .is_some_and(|m| m.contains("the host broke"))
        );
    }
}
