//! One request per event (issue 31 item 2): the Python callbacks of one
//! worker on a bounded event go to the worker as one `calls` request,
//! answered once per callback, with today's semantics: order, each
//! callback's own deadline, fail-closed `pre_tool_call`, the worker's death.
//!
//! The requests the worker reads are counted by a plugin that wraps the
//! worker's own `serve` (it runs every request line the worker reads).

use serde_json::{Value, json};

use crate::python::{fire, options, python_available, python_plugin, register};
use crate::support::Home;

/// A plugin whose `register` wraps the worker's `serve`: every hook request
/// read after it (`call`, `calls`) is recorded as `[op, number of callbacks]`
/// in `REQUESTS`.
const COUNTER: &str = r#"
import __main__
REQUESTS = []
def register(ctx):
    serve = __main__.serve
    def counted(channel, request, home):
        if request.get("op") in ("call", "calls"):
            REQUESTS.append([request["op"], len(request.get("callbacks") or [request["callback"]])])
        return serve(channel, request, home)
    __main__.serve = counted
"#;

/// Three `pre_tool_call` callbacks that log their name; the last answers
/// with the log and the requests the counter saw.
const THREE: &str = r#"
from hermes_plugins.counter import REQUESTS
LOG = []
def first(**kw):
    LOG.append("first")
    return {"action": "allow", "who": "first"}
def second(**kw):
    LOG.append("second")
    kw["args"]["seen_by_second"] = True
    return None
def third(args, **kw):
    LOG.append("third")
    return {"who": "third", "log": list(LOG), "requests": [list(r) for r in REQUESTS],
            "args": args}
def register(ctx):
    ctx.register_hook("pre_tool_call", first)
    ctx.register_hook("pre_tool_call", second)
    ctx.register_hook("pre_tool_call", third)
"#;

fn event(id: &str) -> Value {
    json!({"tool_name": "terminal", "args": {"command": "ls"}, "tool_call_id": id})
}

#[test]
fn a_plugins_callbacks_of_one_event_are_one_request_answered_in_order() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(&home, "counter", COUNTER);
    python_plugin(&home, "three", THREE);
    let loaded = register(
        &home,
        "plugins: {enabled: [counter, three]}",
        options(),
        Some(30.0),
    );
    assert!(
        loaded.registration.warnings.is_empty(),
        "{:?}",
        loaded.registration.warnings
    );
    let replies = fire(&loaded.callbacks, "pre_tool_call", event("a"));
    assert_eq!(replies.len(), 2, "{replies:?}");
    assert_eq!(replies[0]["who"], "first");
    let third = &replies[1];
    assert_eq!(third["who"], "third");
    assert_eq!(third["log"], json!(["first", "second", "third"]));
    // One request for the three callbacks (main sent three `call`s).
    assert_eq!(third["requests"], json!([["calls", 3]]), "{third}");
    // Each callback has its own copy of the payload, as with one request each.
    assert_eq!(third["args"], json!({"command": "ls"}));
    let replies = fire(&loaded.callbacks, "pre_tool_call", event("b"));
    assert_eq!(replies[1]["requests"], json!([["calls", 3], ["calls", 3]]));
}

#[test]
fn callbacks_of_several_plugins_in_one_worker_share_the_request() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(&home, "counter", COUNTER);
    python_plugin(
        &home,
        "early",
        "from hermes_plugins.counter import REQUESTS\ndef one(**kw):\n    return {'who': 'early'}\ndef register(ctx):\n    ctx.register_hook('post_tool_call', one)\n",
    );
    python_plugin(
        &home,
        "late",
        "from hermes_plugins.counter import REQUESTS\ndef two(**kw):\n    return {'who': 'late', 'requests': [list(r) for r in REQUESTS]}\ndef register(ctx):\n    ctx.register_hook('post_tool_call', two)\n",
    );
    let loaded = register(
        &home,
        "plugins: {enabled: [counter, early, late]}",
        options(),
        Some(30.0),
    );
    let replies = fire(
        &loaded.callbacks,
        "post_tool_call",
        json!({"tool_name": "terminal", "result": "ok"}),
    );
    assert_eq!(replies.len(), 2, "{replies:?}");
    assert_eq!(
        (&replies[0]["who"], &replies[1]["who"]),
        (&json!("early"), &json!("late"))
    );
    assert_eq!(replies[1]["requests"], json!([["calls", 2]]));
}

#[test]
fn a_timed_out_callback_is_reported_and_the_rest_run_once_with_their_own_deadlines() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    python_plugin(&home, "counter", COUNTER);
    // `slow` outlives its 2 s deadline (and returns later: its thread must not
    // then run `after` again); `after` takes 0.3 s, which a deadline shared
    // with `slow` would not leave it.
    python_plugin(
        &home,
        "seq",
        r#"
import time
from hermes_plugins.counter import REQUESTS
LOG = []
def before(**kw):
    LOG.append("before")
def slow(**kw):
    LOG.append("slow")
    time.sleep(3.5)
    return {"who": "slow"}
def after(**kw):
    LOG.append("after")
    time.sleep(0.3)
    return {"who": "after", "log": list(LOG), "requests": [list(r) for r in REQUESTS]}
def register(ctx):
    ctx.register_hook("pre_tool_call", before)
    ctx.register_hook("pre_tool_call", slow)
    ctx.register_hook("pre_tool_call", after)
"#,
    );
    let loaded = register(
        &home,
        "plugins: {enabled: [counter, seq]}",
        options(),
        Some(2.0),
    );
    let replies = fire(&loaded.callbacks, "pre_tool_call", event("a"));
    assert_eq!(replies.len(), 2, "{replies:?}");
    // The hung one fails closed as a timeout of its own.
    let blocked = replies[0]["message"].as_str().unwrap_or("");
    assert_eq!(replies[0]["action"], "block", "{replies:?}");
    assert!(
        blocked.contains("seq") && blocked.contains("timed out"),
        "{blocked}"
    );
    assert_eq!(replies[1]["who"], "after");
    assert_eq!(replies[1]["log"], json!(["before", "slow", "after"]));
    assert_eq!(replies[1]["requests"], json!([["calls", 3]]));
    // Once `slow` returned (its result discarded), nothing after it ran
    // again: the next event (`slow` suppressed after its timeout, so not
    // sent) shows every callback ran once per event.
    std::thread::sleep(std::time::Duration::from_secs(2));
    let replies = fire(&loaded.callbacks, "pre_tool_call", event("b"));
    let after = replies
        .iter()
        .find(|reply| reply["who"] == "after")
        .unwrap_or(&Value::Null);
    assert_eq!(
        after["log"],
        json!(["before", "slow", "after", "before", "after"]),
        "{replies:?}"
    );
    assert_eq!(after["requests"], json!([["calls", 3], ["calls", 2]]));
}

#[test]
fn a_worker_that_dies_mid_request_fails_every_callback_not_answered() {
    if !python_available() {
        return;
    }
    let home = Home::new();
    let marker = home.path().join("killed-once");
    python_plugin(
        &home,
        "dies",
        &format!(
            r#"
import os
MARKER = {marker:?}
def fine(**kw):
    return None
def kill(**kw):
    if not os.path.exists(MARKER):
        open(MARKER, "w").close()
        os._exit(3)
def allow(**kw):
    return None
def register(ctx):
    ctx.register_hook("pre_tool_call", fine)
    ctx.register_hook("pre_tool_call", kill)
    ctx.register_hook("pre_tool_call", allow)
"#,
            marker = marker.display().to_string()
        ),
    );
    let loaded = register(&home, "plugins: {enabled: [dies]}", options(), Some(30.0));
    // Past the restart throttle: a worker restarted for `allow` (one request
    // per callback) would let the call through.
    std::thread::sleep(std::time::Duration::from_millis(1200));
    let replies = fire(&loaded.callbacks, "pre_tool_call", event("a"));
    // `kill` and `allow` were not answered: both fail, so both block.
    assert_eq!(replies.len(), 2, "{replies:?}");
    for reply in &replies {
        assert_eq!(reply["action"], "block", "{replies:?}");
    }
    assert!(
        replies[1]["message"]
            .as_str()
            .unwrap_or("")
            .contains("worker exited"),
        "{replies:?}"
    );
    // The next event restarts the worker: every callback runs and allows.
    std::thread::sleep(std::time::Duration::from_millis(1200));
    let replies = fire(&loaded.callbacks, "pre_tool_call", event("b"));
    assert!(replies.is_empty(), "{replies:?}");
}

#[test]
fn a_block_does_not_stop_the_callbacks_after_it_as_in_the_reference() {
    if !python_available() {
        return;
    }
    // Hermes 0.20.1 `invoke_hook` runs every callback and collects every
    // result; the first block wins when the replies are read.
    let home = Home::new();
    python_plugin(
        &home,
        "blocks",
        r#"
LOG = []
def block(**kw):
    LOG.append("block")
    return {"action": "block", "message": "no"}
def later(**kw):
    LOG.append("later")
    return {"log": list(LOG)}
def register(ctx):
    ctx.register_hook("pre_tool_call", block)
    ctx.register_hook("pre_tool_call", later)
"#,
    );
    let loaded = register(&home, "plugins: {enabled: [blocks]}", options(), Some(30.0));
    let replies = fire(&loaded.callbacks, "pre_tool_call", event("a"));
    assert_eq!(
        replies,
        vec![
            json!({"action": "block", "message": "no"}),
            json!({"log": ["block", "later"]})
        ]
    );
}
