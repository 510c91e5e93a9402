//! One run per URL. A `web_extract` call fetches every URL of `urls`;
//! Claude Code's `WebFetch` hook judges one `url`. So at `pre_tool_call`
//! an imported hook runs once for each URL its `if` takes, the runs
//! together (Hermes fetches the first five, `urls[:5]`; any further ones
//! are shown to one more run, `url` the sixth, `urls` the rest), and one
//! run's deny denies the call. A run's `updatedInput` rewrites its own URL.
//! Every other call is one run, as it is.

use std::ops::Range;

use hermes_hooks_core::{Event, HookEvent};
use serde_json::{Map, Value};

use futures::future::join_all;

use super::applies::applies;
use super::calls::our_update;
use super::exec::run_command_launched;
use super::http::run_http;
use super::reply::{Contribution, Gate, failed_closed, interpret};
use super::stdin::stdin_for_run;
use super::{Handler, ImportedHook};
use crate::launch::Launch;
use crate::run::RunResult;

/// How many URLs of one call Hermes fetches (`web_extract`'s `urls[:5]`).
const FETCHED_URLS: usize = 5;

/// One run's share of a call: the URLs it shows, as an event of their own.
struct Part {
    urls: Range<usize>,
    event: Event,
}

/// The parts of a `pre_tool_call` of `web_extract` with more than one URL;
/// empty for every other event (run once, whole).
fn parts(event: &Event) -> Vec<Part> {
    let urls = match event.get("args") {
        Some(Value::Object(args)) if event.tool_name() == Some("web_extract") => {
            match args.get("urls") {
                Some(Value::Array(urls)) if urls.len() > 1 => urls,
                _ => return Vec::new(),
            }
        }
        _ => return Vec::new(),
    };
    if event.hook() != Some(HookEvent::PreToolCall) {
        return Vec::new();
    }
    let mut ranges: Vec<Range<usize>> = (0..urls.len().min(FETCHED_URLS))
        .map(|at| at..at + 1)
        .collect();
    if urls.len() > FETCHED_URLS {
        ranges.push(FETCHED_URLS..urls.len());
    }
    ranges
        .into_iter()
        .map(|range| {
            let mut payload = event.payload().clone();
            if let Some(Value::Object(args)) = payload.get_mut("args") {
                args.insert(
                    "urls".to_owned(),
                    Value::Array(urls[range.clone()].to_vec()),
                );
            }
            Part {
                urls: range,
                event: Event::new(event.name().clone(), payload),
            }
        })
        .collect()
}

/// How `hook` runs for `event`: once, or once per part.
pub(crate) struct Split {
    parts: Vec<Part>,
}

impl Split {
    /// The split of `event` for `hook`: the parts whose URLs its matcher
    /// and `if` take (all of them if none does).
    pub(crate) fn of(hook: &ImportedHook, event: &Event) -> Split {
        let mut parts = parts(event);
        if parts.iter().any(|part| applies(hook, &part.event)) {
            parts.retain(|part| applies(hook, &part.event));
        }
        Split { parts }
    }

    /// The events to run `hook` for: `event` itself, or one per part.
    pub(crate) fn events<'a>(&'a self, event: &'a Event) -> Vec<&'a Event> {
        if self.parts.is_empty() {
            return vec![event];
        }
        self.parts.iter().map(|part| &part.event).collect()
    }

    /// What the runs of [`Split::events`] (in that order) contribute
    /// together, rewrites in the Hermes tool's own arguments.
    pub(crate) fn combine(
        self,
        event: &Event,
        mut runs: Vec<(Contribution, RunResult)>,
    ) -> (Contribution, RunResult) {
        let tool = event.tool_name().unwrap_or("");
        if self.parts.is_empty() {
            let (mut contribution, result) = runs.pop().unwrap_or_default();
            lift(&mut contribution, tool, event);
            return (contribution, result);
        }
        for ((contribution, _), part) in runs.iter_mut().zip(&self.parts) {
            lift(contribution, tool, &part.event);
        }
        let ranges = self.parts.into_iter().map(|part| part.urls).collect();
        combine(event, ranges, runs)
    }
}

/// Runs `hook` for `event`, once or once per URL (`call_parts.rs`), and
/// what the runs contribute together.
pub(crate) async fn run_split(
    hook: &ImportedHook,
    event: &Event,
    hook_event: Option<HookEvent>,
    launch: Option<&Launch>,
) -> (Contribution, RunResult) {
    let split = Split::of(hook, event);
    let runs = split.events(event).into_iter();
    let runs = join_all(runs.map(|part| run_once(hook, part, hook_event, launch))).await;
    // A rewrite of nothing, as the hook wrote it (lifted, an unchanged `url` is nothing too).
    let rewrites_nothing = runs
        .iter()
        .any(|(run, _)| run.modify.as_ref().is_some_and(Map::is_empty));
    let (mut contribution, result) = split.combine(event, runs);
    if hook.fail_closed && hook_event == Some(HookEvent::PreToolCall) {
        deny_unapplied_rewrite(hook, event, &mut contribution, rewrites_nothing);
    }
    (contribution, result)
}

/// A fail-closed guard's rewrite that sets no argument, or (in the Hermes
/// tool's arguments) none the call has, denies (red team round 11, R11-1):
/// Hermes merges a rewrite into the call's arguments, so `updatedInput:
/// {"cmd": "echo safe"}` would run `rm -rf /` as it was. A rewrite that
/// lifts to nothing because it repeats the call (`url` the first of
/// `urls`) changes nothing on purpose.
fn deny_unapplied_rewrite(
    hook: &ImportedHook,
    event: &Event,
    contribution: &mut Contribution,
    rewrites_nothing: bool,
) {
    if matches!(contribution.gate, Some(Gate::Deny(_))) {
        return;
    }
    let lifted = match &contribution.modify {
        Some(lifted) if !lifted.is_empty() => lifted.clone(),
        _ if rewrites_nothing => Map::new(),
        _ => return,
    };
    let reply = serde_json::json!({"action": "modify", "args": lifted});
    if let Some(why) = crate::verdict_words::unapplied_rewrite(&reply, event.get("args")) {
        contribution.gate = Some(failed_closed(hook, &why));
    }
}

/// One run of `hook` for `event`, read for `hook_event`.
async fn run_once(
    hook: &ImportedHook,
    event: &Event,
    hook_event: Option<HookEvent>,
    launch: Option<&Launch>,
) -> (Contribution, RunResult) {
    let result = match stdin_for_run(hook, event) {
        // A fail-closed hook whose stdin cannot hold what it judges.
        Err(why) => RunResult::failed(format!("not run: {why}")),
        Ok(input) => match hook.handler {
            Handler::Command { .. } => run_command_launched(hook, event, &input, launch).await,
            Handler::Http { .. } => run_http(hook, &input).await,
        },
    };
    let read = hook_event.map(|hook_event| interpret(hook, hook_event, &result));
    (read.unwrap_or_default(), result)
}

/// A run's rewrite in the Hermes tool's own arguments (see [`our_update`]).
fn lift(contribution: &mut Contribution, tool: &str, event: &Event) {
    let Some(update) = contribution.modify.take() else {
        return;
    };
    let args = match event.get("args") {
        Some(Value::Object(args)) => args.clone(),
        _ => Map::new(),
    };
    contribution.modify = Some(our_update(tool, &args, update));
}

/// The runs of the parts as one: the first deny, else the first ask; every
/// context and feedback; the rewrites merged in order, each part's `urls`
/// put back in its place. The run shown is the one that denied, else the first.
fn combine(
    event: &Event,
    ranges: Vec<Range<usize>>,
    runs: Vec<(Contribution, RunResult)>,
) -> (Contribution, RunResult) {
    let deciding = runs
        .iter()
        .position(|(c, _)| matches!(c.gate, Some(Gate::Deny(_))))
        .or_else(|| {
            runs.iter()
                .position(|(c, _)| matches!(c.gate, Some(Gate::Ask(_))))
        })
        .unwrap_or(0);
    let mut urls = match event.get("args").and_then(|args| args.get("urls")) {
        Some(Value::Array(urls)) => urls.clone(),
        _ => Vec::new(),
    };
    let mut combined = Contribution::default();
    let mut modify: Option<Map<String, Value>> = None;
    let mut urls_rewritten = false;
    let mut shown = None;
    // From the last part to the first, so a rewrite that changes how many
    // URLs a part holds leaves the earlier ranges in place.
    for (at, (range, (contribution, result))) in ranges.into_iter().zip(runs).enumerate().rev() {
        if at == deciding {
            combined.gate = contribution.gate.clone();
            shown = Some(result);
        }
        if let Some(mut update) = contribution.modify {
            if let Some(Value::Array(part_urls)) = update.remove("urls") {
                urls.splice(range, part_urls);
                urls_rewritten = true;
            }
            let merged = modify.get_or_insert_with(Map::new);
            for (key, value) in update {
                merged.entry(key).or_insert(value);
            }
        }
        combined.context.splice(0..0, contribution.context);
        combined.feedback.splice(0..0, contribution.feedback);
        if combined.replace.is_none() {
            combined.replace = contribution.replace;
        }
    }
    if urls_rewritten {
        modify
            .get_or_insert_with(Map::new)
            .insert("urls".to_owned(), Value::Array(urls));
    }
    combined.modify = modify;
    (combined, shown.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use hermes_hooks_core::{Event, HookEvent};
    use serde_json::{Value, json};

    use super::{combine, parts};
    use crate::dialect::reply::{Contribution, Gate};
    use crate::run::RunResult;

    fn fetch(urls: Value) -> Event {
        let payload = json!({"tool_name": "web_extract", "args": {"urls": urls}});
        let Value::Object(payload) = payload else {
            unreachable!()
        };
        Event::new(HookEvent::PreToolCall, payload)
    }

    #[test]
    fn each_fetched_url_is_a_part_and_the_rest_one_more() {
        let urls: Vec<String> = (0..7).map(|n| format!("https://{n}/")).collect();
        let ranges: Vec<_> = parts(&fetch(json!(urls)))
            .into_iter()
            .map(|p| p.urls)
            .collect();
        assert_eq!(ranges, [0..1, 1..2, 2..3, 3..4, 4..5, 5..7]);
        assert!(parts(&fetch(json!(["https://0/"]))).is_empty());
    }

    #[test]
    fn a_deny_wins_and_rewrites_go_back_in_place() {
        let event = fetch(json!(["https://a/", "https://b/", "https://c/"]));
        let rewrite = |url: &str| Contribution {
            modify: Some(
                json!({"urls": [url]})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ),
            context: vec![url.to_owned()],
            ..Contribution::default()
        };
        let deny = Contribution {
            gate: Some(Gate::Deny("no".to_owned())),
            ..Contribution::default()
        };
        let denied = RunResult::exited(2, "", "no");
        let runs = vec![
            (rewrite("https://x/"), RunResult::default()),
            (deny, denied.clone()),
            (rewrite("https://z/"), RunResult::default()),
        ];
        let (combined, shown) = combine(&event, vec![0..1, 1..2, 2..3], runs);
        assert_eq!(combined.gate, Some(Gate::Deny("no".to_owned())));
        assert_eq!(shown, denied);
        assert_eq!(combined.context, ["https://x/", "https://z/"]);
        assert_eq!(
            combined.modify.map(Value::Object),
            Some(json!({"urls": ["https://x/", "https://b/", "https://z/"]}))
        );
    }
}
