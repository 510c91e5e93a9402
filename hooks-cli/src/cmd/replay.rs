//! `hooks replay FILE.jsonl`: replay a recorded session through the configured
//! hooks, as the host did; print a timeline and a summary.
//!
//! Each line is `{"event": NAME, "payload": {...}}`. The file is read as it
//! is replayed, one line at a time, each line at most 16 MiB: memory holds
//! one event, never the session. A bad line (or one over the cap) is
//! reported with its file and line number and skipped; the others still
//! replay, and the command exits 2 at the end.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, Write};
use std::path::Path;

use anyhow::Context;
use hermes_hooks_core::{Outcome, Payload, ToolGate};
use serde_json::{Value, json};

use crate::cli::ReplayArgs;
use hermes_hooks_core::display::escape;

use crate::fire::{Fired, deliveries_json, fire, millis, plural, runs_json, runs_text};
use crate::payload::{UsageError, host_event, host_event_name};
use crate::setup::{Home, Mechanisms};

mod lines;

use lines::{CappedLines, Line, MAX_LINE_BYTES};

/// The session's lines, read as they are replayed, with the file's name for messages.
struct Session {
    path: std::path::PathBuf,
    lines: CappedLines<BufReader<File>>,
    /// Lines that could not be replayed (reported on stderr as they are met).
    bad: usize,
}

impl Session {
    fn open(path: &Path) -> anyhow::Result<Session> {
        let file = File::open(path)
            .with_context(|| format!("reading the session file {}", path.display()))?;
        Ok(Session {
            path: path.to_owned(),
            lines: CappedLines::new(BufReader::new(file), MAX_LINE_BYTES),
            bad: 0,
        })
    }

    /// The next event and its line number; a bad line is reported on
    /// stderr with the file and line number, counted and skipped.
    fn next_event(&mut self) -> anyhow::Result<Option<(usize, hermes_hooks_core::Event)>> {
        loop {
            let Some((number, line)) = self
                .lines
                .next_line()
                .with_context(|| format!("reading the session file {}", self.path.display()))?
            else {
                return Ok(None);
            };
            let parsed = match line {
                Line::Text(text) if text.trim().is_empty() => continue,
                Line::Text(text) => parse_line(&text),
                Line::TooLong => Err(format!(
                    "the line is over the {} MiB limit of one event; skipped",
                    MAX_LINE_BYTES / (1024 * 1024)
                )),
            };
            match parsed {
                Ok(event) => return Ok(Some((number, event))),
                Err(message) => {
                    self.bad += 1;
                    eprintln!("{}:{number}: {}", self.path.display(), escape(&message));
                }
            }
        }
    }
}

/// How many non-blank lines a regular file holds (read once more, a buffer
/// at a time); `None` for anything else (a pipe can be read only once).
fn count_lines(path: &Path) -> Option<usize> {
    let file = File::open(path).ok().filter(|file| {
        file.metadata()
            .is_ok_and(|metadata| metadata.file_type().is_file())
    })?;
    let mut lines = CappedLines::new(BufReader::new(file), 0);
    let mut count = 0;
    // A cap of 0 keeps no text: blank lines come back as empty text, the rest as too long.
    while let Ok(Some((_, line))) = lines.next_line() {
        if line == Line::TooLong {
            count += 1;
        }
    }
    Some(count)
}

/// Runs `hooks replay`.
pub async fn run(
    home: &Home,
    accept: bool,
    args: &ReplayArgs,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let mut session = Session::open(&args.file)?;
    let mechanisms = Mechanisms::register(home, accept);
    mechanisms.print_warnings();
    if !args.json {
        let count = count_lines(&args.file)
            .map(|count| format!(" ({})", plural(count, "event", "events")))
            .unwrap_or_default();
        writeln!(
            out,
            "Replaying {}{count} through {}\n",
            args.file.display(),
            mechanisms.describe()
        )?;
    }

    let mut summary = Summary::default();
    while let Some((line_number, event)) = session.next_event()? {
        let fired = fire(&mechanisms.hooks, event).await;
        summary.add(&fired);
        if args.json {
            let mut line = json!({
                "line": line_number,
                "event": fired.event.name().as_str(),
                "outcome": fired.outcome_wire(),
                "replies": fired.replies_json(),
                "elapsed_ms": millis(fired.elapsed),
                "runs": runs_json(&fired.runs),
            });
            if let (Some(tool), Some(object)) = (fired.event.tool_name(), line.as_object_mut()) {
                object.insert("tool_name".into(), Value::from(tool));
            }
            writeln!(out, "{line}")?;
        } else {
            let label = match fired.event.tool_name() {
                Some(tool) => format!("{} [{}]", fired.event.name(), escape(tool)),
                None => fired.event.name().to_string(),
            };
            writeln!(
                out,
                "{:>4}  {label:<34} {}  ({}, {:.1} ms)",
                line_number,
                fired.outcome_text(),
                plural(fired.replies.len(), "reply", "replies"),
                millis(fired.elapsed)
            )?;
            for line in runs_text(&fired.runs, "        ") {
                writeln!(out, "{line}")?;
            }
        }
    }

    let bad_lines = session.bad;
    let deliveries = mechanisms.finish().await;
    if args.json {
        let mut document = json!({
            "summary": summary.to_json(bad_lines),
            "deliveries": deliveries_json(&deliveries),
        });
        // The list is capped; the totals count every delivery.
        for (key, value) in deliveries.summary_json() {
            document[key] = value;
        }
        writeln!(out, "{document}")?;
    } else {
        writeln!(out)?;
        summary.print(bad_lines, out)?;
        if !deliveries.is_empty() {
            writeln!(out, "Webhook deliveries ({}):", deliveries.list.len())?;
            for delivery in &deliveries.list {
                writeln!(out, "  {}", escape(&delivery.to_text()))?;
            }
            writeln!(out, "  {}", deliveries.totals_text())?;
        }
    }
    if bad_lines > 0 {
        return Err(UsageError(format!(
            "{}: {bad_lines} line(s) could not be replayed (see above)",
            args.file.display()
        ))
        .into());
    }
    Ok(())
}

fn parse_line(line: &str) -> Result<hermes_hooks_core::Event, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("invalid JSON: {e}"))?;
    let object = value.as_object().ok_or("a line must be a JSON object")?;
    let name = object
        .get("event")
        .and_then(Value::as_str)
        .ok_or("field 'event' must be a string")?;
    let name = host_event_name(name).map_err(|e| format!("field 'event': {e}"))?;
    let payload: Payload = match object.get("payload") {
        None | Some(Value::Null) => Payload::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => return Err("field 'payload' must be a JSON object".to_owned()),
    };
    Ok(host_event(name, payload))
}

/// Counts over a replay.
#[derive(Default)]
struct Summary {
    events: usize,
    outcomes: BTreeMap<&'static str, usize>,
    replies_by_mechanism: BTreeMap<String, usize>,
    elapsed_ms: f64,
}

impl Summary {
    fn add(&mut self, fired: &Fired) {
        self.events += 1;
        self.elapsed_ms += fired.elapsed.as_secs_f64() * 1000.0;
        *self
            .outcomes
            .entry(outcome_kind(&fired.outcome))
            .or_default() += 1;
        for reply in &fired.replies {
            let mechanism = reply.source.split(':').next().unwrap_or("?").to_owned();
            *self.replies_by_mechanism.entry(mechanism).or_default() += 1;
        }
    }

    fn to_json(&self, bad_lines: usize) -> Value {
        json!({
            "events": self.events,
            "bad_lines": bad_lines,
            "outcomes": self.outcomes,
            "replies_by_mechanism": self.replies_by_mechanism,
            "elapsed_ms": (self.elapsed_ms * 10.0).round() / 10.0,
        })
    }

    fn print(&self, bad_lines: usize, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(
            out,
            "Summary: {} replayed in {:.1} ms",
            plural(self.events, "event", "events"),
            self.elapsed_ms
        )?;
        let outcomes: Vec<String> = self
            .outcomes
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        writeln!(out, "  outcomes: {}", outcomes.join(", "))?;
        let replies: Vec<String> = self
            .replies_by_mechanism
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        if !replies.is_empty() {
            writeln!(out, "  replies by mechanism: {}", replies.join(", "))?;
        }
        if bad_lines > 0 {
            writeln!(out, "  bad lines skipped: {bad_lines}")?;
        }
        Ok(())
    }
}

fn outcome_kind(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Nothing | Outcome::Tool(ToolGate::Proceed) => "nothing",
        Outcome::Tool(ToolGate::Block { .. }) => "blocked",
        Outcome::Tool(ToolGate::Approve { .. }) => "approval",
        Outcome::Tool(ToolGate::Modify { .. }) => "modified",
        Outcome::Context(_) => "context",
        Outcome::Continue { .. } => "continue",
        Outcome::Dispatch(_) => "dispatch",
        Outcome::Transcription(_) => "transcription",
        Outcome::Replace(_) => "replaced",
        Outcome::Classification(_) => "classification",
        Outcome::Command(_) => "command",
        _ => "other",
    }
}
