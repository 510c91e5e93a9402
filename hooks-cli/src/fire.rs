//! Firing one event through the bus, the way a host would, and describing what happened.

use std::time::{Duration, Instant};

use hermes_hooks_core::display::escape;
use hermes_hooks_core::{Event, HookRun, Hooks, Outcome, Reply};
use serde_json::{Value, json};

/// What one event did: the replies of every mechanism and the merged outcome.
#[derive(Debug, Clone)]
pub struct Fired {
    /// The event.
    pub event: Event,
    /// Every reply, in mechanism and registration order.
    pub replies: Vec<Reply>,
    /// The merged outcome.
    pub outcome: Outcome,
    /// How long the host waited.
    pub elapsed: Duration,
    /// One record per hook touched, in the order they ran.
    pub runs: Vec<HookRun>,
    /// The run whose reply blocked (a tool call's block, a skip, a deny).
    pub blocked_by: Option<HookRun>,
    /// The runs whose replies changed what the host goes on with.
    pub modified_by: Vec<HookRun>,
}

/// Fires `event` through `hooks` as a host does with
/// [`Hooks::emit_with_report`]: the replies with a run record per hook, the
/// outcome merged by the event's rule, and which hook decided it.
pub async fn fire(hooks: &Hooks, event: Event) -> Fired {
    let start = Instant::now();
    let report = hooks.emit_with_report(&event).await;
    let elapsed = start.elapsed();
    let blocked_by = report.blocked_by().cloned();
    let modified_by = report.modified_by().into_iter().cloned().collect();
    Fired {
        event,
        replies: report.replies,
        outcome: report.outcome,
        elapsed,
        runs: report.runs,
        blocked_by,
        modified_by,
    }
}

/// A hook as the text output names it: `shell:~/guard.sh (shell, 6.2 ms)`.
pub fn who(run: &HookRun) -> String {
    format!(
        "{} ({}, {:.1} ms)",
        run.source,
        run.mechanism,
        run.elapsed_ms()
    )
}

/// Run records as the `runs` list of `--json` output: one object per run with
/// `mechanism`, `source`, `event`, `status`, `elapsed_ms`, `decision`, `diagnostics`.
pub fn runs_json(runs: &[HookRun]) -> Value {
    Value::Array(runs.iter().map(HookRun::to_json).collect())
}

/// The text lines of `runs`: one per run (`<source> (<mechanism>) <status>
/// <ms> ms`) and one per diagnostic below it (`! <line>`, as `hooks test`
/// prints them), escaped, each after `indent`.
pub fn runs_text(runs: &[HookRun], indent: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for run in runs {
        lines.push(format!("{indent}run {}", escape(&run.summary())));
        for diagnostic in &run.diagnostics {
            lines.push(format!("{indent}    ! {}", escape(diagnostic)));
        }
    }
    lines
}

impl Fired {
    /// The outcome in the Hermes wire shape (`null` when the hooks contributed nothing).
    pub fn outcome_wire(&self) -> Value {
        self.outcome.to_wire().unwrap_or(Value::Null)
    }

    /// The replies as `[{"source", "reply"}]`.
    pub fn replies_json(&self) -> Value {
        Value::Array(
            self.replies
                .iter()
                .map(|reply| json!({"source": &*reply.source, "reply": reply.value}))
                .collect(),
        )
    }

    /// A one-line human summary of the outcome, escaped for a terminal (hook
    /// replies quote config and tool text).
    pub fn outcome_text(&self) -> String {
        hermes_hooks_core::display::escape(&self.outcome_text_raw()).into_owned()
    }

    /// ` (by A, B)`: the hooks whose replies changed what the host goes on
    /// with; empty when none did.
    fn modified_note(&self) -> String {
        if self.modified_by.is_empty() {
            return String::new();
        }
        let by: Vec<String> = self.modified_by.iter().map(who).collect();
        format!(" by {}", by.join(", "))
    }

    fn outcome_text_raw(&self) -> String {
        use hermes_hooks_core::outcome::{CommandDecision, DispatchDecision};
        use hermes_hooks_core::{HookEvent, ToolGate};
        let modified = self.modified_note();
        match &self.outcome {
            // A tool call nobody objected to runs: say so, not "nothing".
            Outcome::Nothing if self.event.hook() == Some(HookEvent::PreToolCall) => {
                format!(
                    "ALLOW: no hook blocked, approved or modified the call ({} ran)",
                    plural(self.runs.len(), "hook", "hooks")
                )
            }
            Outcome::Nothing => "nothing".to_owned(),
            Outcome::Tool(ToolGate::Proceed) => "proceed".to_owned(),
            Outcome::Tool(ToolGate::Block {
                message, source, ..
            }) => {
                let by = self
                    .blocked_by
                    .as_ref()
                    .map_or_else(|| source.to_string(), who);
                format!("BLOCK by {by}: {message}")
            }
            Outcome::Tool(ToolGate::Approve { message, .. }) => {
                format!(
                    "approval required{modified}: {}",
                    message.as_deref().unwrap_or("")
                )
            }
            Outcome::Tool(ToolGate::Modify { args }) => {
                format!("modify args{modified}: {}", Value::Object(args.clone()))
            }
            Outcome::Context(context) => format!("context: {}", one_line(context)),
            Outcome::Continue { message } => format!("continue: {}", one_line(message)),
            Outcome::Dispatch(DispatchDecision::Skip { reason }) => {
                format!(
                    "skip message ({})",
                    reason.as_deref().unwrap_or("no reason")
                )
            }
            Outcome::Dispatch(DispatchDecision::Rewrite { text }) => {
                format!("rewrite message{modified}: {}", one_line(text))
            }
            Outcome::Dispatch(DispatchDecision::Allow) => "allow message".to_owned(),
            Outcome::Transcription(overrides) => format!("transcription overrides: {overrides:?}"),
            Outcome::Replace(text) => format!("replace{modified} with: {}", one_line(text)),
            Outcome::Classification(map) => {
                format!("classification: {}", Value::Object(map.clone()))
            }
            Outcome::Command(CommandDecision::Deny { message }) => {
                format!("DENY command: {message}")
            }
            Outcome::Command(CommandDecision::Handled { message }) => {
                format!("command handled: {}", message.as_deref().unwrap_or(""))
            }
            Outcome::Command(CommandDecision::Rewrite { command, args }) => {
                format!("rewrite command{modified}: /{command} {args}")
            }
            other => match other.to_wire() {
                Some(wire) => format!("outcome: {}", one_line(&wire.to_string())),
                None => "nothing".to_owned(),
            },
        }
    }
}

/// Delivery reports as JSON, with `elapsed_ms` rounded like every other duration we print.
pub fn deliveries_json(deliveries: &crate::setup::Deliveries) -> Value {
    Value::Array(
        deliveries
            .list
            .iter()
            .map(|delivery| {
                let mut value = delivery.to_json();
                value["elapsed_ms"] = json!(millis(delivery.0.elapsed));
                value
            })
            .collect(),
    )
}

/// Shortens `text` to one line of at most 120 characters.
pub fn one_line(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    truncate(&line, 120)
}

/// `text` if it has at most `limit` characters, else its first `limit - 3` and `...`.
pub fn truncate(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        text.to_owned()
    } else {
        let kept: String = text.chars().take(limit.saturating_sub(3)).collect();
        format!("{kept}...")
    }
}

/// A duration in milliseconds, rounded to one decimal: what a person compares,
/// without the float noise of `142.59031099999999`.
pub fn millis(elapsed: Duration) -> f64 {
    (elapsed.as_secs_f64() * 10_000.0).round() / 10.0
}

/// `1 reply`, `2 replies`: the count with the right form of the noun.
pub fn plural(count: usize, one: &str, many: &str) -> String {
    if count == 1 {
        format!("{count} {one}")
    } else {
        format!("{count} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_keep_one_decimal() {
        assert_eq!(millis(Duration::from_nanos(142_590_310)), 142.6);
        assert_eq!(
            serde_json::json!(millis(Duration::from_nanos(142_590_310))).to_string(),
            "142.6"
        );
        assert_eq!(millis(Duration::ZERO), 0.0);
    }

    #[test]
    fn plurals_agree_with_the_count() {
        assert_eq!(plural(1, "reply", "replies"), "1 reply");
        assert_eq!(plural(0, "reply", "replies"), "0 replies");
        assert_eq!(plural(2, "reply", "replies"), "2 replies");
    }
}
