//! Run records: what each hook touched by one event did ([`HookRun`]), so a
//! host can show "blocked by rm-guard (shell, 3 ms)" instead of a bare decision.
//!
//! Mechanisms write them in [`crate::Dispatcher::dispatch_recorded`]; the bus
//! hands them out beside the outcome ([`crate::Hooks::emit_with_report`]) and
//! turns each into a `hook_run` tracing span. Nothing is recorded, and nothing
//! allocated, for a host that only calls [`crate::Hooks::emit`].

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use serde_json::{Map, Value, json};

use crate::event::EventName;

/// How one hook's run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunStatus {
    /// It ran and answered (or had nothing to say).
    Completed,
    /// It ran and its answer stops the action (a block, a deny).
    Blocked,
    /// It could not run, raised, exited unsuccessfully or gave a reply that is not valid.
    Failed,
    /// It outlived its timeout and was given up on (killed, for processes).
    TimedOut,
    /// It was not run; the reason says why (not allowlisted, suppressed after a timeout, ...).
    Skipped(String),
    /// It was handed to a queue and runs later (webhooks, streaming observers).
    Queued,
}

impl RunStatus {
    /// The status as it appears in JSON and spans: `completed`, `blocked`,
    /// `failed`, `timed_out`, `skipped`, `queued`.
    pub fn as_str(&self) -> &'static str {
        match self {
            RunStatus::Completed => "completed",
            RunStatus::Blocked => "blocked",
            RunStatus::Failed => "failed",
            RunStatus::TimedOut => "timed_out",
            RunStatus::Skipped(_) => "skipped",
            RunStatus::Queued => "queued",
        }
    }

    /// Why the hook was skipped, for [`RunStatus::Skipped`].
    pub fn skip_reason(&self) -> Option<&str> {
        match self {
            RunStatus::Skipped(reason) => Some(reason),
            _ => None,
        }
    }

    /// `Blocked` when `reply` (in the Hermes wire shape) stops the action, else `Completed`.
    pub fn of_reply(reply: Option<&Value>) -> RunStatus {
        if reply.is_some_and(reply_blocks) {
            RunStatus::Blocked
        } else {
            RunStatus::Completed
        }
    }
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunStatus::Skipped(reason) => write!(f, "skipped ({reason})"),
            other => f.write_str(other.as_str()),
        }
    }
}

/// Whether a reply in the Hermes wire shape stops the action: a tool-call
/// `block`, a `pre_gateway_dispatch` `skip`, a command `deny`.
pub fn reply_blocks(reply: &Value) -> bool {
    let word = |key: &str| reply.get(key).and_then(Value::as_str);
    matches!(word("action"), Some("block" | "skip")) || word("decision") == Some("deny")
}

/// What one hook did for one event.
///
/// Built with [`HookRun::new`] and the chained setters, so fields can be added
/// without breaking mechanisms; read through the public fields.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct HookRun {
    /// The mechanism: `plugins`, `shell`, `outbound`, `gateway`.
    pub mechanism: Arc<str>,
    /// Which hook: the reply source (`plugin:<name>`, `shell:<command>`,
    /// `webhook:<target>`, `gateway:<hook>`).
    pub source: Arc<str>,
    /// The event name.
    pub event: Arc<str>,
    /// How the run ended.
    pub status: RunStatus,
    /// What the hook contributed to the merge, in the Hermes wire shape (`None`: nothing).
    pub decision: Option<Value>,
    /// How long the run took (zero for a hook that did not run).
    pub elapsed: Duration,
    /// When the run started (wall clock, for trace exporters).
    pub started: SystemTime,
    /// What went wrong or is worth knowing, one line each (a timeout, a bad
    /// reply field, truncated output, stderr of a failed run).
    pub diagnostics: Vec<String>,
    /// The sandbox profile a process hook ran in (`None`: no sandbox, or
    /// not a process).
    pub sandbox: Option<Arc<str>>,
}

impl HookRun {
    /// A run of `source` (of `mechanism`) for `event` that ended as `status`,
    /// started now, with no decision, elapsed time or diagnostics yet.
    pub fn new(
        mechanism: impl Into<Arc<str>>,
        source: impl Into<Arc<str>>,
        event: &EventName,
        status: RunStatus,
    ) -> Self {
        HookRun {
            mechanism: mechanism.into(),
            source: source.into(),
            event: event.as_str().into(),
            status,
            decision: None,
            elapsed: Duration::ZERO,
            started: SystemTime::now(),
            diagnostics: Vec::new(),
            sandbox: None,
        }
    }

    /// With the sandbox profile the hook ran in.
    #[must_use = "setters return the changed run"]
    pub fn sandbox(mut self, profile: Option<&str>) -> Self {
        self.sandbox = profile.map(Arc::from);
        self
    }

    /// With `decision` (the reply as it went into the merge).
    #[must_use = "setters return the changed run"]
    pub fn decision(mut self, decision: Option<Value>) -> Self {
        self.decision = decision;
        self
    }

    /// With `elapsed`, and the start time moved back by it (the run is recorded when it ends).
    #[must_use = "setters return the changed run"]
    pub fn elapsed(mut self, elapsed: Duration) -> Self {
        self.elapsed = elapsed;
        self.started = SystemTime::now()
            .checked_sub(elapsed)
            .unwrap_or(SystemTime::UNIX_EPOCH);
        self
    }

    /// With one more diagnostic line.
    #[must_use = "setters return the changed run"]
    pub fn diagnostic(mut self, line: impl Into<String>) -> Self {
        self.diagnostics.push(line.into());
        self
    }

    /// With `status`.
    #[must_use = "setters return the changed run"]
    pub fn status(mut self, status: RunStatus) -> Self {
        self.status = status;
        self
    }

    /// Checks the decision against the generated reply schema of `rule`
    /// ([`crate::schemas::check_reply`]): each field it gets wrong becomes a
    /// diagnostic naming the field (once), and a run that had completed or
    /// blocked is [`RunStatus::Failed`], as a shell hook's bad stdout is.
    /// The decision itself is kept: the merge still reads what it can (a
    /// guard never fails open on a typo).
    pub fn check_decision(&mut self, rule: crate::catalog::MergeRule) {
        let Some(decision) = &self.decision else {
            return;
        };
        let problems = crate::schemas::check_reply(rule, decision);
        if problems.is_empty() {
            return;
        }
        if matches!(self.status, RunStatus::Completed | RunStatus::Blocked) {
            self.status = RunStatus::Failed;
        }
        for problem in problems {
            let line = problem.to_string();
            if !self.diagnostics.contains(&line) {
                self.diagnostics.push(line);
            }
        }
    }

    /// Elapsed milliseconds rounded to one decimal (what a person compares).
    pub fn elapsed_ms(&self) -> f64 {
        (self.elapsed.as_secs_f64() * 10_000.0).round() / 10.0
    }

    /// The run as JSON: `mechanism`, `source`, `event`, `status`, `elapsed_ms`,
    /// `decision`, `diagnostics`, `reason` for a skipped run, and `sandbox`
    /// (the profile) for a run in a sandbox.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("mechanism".into(), json!(&*self.mechanism));
        object.insert("source".into(), json!(&*self.source));
        object.insert("event".into(), json!(&*self.event));
        object.insert("status".into(), json!(self.status.as_str()));
        if let Some(reason) = self.status.skip_reason() {
            object.insert("reason".into(), json!(reason));
        }
        object.insert("elapsed_ms".into(), json!(self.elapsed_ms()));
        object.insert(
            "decision".into(),
            self.decision.clone().unwrap_or(Value::Null),
        );
        object.insert("diagnostics".into(), json!(self.diagnostics));
        if let Some(sandbox) = &self.sandbox {
            object.insert("sandbox".into(), json!(&**sandbox));
        }
        Value::Object(object)
    }

    /// A one-line summary, as the text output of `hooks emit` and `hooks
    /// replay` prints it: `shell:rm-guard.sh (shell) blocked 3.1 ms`, or
    /// `... skipped (not allowlisted) 0.0 ms`. Not escaped: sources quote
    /// config text, so a caller that shows it to a person escapes it.
    pub fn summary(&self) -> String {
        format!(
            "{} ({}) {} {:.1} ms",
            self.source,
            self.mechanism,
            self.status,
            self.elapsed_ms()
        )
    }

    /// Records the run as a `hook_run` tracing span (INFO) carrying every field.
    pub fn trace(&self) {
        let decision = self
            .decision
            .as_ref()
            .map_or_else(String::new, Value::to_string);
        let span = tracing::info_span!(
            "hook_run",
            mechanism = &*self.mechanism,
            source = &*self.source,
            event = &*self.event,
            status = self.status.as_str(),
            reason = self.status.skip_reason().unwrap_or(""),
            elapsed_ms = self.elapsed_ms(),
            decision = decision.as_str(),
            diagnostics = self.diagnostics.join("; ").as_str(),
        );
        let _entered = span.enter();
    }
}

/// Something that wants every run of every emit (a trace exporter): see
/// [`crate::HooksBuilder::observe_runs`].
pub trait RunObserver: Send + Sync {
    /// Called once per event with the runs of that event, in order.
    fn observe(&self, runs: &[HookRun]);
}

impl<F: Fn(&[HookRun]) + Send + Sync> RunObserver for F {
    fn observe(&self, runs: &[HookRun]) {
        self(runs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::HookEvent;

    #[test]
    fn json_has_every_documented_field() {
        let run = HookRun::new(
            "shell",
            "shell:guard.sh",
            &EventName::Hook(HookEvent::PreToolCall),
            RunStatus::Skipped("not allowlisted".into()),
        )
        .elapsed(Duration::from_micros(3_140))
        .diagnostic("x");
        let json = run.to_json();
        for key in [
            "mechanism",
            "source",
            "event",
            "status",
            "elapsed_ms",
            "decision",
            "diagnostics",
        ] {
            assert!(json.get(key).is_some(), "{key} missing from {json}");
        }
        assert_eq!(json["status"], "skipped");
        assert_eq!(json["reason"], "not allowlisted");
        assert_eq!(json["elapsed_ms"], 3.1);
        assert_eq!(json["event"], "pre_tool_call");
        assert_eq!(json["decision"], Value::Null);
    }

    #[test]
    fn blocking_replies_are_recognised() {
        assert!(reply_blocks(&json!({"action": "block", "message": "m"})));
        assert!(reply_blocks(&json!({"decision": "deny", "message": "m"})));
        assert!(reply_blocks(&json!({"action": "skip"})));
        assert!(!reply_blocks(&json!({"action": "modify", "args": {}})));
        assert!(!reply_blocks(&json!("text")));
        assert_eq!(RunStatus::of_reply(None), RunStatus::Completed);
    }

    /// Keeps the fields of every `hook_run` span created while it is the subscriber.
    type Fields = Vec<(String, String)>;

    struct SpanFields(std::sync::Arc<std::sync::Mutex<Vec<Fields>>>);

    struct Visit<'a>(&'a mut Fields);

    impl tracing::field::Visit for Visit<'_> {
        fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
            self.0.push((field.name().to_owned(), format!("{value:?}")));
        }

        fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
            self.0.push((field.name().to_owned(), value.to_owned()));
        }
    }

    impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for SpanFields {
        fn on_new_span(
            &self,
            attrs: &tracing::span::Attributes<'_>,
            _id: &tracing::span::Id,
            _ctx: tracing_subscriber::layer::Context<'_, S>,
        ) {
            if attrs.metadata().name() != "hook_run" {
                return;
            }
            let mut fields = Vec::new();
            attrs.record(&mut Visit(&mut fields));
            if let Ok(mut spans) = self.0.lock() {
                spans.push(fields);
            }
        }
    }

    #[test]
    fn each_run_is_a_tracing_span_with_every_field() {
        use tracing_subscriber::layer::SubscriberExt;
        let spans = std::sync::Arc::default();
        let subscriber =
            tracing_subscriber::registry().with(SpanFields(std::sync::Arc::clone(&spans)));
        let run = HookRun::new(
            "plugins",
            "plugin:guard",
            &EventName::Hook(HookEvent::PreToolCall),
            RunStatus::Blocked,
        )
        .decision(Some(json!({"action": "block", "message": "no"})))
        .elapsed(Duration::from_millis(2))
        .diagnostic("d1");
        tracing::subscriber::with_default(subscriber, || run.trace());
        let spans = spans.lock().map(|spans| spans.clone()).unwrap_or_default();
        assert_eq!(spans.len(), 1);
        let field = |name: &str| {
            spans[0]
                .iter()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone())
        };
        assert_eq!(field("mechanism").as_deref(), Some("plugins"));
        assert_eq!(field("source").as_deref(), Some("plugin:guard"));
        assert_eq!(field("event").as_deref(), Some("pre_tool_call"));
        assert_eq!(field("status").as_deref(), Some("blocked"));
        assert_eq!(field("elapsed_ms").as_deref(), Some("2.0"));
        assert_eq!(
            field("decision").as_deref(),
            Some(r#"{"action":"block","message":"no"}"#)
        );
        assert_eq!(field("diagnostics").as_deref(), Some("d1"));
    }
}
