//! Output discipline: results on stdout, diagnostics on stderr, colour only for
//! a terminal, each distinct warning once per run, and a closed pipe ends the
//! command quietly.
//!
//! Every warning the command prints goes through [`warn_once`]: the ones we
//! print ourselves and the `WARN` events the libraries log through `tracing`
//! (see [`init_logging`]). A library often logs a warning and also returns it
//! for us to show; keying on the text shows it once.

use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::sync::{Mutex, OnceLock};

use tracing::Level;
use tracing::field::{Field, Visit};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// One of the two output streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Results.
    Stdout,
    /// Diagnostics: warnings, notes, logs, errors.
    Stderr,
}

/// Whether colour may be used on a stream, from whether it is a terminal and
/// the environment (`get` reads one variable). `CLICOLOR_FORCE` (set, non-empty,
/// not `0`) forces colour; else `NO_COLOR` (non-empty) or `TERM=dumb` turn it off;
/// else colour only for a terminal.
pub fn colour_decision(is_terminal: bool, get: impl Fn(&str) -> Option<String>) -> bool {
    let set = |name: &str| get(name).filter(|value| !value.is_empty());
    if set("CLICOLOR_FORCE").is_some_and(|value| value != "0") {
        return true;
    }
    if set("NO_COLOR").is_some() || get("TERM").as_deref() == Some("dumb") {
        return false;
    }
    is_terminal
}

/// Whether colour may be used on `stream` in this process (decided once).
pub fn colour(stream: Stream) -> bool {
    static STDOUT: OnceLock<bool> = OnceLock::new();
    static STDERR: OnceLock<bool> = OnceLock::new();
    let env = |name: &str| std::env::var(name).ok();
    match stream {
        Stream::Stdout => {
            *STDOUT.get_or_init(|| colour_decision(std::io::stdout().is_terminal(), env))
        }
        Stream::Stderr => {
            *STDERR.get_or_init(|| colour_decision(std::io::stderr().is_terminal(), env))
        }
    }
}

/// `text` in the ANSI colour `code` (e.g. `"33"` yellow) when `stream` takes colour.
pub fn paint(stream: Stream, code: &str, text: &str) -> String {
    if colour(stream) {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}

/// How the user runs `hooks` on this home: `hooks`, or `hooks --home DIR`
/// when `--home` named it, so a command a hint suggests (`hooks approve ...`)
/// acts on the home that was checked, not on `~/.hermes`.
pub fn hooks_command() -> &'static str {
    HOOKS_COMMAND.get().map_or("hooks", String::as_str)
}

/// Records the `--home` the user gave, for [`hooks_command`]: kept only when
/// `hooks` without it would work on another home. Called once, first.
pub fn set_home_flag(home: Option<&std::path::Path>) {
    let same = |a: &std::path::Path, b: &std::path::Path| {
        let canonical = |path: &std::path::Path| {
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        };
        canonical(a) == canonical(b)
    };
    let command = match home {
        Some(home) if !same(home, &hermes_hooks_core::home::resolve_home(None)) => {
            format!("hooks --home {}", shell_word(&home.display().to_string()))
        }
        _ => "hooks".to_owned(),
    };
    let _ = HOOKS_COMMAND.set(command);
}

static HOOKS_COMMAND: OnceLock<String> = OnceLock::new();

/// `text` as one POSIX shell word: bare when it holds only safe characters,
/// else single-quoted.
fn shell_word(text: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c);
    if !text.is_empty() && text.chars().all(safe) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

fn seen() -> &'static Mutex<HashSet<String>> {
    static SEEN: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    SEEN.get_or_init(|| Mutex::new(HashSet::new()))
}

/// The key two warnings are "the same" by: the text without the `[hooks] `
/// prefix some libraries log with, and without surrounding space.
fn warning_key(text: &str) -> String {
    text.trim()
        .trim_start_matches("[hooks] ")
        .trim_start_matches("warning: ")
        .to_owned()
}

/// Prints `warning: TEXT` on stderr unless the same warning was already printed
/// in this run; returns whether it printed. The text is escaped (it often quotes
/// config text). Use it for every warning, so none repeats.
pub fn warn_once(text: &str) -> bool {
    let key = warning_key(text);
    let fresh = seen()
        .lock()
        .map(|mut seen| seen.insert(key.clone()))
        .unwrap_or(true);
    if fresh {
        let label = paint(Stream::Stderr, "33", "warning:");
        let escaped = hermes_hooks_core::display::escape(&key);
        line_to_stderr(&format!("{label} {escaped}\n"));
    }
    fresh
}

/// Writes `line` to stderr in one write, so a line printed on stdout at the
/// same moment (both streams into one pipe or terminal) cannot land inside it.
fn line_to_stderr(line: &str) {
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
}

/// Prints `note: TEXT` on stderr: something the user should know that is not a problem.
pub fn note(text: &str) {
    let label = paint(Stream::Stderr, "36", "note:");
    let escaped = hermes_hooks_core::display::escape(text);
    line_to_stderr(&format!("{label} {escaped}\n"));
}

/// Whether `error` (or anything in its chain) is a write to a closed pipe: the
/// reader (`head`, a pager) is gone, so the command ends quietly with status 0.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Installs the `tracing` subscriber on stderr: `WARN` events go through
/// [`warn_once`], the other levels through the formatter, in colour only when
/// [`colour`] allows it. `HOOKS_LOG` overrides the level `verbose` picks.
pub fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("HOOKS_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let formatted = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .with_ansi(colour(Stream::Stderr))
        .with_filter(filter_fn(|meta| *meta.level() != Level::WARN));
    let warnings = WarnOnceLayer.with_filter(filter_fn(|meta| *meta.level() == Level::WARN));
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(formatted)
        .with(warnings)
        .try_init();
}

/// Sends `WARN` events to [`warn_once`].
struct WarnOnceLayer;

impl<S: tracing::Subscriber> Layer<S> for WarnOnceLayer {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        let mut text = EventText::default();
        event.record(&mut text);
        let line = match text.message {
            Some(message) => message,
            None => text.fields.join(" "),
        };
        warn_once(&line);
    }
}

/// The message of an event, and its other fields in case it has no message.
#[derive(Default)]
struct EventText {
    message: Option<String>,
    fields: Vec<String>,
}

impl Visit for EventText {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message = Some(value.to_owned());
        } else {
            self.fields.push(format!("{}={value}", field.name()));
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.message = Some(format!("{value:?}"));
        } else {
            self.fields.push(format!("{}={value:?}", field.name()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn colour_needs_a_terminal() {
        assert!(colour_decision(true, env(&[])));
        assert!(!colour_decision(false, env(&[])));
    }

    #[test]
    fn no_color_and_dumb_terminals_turn_it_off() {
        assert!(!colour_decision(true, env(&[("NO_COLOR", "1")])));
        assert!(!colour_decision(true, env(&[("TERM", "dumb")])));
        // An empty NO_COLOR does not count (no-color.org).
        assert!(colour_decision(true, env(&[("NO_COLOR", "")])));
    }

    #[test]
    fn clicolor_force_forces_it() {
        assert!(colour_decision(false, env(&[("CLICOLOR_FORCE", "1")])));
        assert!(colour_decision(
            false,
            env(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")])
        ));
        assert!(!colour_decision(false, env(&[("CLICOLOR_FORCE", "0")])));
        assert!(!colour_decision(false, env(&[("CLICOLOR_FORCE", "")])));
    }

    #[test]
    fn a_home_is_one_shell_word() {
        assert_eq!(super::shell_word("examples/home"), "examples/home");
        assert_eq!(super::shell_word("/tmp/my home"), "'/tmp/my home'");
        assert_eq!(super::shell_word("it's"), "'it'\\''s'");
        assert_eq!(super::shell_word(""), "''");
    }

    #[test]
    fn a_warning_prints_once_whatever_its_prefix() {
        assert!(warn_once("unit-test warning A"));
        assert!(!warn_once("unit-test warning A"));
        assert!(!warn_once("[hooks] unit-test warning A"));
        assert!(warn_once("unit-test warning B"));
    }

    #[test]
    fn broken_pipe_is_found_in_the_chain() {
        let io = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        let error = anyhow::Error::from(io).context("writing the list");
        assert!(is_broken_pipe(&error));
        assert!(!is_broken_pipe(&anyhow::anyhow!("other")));
    }
}
