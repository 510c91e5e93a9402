//! What a person is shown before approving a hook: where it is configured,
//! the project it runs for, everything it runs or sends (command, URL,
//! headers, the environment variables it may read) and what the approval
//! will be bound to. Config text is shown escaped.

use std::fmt::Write;

use hermes_hooks_core::display::escape;
use serde_json::Value;

use super::FingerprintKey;
use crate::binding::{Binding, Subject};

/// The lines describing `subject` (and, when given, what approving binds);
/// a masked header value's fingerprint is made with `key`.
// Not API: the facade's `hermes_hooks::inspect::run` (the run side of `hooks
// test`/`doctor`/`approve`) re-exports it; nothing else outside this crate uses it.
#[doc(hidden)]
pub fn describe_subject(
    subject: &Subject,
    binding: Option<&Binding>,
    key: &FingerprintKey,
) -> String {
    let mut text = String::new();
    let shown = |path: &std::path::Path| escape(&path.display().to_string()).into_owned();
    let _ = writeln!(text, "    Event:   {}", escape(&subject.event));
    match &subject.request {
        Some(request) => {
            let field = |key: &str| request.get(key).and_then(Value::as_str).unwrap_or("");
            let _ = writeln!(
                text,
                "    Request: {} {}",
                escape(field("method")),
                escape(&crate::shown_url(field("url")))
            );
            for header in request
                .get("headers")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let name = header.get(0).and_then(Value::as_str).unwrap_or("");
                let value = header.get(1).and_then(Value::as_str).unwrap_or("");
                // The literal text of a value is masked; the binding keeps it.
                let value = super::shown_header_value(value, key);
                let _ = writeln!(text, "    Header:  {}: {}", escape(name), escape(&value));
            }
            let vars: Vec<String> = request
                .get("allowed_env_vars")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|v| escape(v).into_owned())
                .collect();
            if !vars.is_empty() {
                let _ = writeln!(
                    text,
                    "    Env:     {} (sent where a header names them)",
                    vars.join(", ")
                );
            }
        }
        None => {
            let _ = writeln!(text, "    Command: {}", escape(&subject.command));
        }
    }
    // A settings file's `env` block: bound by the approval, shown as set
    // (issue 27 audit: bound but never shown); a value whose name says it
    // is a secret is shown as its fingerprint.
    for (name, value) in &subject.env {
        let upper = name.to_ascii_uppercase();
        let secret = [
            "TOKEN",
            "SECRET",
            "PASSWORD",
            "PASSWD",
            "KEY",
            "CREDENTIAL",
            "AUTH",
        ]
        .iter()
        .any(|word| upper.contains(word));
        let value = match secret {
            true => super::shown_header_value(value, key),
            false => value.clone(),
        };
        let _ = writeln!(
            text,
            "    Env:     {}={} (set for it by its settings file)",
            escape(name),
            escape(&value)
        );
    }
    if let Some(source) = &subject.source {
        let _ = writeln!(text, "    Source:  {}", shown(source));
    }
    let project = binding.map_or_else(|| subject.project.clone(), |b| b.project.clone());
    if let Some(project) = &project {
        let _ = writeln!(text, "    Project: {}", shown(project));
    }
    if let Some(binding) = binding {
        for (path, hash) in &binding.definitions {
            let _ = writeln!(
                text,
                "    Runs:    {} (the project's definitions; digest {})",
                shown(path),
                &hash[..hash.len().min(12)]
            );
        }
        for (path, hash) in &binding.files {
            let _ = writeln!(
                text,
                "    Binds:   {} (sha256 {})",
                shown(path),
                &hash[..hash.len().min(12)]
            );
        }
        if let Some(tree) = &binding.tree {
            let roots: Vec<String> = tree.roots.iter().map(|r| shown(r)).collect();
            let why = if subject.bind_tree {
                "the project's tool folder, links followed"
            } else {
                "its code cannot be named exactly"
            };
            let _ = writeln!(
                text,
                "    Binds:   every file under {} ({why}; any change asks again)",
                roots.join(", ")
            );
        }
    }
    text
}

/// The banner shown before asking about `subject` (fingerprints made with `key`).
pub fn subject_banner(
    subject: &Subject,
    binding: &Binding,
    changed: bool,
    key: &FingerprintKey,
) -> String {
    // From a file of the project's, not merely approved in one (sweep 58,
    // U58-3: the user's own `~/.claude` hook was called a project's).
    let from_project = subject
        .source
        .as_ref()
        .zip(subject.project.as_ref())
        .is_some_and(|(source, project)| source.starts_with(project));
    let what = match (from_project, subject.project.is_some()) {
        (true, _) => "a hook from a project directory",
        (false, true) => "a hook of yours, in this project,",
        (false, false) => "a shell hook",
    };
    let mut text = format!(
        "\n⚠ Hermes is about to register {what} that will run a\n  command on your behalf.\n\n{}\n  Commands run with your full user credentials.  Only approve\n  commands you trust.",
        describe_subject(subject, Some(binding), key)
    );
    if changed {
        text.push_str(
            "\n\n  ⚠ This hook was approved before, but what it runs has CHANGED\n  since: review the new code before approving it again.",
        );
    }
    text
}
