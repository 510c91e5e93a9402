//! The comparison table's vocabulary: a case, the hooks it configures, what
//! each fired hook reported, and how the reference is expected to relate to us.

use serde_json::{Value, json};

/// How one fired hook's run ended, as both CLIs print it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunEnd {
    /// The process ran and exited (any status, or a signal).
    Exited,
    /// It could not be started (`✗ error: ...` / `"error": "..."`).
    SpawnError,
    /// It hit its timeout (`✗ timed out ...` / `"timed_out": true`).
    TimedOut,
}

/// One fired hook: how its run ended and the parsed decision (Hermes wire shape).
#[derive(Debug, Clone, PartialEq)]
pub struct Fired {
    pub end: RunEnd,
    pub parsed: Option<Value>,
}

impl Fired {
    /// The same run end with a parsed decision.
    pub fn then(self, parsed: Value) -> Fired {
        Fired {
            parsed: Some(parsed),
            ..self
        }
    }
}

/// What one `test` run reported for a case.
#[derive(Debug, Clone, PartialEq)]
pub enum Report {
    /// The hooks that fired, in config order (empty: none configured or all filtered).
    Hooks(Vec<Fired>),
    /// The CLI does not know the event.
    UnknownEvent,
}

impl Report {
    /// One line per report for failure messages: `[exited: {"context":"c"}, timed out: none]`.
    pub fn describe(&self) -> String {
        let Report::Hooks(hooks) = self else {
            return "unknown event".to_owned();
        };
        let hooks: Vec<String> = hooks
            .iter()
            .map(|hook| {
                let end = match hook.end {
                    RunEnd::Exited => "exited",
                    RunEnd::SpawnError => "spawn error",
                    RunEnd::TimedOut => "timed out",
                };
                match &hook.parsed {
                    Some(parsed) => format!("{end}: {parsed}"),
                    None => format!("{end}: none"),
                }
            })
            .collect();
        format!("[{}]", hooks.join(", "))
    }
}

/// How the reference relates to our expected report.
pub enum Reference {
    /// `hermes hooks test` reports exactly what we expect of `hooks test`.
    Agrees,
    /// The 0.19.0 reference lacks a feature we have (and the doc describes);
    /// it reports `gives` instead.
    Lacks {
        feature: &'static str,
        gives: Report,
    },
    /// We differ on purpose (a call in ARCHITECTURE.md's Decisions); the reference reports `gives`.
    ByDesign { call: &'static str, gives: Report },
    /// A divergence this suite found and reported to the lead, not yet settled;
    /// `gives` is what the reference reports, the expected report is what we do today.
    Diverges {
        finding: &'static str,
        gives: Report,
    },
}

/// One configured hook entry.
pub struct Hook {
    /// File contents to write, or `None` when the command names no file of ours.
    pub body: Option<String>,
    pub executable: bool,
    /// Where the file goes, relative to the Hermes home (prefixed per case).
    pub file: String,
    /// The configured command: `{script}` is the file's absolute path,
    /// `{script_dir}` its directory, `{name}` its path relative to the Hermes home.
    pub command: String,
    /// Extra YAML lines of the entry (`timeout: 1`, `matcher: x`).
    pub options: Vec<String>,
}

impl Hook {
    pub fn not_executable(mut self) -> Hook {
        self.executable = false;
        self
    }

    pub fn file(mut self, relative: &str) -> Hook {
        self.file = relative.to_owned();
        self
    }

    pub fn command(mut self, template: &str) -> Hook {
        self.command = template.to_owned();
        self
    }

    pub fn option(mut self, yaml_line: &str) -> Hook {
        self.options.push(yaml_line.to_owned());
        self
    }
}

/// A hook running `/bin/sh` with `lines` as its script.
pub fn script(lines: &str) -> Hook {
    raw_file(&format!("#!/bin/sh\n{lines}\n"))
}

/// A hook that reads its stdin, then prints `stdout` verbatim and exits 0.
pub fn prints(stdout: &str) -> Hook {
    script(&format!(
        "cat >/dev/null\ncat <<'HOOK_STDOUT'\n{stdout}\nHOOK_STDOUT"
    ))
}

/// An executable file with exactly `contents`.
pub fn raw_file(contents: &str) -> Hook {
    Hook {
        body: Some(contents.to_owned()),
        executable: true,
        file: "hook.sh".to_owned(),
        command: "{script}".to_owned(),
        options: Vec::new(),
    }
}

/// A command naming a path where nothing is written.
pub fn missing_file() -> Hook {
    Hook {
        body: None,
        ..raw_file("")
    }
}

/// A run that exited and parsed to `value`.
pub fn parsed(value: Value) -> Fired {
    exited().then(value)
}

/// A run that exited and contributed nothing.
pub fn nothing() -> Fired {
    exited()
}

fn exited() -> Fired {
    Fired {
        end: RunEnd::Exited,
        parsed: None,
    }
}

pub fn spawn_error() -> Fired {
    Fired {
        end: RunEnd::SpawnError,
        parsed: None,
    }
}

pub fn timed_out() -> Fired {
    Fired {
        end: RunEnd::TimedOut,
        parsed: None,
    }
}

pub fn block(message: &str) -> Value {
    json!({"action": "block", "message": message})
}

pub fn context(text: &str) -> Value {
    json!({"context": text})
}

pub fn keep_going(message: &str) -> Value {
    json!({"action": "continue", "message": message})
}

/// One row of the table.
pub struct Case {
    pub name: &'static str,
    pub event: &'static str,
    pub hooks: Vec<Hook>,
    pub for_tool: Option<&'static str>,
    /// A file under `tests/fixtures/reference/`.
    pub payload_file: Option<&'static str>,
    /// What `hooks test` must report. `{command}` inside a string stands for the fired hook's command.
    pub ours: Report,
    pub reference: Reference,
}

impl Case {
    pub fn new(name: &'static str, event: &'static str) -> Case {
        Case {
            name,
            event,
            hooks: Vec::new(),
            for_tool: None,
            payload_file: None,
            ours: Report::Hooks(Vec::new()),
            reference: Reference::Agrees,
        }
    }

    pub fn hook(mut self, hook: Hook) -> Case {
        self.hooks.push(hook);
        self
    }

    pub fn for_tool(mut self, tool: &'static str) -> Case {
        self.for_tool = Some(tool);
        self
    }

    pub fn payload_file(mut self, fixture: &'static str) -> Case {
        self.payload_file = Some(fixture);
        self
    }

    /// Expects these hooks, in order, to fire (none: pass an empty list).
    pub fn expect(mut self, fired: Vec<Fired>) -> Case {
        self.ours = Report::Hooks(fired);
        self
    }

    pub fn reference_lacks_event(mut self, feature: &'static str) -> Case {
        self.reference = Reference::Lacks {
            feature,
            gives: Report::UnknownEvent,
        };
        self
    }

    pub fn by_design(mut self, call: &'static str, gives: Vec<Fired>) -> Case {
        self.reference = Reference::ByDesign {
            call,
            gives: Report::Hooks(gives),
        };
        self
    }

    pub fn diverges(mut self, finding: &'static str, gives: Vec<Fired>) -> Case {
        self.reference = Reference::Diverges {
            finding,
            gives: Report::Hooks(gives),
        };
        self
    }

    /// What `hermes hooks test` must report.
    pub fn reference_report(&self) -> &Report {
        match &self.reference {
            Reference::Agrees => &self.ours,
            Reference::Lacks { gives, .. }
            | Reference::ByDesign { gives, .. }
            | Reference::Diverges { gives, .. } => gives,
        }
    }
}
